import type { VoiceFile } from "./schema";

export interface VoiceFilter {
  language?: string;
  gender?: string;
  category?: string;
  q?: string;
}

/** `en` matches every English variant; `en-US` matches that tag only. Case-insensitive. */
function languageMatches(filter: string, tag: string): boolean {
  const f = filter.toLowerCase();
  const t = tag.toLowerCase();
  return f.includes("-") ? t === f : t === f || t.startsWith(`${f}-`);
}

export function filterVoices(voices: readonly VoiceFile[], filter: VoiceFilter): VoiceFile[] {
  const q = filter.q?.trim().toLowerCase();
  return voices.filter(
    (v) =>
      (!filter.language ||
        [v.language, ...v.languages_supported].some((tag) => languageMatches(filter.language as string, tag))) &&
      (!filter.gender || v.gender === filter.gender.toLowerCase()) &&
      (!filter.category || v.category === filter.category) &&
      (!q || v.display_name.toLowerCase().includes(q)),
  );
}

/**
 * The public voice: the data file minus its provenance note, with a preview this service serves
 * (a short clip in the voice's character, GET /voices/{voice_id}/preview), never a third party's URL.
 */
export function voiceView(v: VoiceFile, base: string) {
  const { source: _source, sample, ...rest } = v;
  return {
    ...rest,
    preview_url: `${base}/voices/${encodeURIComponent(v.voice_id)}/preview`,
    ...(sample ? { sample: true } : {}),
  };
}
