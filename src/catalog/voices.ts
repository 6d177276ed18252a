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

/** The public voice: the data file minus its provenance note. */
export function voiceView(v: VoiceFile) {
  const { source: _source, ...rest } = v;
  return rest;
}
