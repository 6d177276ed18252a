/**
 * Speech through T2A v2 (platform.minimax.io speech-t2a-http; MiniMax-MCP `text_to_audio`):
 * `POST /v1/t2a_v2`, synchronous, `stream: false`. What is sent:
 *   model, text
 *   voice_setting  {voice_id, speed (0.5-2), vol (0-10], pitch (integer semitones -12..12: our -1..1
 *                  scaled linearly and rounded), emotion (when given)}
 *   audio_setting  {sample_rate, bitrate (mp3 only), format mp3|wav|flac|pcm, channel 1}
 *   language_boost the request's language as MiniMax names it (omitted: the voice decides)
 *   output_format  "hex": the audio comes inside the answer, so what is kept at submit is the audio
 *                  itself and no expiring URL stands between the answer and the stored result
 * The answer: `{data: {audio, status}, extra_info: {audio_length (ms), audio_sample_rate, audio_size,
 * bitrate, audio_format, audio_channel, usage_characters, word_count}, trace_id, base_resp}`;
 * `usage_characters` is MiniMax's billing unit and becomes usage `characters`.
 */

import type { ProviderContext } from "../adapter";
import type { JobFor } from "../jobs";
import type { ProviderHandle, ProviderResult } from "../types";
import { ProviderError } from "../types";
import { audioOutput, extraNumber, readSync, submitSync } from "./sync";

export const SPEECH_PATH = "/v1/t2a_v2";

/** Voices in the catalog that no real upstream has (demonstration samples of cloned voices). */
export const isDemoCloneVoice = (voice: string) => voice.startsWith("clone_demo_");

const FORMATS = { mp3: "audio/mpeg", wav: "audio/wav", flac: "audio/flac", pcm: "audio/pcm" } as const;
type MiniMaxFormat = keyof typeof FORMATS;

/** BCP-47 language (its primary subtag, or the exact tag) → MiniMax `language_boost`. */
const LANGUAGE_BOOST: Record<string, string> = {
  "zh-HK": "Chinese,Yue",
  "zh-yue": "Chinese,Yue",
  yue: "Chinese,Yue",
  zh: "Chinese",
  en: "English",
  ar: "Arabic",
  ru: "Russian",
  es: "Spanish",
  fr: "French",
  pt: "Portuguese",
  de: "German",
  tr: "Turkish",
  nl: "Dutch",
  uk: "Ukrainian",
  vi: "Vietnamese",
  id: "Indonesian",
  ja: "Japanese",
  it: "Italian",
  ko: "Korean",
  th: "Thai",
  pl: "Polish",
  ro: "Romanian",
  el: "Greek",
  cs: "Czech",
  fi: "Finnish",
  hi: "Hindi",
};

export function languageBoost(language: string | undefined): string | undefined {
  if (!language) return undefined;
  return LANGUAGE_BOOST[language] ?? LANGUAGE_BOOST[language.split("-")[0]?.toLowerCase() ?? ""];
}

/** Our pitch (-1..1, 0 keeps the voice) as MiniMax's integer semitones (-12..12). */
export const pitchOf = (pitch: number) => Math.max(-12, Math.min(12, Math.round(pitch * 12))) || 0;

export function speechBody(job: JobFor<"text_to_speech">, provider: string): Record<string, unknown> {
  const r = job.request;
  if (isDemoCloneVoice(r.voice)) {
    throw new ProviderError(
      "voice_model_incompatible",
      `${provider}: voice "${r.voice}" is a demonstration sample that ${provider} does not have; choose a preset voice.`,
      { retryable: false, accepted: "no" },
    );
  }
  if (!(r.format in FORMATS)) {
    throw new ProviderError("unsupported_option", `${provider}: format "${r.format}" is not offered (mp3, wav, flac, pcm).`, {
      accepted: "no",
    });
  }
  const format = r.format as MiniMaxFormat;
  const voice: Record<string, unknown> = { voice_id: r.voice, speed: r.speed, vol: r.volume, pitch: pitchOf(r.pitch) };
  if (r.emotion) voice.emotion = r.emotion;
  const audio: Record<string, unknown> = { sample_rate: r.sample_rate ?? 32000, format, channel: 1 };
  if (format === "mp3") audio.bitrate = 128000;
  const body: Record<string, unknown> = {
    model: job.upstream_model,
    text: r.input,
    stream: false,
    voice_setting: voice,
    audio_setting: audio,
    output_format: "hex",
  };
  const boost = languageBoost(r.language);
  if (boost) body.language_boost = boost;
  return body;
}

export function submitSpeech(job: JobFor<"text_to_speech">, ctx: ProviderContext): Promise<ProviderHandle> {
  return submitSync(ctx, job, "speech", SPEECH_PATH, speechBody(job, ctx.config.name));
}

export async function speechResult(
  job: JobFor<"text_to_speech">,
  handle: ProviderHandle,
  ctx: ProviderContext,
): Promise<ProviderResult> {
  const answer = await readSync(ctx, handle);
  const format = (
    typeof answer.extra_info?.audio_format === "string" ? answer.extra_info.audio_format : job.request.format
  ) as string;
  const output = audioOutput(ctx.config, answer, FORMATS[format as MiniMaxFormat] ?? FORMATS.mp3);
  const usage: Record<string, number> = {};
  const characters = extraNumber(answer, "usage_characters");
  if (characters !== undefined) usage.characters = Math.floor(characters);
  const metadata: Record<string, unknown> = {};
  for (const k of ["audio_length", "audio_sample_rate", "bitrate", "audio_format", "audio_channel", "word_count"]) {
    const v = answer.extra_info?.[k];
    if (typeof v === "number" || typeof v === "string") metadata[k] = v;
  }
  return { outputs: [output], usage, metadata };
}
