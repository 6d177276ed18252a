/**
 * Music through `POST /v1/music_generation` (platform.minimax.io music generation; MiniMax-MCP
 * `music_generation`), synchronous: the answer holds the track. What is sent:
 *   model, prompt, lyrics (when given), is_instrumental
 *   lyrics_optimizer, aigc_watermark   from model_options.family_b (the card's controls)
 *   audio_setting {sample_rate, bitrate, format} from model_options.family_b.audio_setting
 *   output_format "url": the track is a URL the service copies at fetchResult (it expires)
 * A vocal song without lyrics has nothing to sing: lyrics_optimizer is then turned on, so that
 * MiniMax writes them from the prompt (its documented way to make a song from a prompt alone).
 * The answer: `{data: {audio | audio_url, status}, extra_info: {music_duration (ms), music_sample_rate,
 * music_channel, bitrate, music_size}, trace_id, base_resp}`; the URL may come in either field
 * (sync.ts reads both, and hex).
 */

import type { ProviderContext } from "../adapter";
import type { JobFor } from "../jobs";
import type { ProviderHandle, ProviderResult } from "../types";
import { audioOutput, extraNumber, readSync, submitSync } from "./sync";

export const MUSIC_PATH = "/v1/music_generation";

const TYPES: Record<string, string> = { mp3: "audio/mpeg", wav: "audio/wav", flac: "audio/flac", pcm: "audio/pcm" };

export function musicBody(job: JobFor<"text_to_music">): Record<string, unknown> {
  const r = job.request;
  const b = (r.model_options?.family_b ?? {}) as {
    lyrics_optimizer?: boolean;
    aigc_watermark?: boolean;
    audio_setting?: { sample_rate?: number; bitrate?: number; format?: string };
  };
  const setting = b.audio_setting ?? {};
  const format = setting.format ?? "mp3";
  const audio: Record<string, unknown> = { sample_rate: setting.sample_rate ?? 44100, format };
  if (format === "mp3") audio.bitrate = setting.bitrate ?? 256000;
  const lyrics = r.instrumental ? undefined : r.lyrics?.trim() ? r.lyrics : undefined;
  const body: Record<string, unknown> = {
    model: job.upstream_model,
    prompt: r.prompt,
    is_instrumental: r.instrumental,
    lyrics_optimizer: b.lyrics_optimizer ?? (!r.instrumental && lyrics === undefined),
    aigc_watermark: b.aigc_watermark ?? false,
    audio_setting: audio,
    output_format: "url",
  };
  if (lyrics !== undefined) body.lyrics = lyrics;
  return body;
}

export function submitMusic(job: JobFor<"text_to_music">, ctx: ProviderContext): Promise<ProviderHandle> {
  return submitSync(ctx, job, "music", MUSIC_PATH, musicBody(job));
}

export async function musicResult(
  job: JobFor<"text_to_music">,
  handle: ProviderHandle,
  ctx: ProviderContext,
): Promise<ProviderResult> {
  const answer = await readSync(ctx, handle);
  const format = (musicBody(job).audio_setting as { format: string }).format;
  const output = audioOutput(ctx.config, answer, TYPES[format] ?? "audio/mpeg");
  const metadata: Record<string, unknown> = {};
  const ms = extraNumber(answer, "music_duration");
  if (ms !== undefined) metadata.music_duration_ms = ms;
  for (const k of ["music_sample_rate", "music_channel", "bitrate", "music_size"]) {
    const v = extraNumber(answer, k);
    if (v !== undefined) metadata[k] = v;
  }
  return { outputs: [output], usage: { tracks: 1 }, metadata };
}
