/**
 * Sandbox video, music and speech: real files from the encoders in ./encode, shaped by
 * the request (duration, resolution tier, aspect ratio, container, audio, first and last frames,
 * formats and sample rates). Deterministic for a request and seed.
 */
import { decode } from "fast-png";
import { hash32 } from "../lib/random";
import { formatMime, type SANDBOX_OUTPUT_FORMATS } from "../media/output-formats";
import { encodePng } from "../media/png";
import { ProviderError, type ProviderOutput, type ProviderResult } from "../providers/types";
import { encodeFlac, encodeMp3, encodeOggOpus, encodePcm, encodeWav, synthesize } from "./encode/audio";
import { type Extension, extendClip } from "./encode/extend";
import { type RGBImage, renderClip } from "./encode/video";
import type { StoredInput } from "./understanding";

/** Keyframes are raw samples: keep a clip's bytes bounded; the encoder spaces keyframes to fit. */
const CLIP_MAX_BYTES = 24 * 1024 * 1024;

/** Output size for a tier (short edge) and an aspect ratio; even numbers for 4:2:0. */
export function videoSize(resolution: string, aspect: string): { width: number; height: number } {
  const m = /^(\d+)(p|k)$/i.exec(resolution.trim());
  const short = m ? (m[2]?.toLowerCase() === "k" ? Number(m[1]) * 540 : Number(m[1])) : 720;
  const [a, b] = aspect.split(":").map(Number) as [number, number];
  const ratio = a > 0 && b > 0 ? a / b : 16 / 9;
  const even = (x: number) => Math.max(2, Math.round(x / 2) * 2);
  return ratio >= 1 ? { width: even(short * ratio), height: even(short) } : { width: even(short), height: even(short / ratio) };
}

async function picture(input: StoredInput | undefined): Promise<RGBImage | undefined> {
  if (input?.mime !== "image/png") return undefined;
  if (!input.data) return undefined;
  const png = decode(input.data);
  const src = png.depth === 16 ? Uint8Array.from(png.data as Uint16Array, (v) => v >> 8) : (png.data as Uint8Array);
  const rgb = new Uint8Array(png.width * png.height * 3);
  for (let i = 0; i < png.width * png.height; i++) {
    for (let c = 0; c < 3; c++) rgb[i * 3 + c] = src[i * png.channels + (png.channels >= 3 ? c : 0)] as number;
  }
  return { width: png.width, height: png.height, data: rgb };
}

/**
 * An extension keeps its source: the source's samples as they were, then (or, before, preceded by)
 * new frames, at the source's size and frame rate; its audio padded with silence (./encode/extend.ts).
 * A source the simulator cannot read (not an unfragmented H.264 MP4/MOV) gets a new clip of the
 * whole duration instead, and the metadata says so.
 */
async function extension(request: Record<string, any>, inputs: StoredInput[], seed: number) {
  const input = inputs.find((i) => i.field === "video" && i.kind === "video");
  const bytes = input?.data;
  if (!input || !bytes) return { unreadable: "the source video is not in storage" };
  const sourceSeconds = Number(request.source_duration ?? input.duration_seconds ?? 0);
  const added = Math.max(0, Number(request.duration ?? 5) - sourceSeconds);
  const direction = request.direction === "before" ? "before" : "after";
  return extendClip(bytes, { direction, seconds: added, seed, maxBytes: CLIP_MAX_BYTES });
}

export async function video(
  capability: string,
  request: Record<string, any>,
  inputs: StoredInput[],
  seed: number,
): Promise<ProviderResult> {
  const seconds = Number(request.duration ?? 5);
  const extended = capability === "video_extend" ? await extension(request, inputs, seed) : undefined;
  if (extended && !("unreadable" in extended)) return extendedResult(extended, request, seconds);
  const { width, height } = videoSize(String(request.resolution ?? "720p"), String(request.aspect_ratio ?? "16:9"));
  const container = request.output_format === "mov" ? "mov" : "mp4";
  const find = (field: string) => inputs.find((i) => i.field === field && i.kind === "image");
  const firstFrame =
    capability === "image_to_video"
      ? await picture(find("image"))
      : capability === "frames_to_video"
        ? await picture(find("first_frame"))
        : undefined;
  const lastFrame = capability === "frames_to_video" ? await picture(find("last_frame")) : undefined;
  const clip = await renderClip({
    width,
    height,
    seconds,
    seed,
    container,
    firstFrame,
    lastFrame,
    withAudio: Boolean(request.generate_audio),
    maxBytes: CLIP_MAX_BYTES,
  });
  const source = Number(request.source_duration ?? 0);
  return {
    outputs: await videoOutputs(
      {
        content_type: container === "mov" ? "video/quicktime" : "video/mp4",
        bytes: clip.bytes,
        width: clip.width,
        height: clip.height,
        duration_seconds: clip.frameCount / clip.fps,
      },
      request,
      { width: clip.width, height: clip.height, rgb: clip.lastFrameRgb },
    ),
    usage: videoUsage(seconds, capability === "video_extend" ? source : undefined),
    metadata: {
      simulated: true,
      provider: "sandbox",
      fps: clip.fps,
      frames: clip.frameCount,
      keyframe_interval: clip.keyframeInterval,
      has_audio: Boolean(request.generate_audio),
      ...(capability === "video_extend"
        ? { direction: request.direction, source_duration_seconds: source, source_kept: false, note: extended?.unreadable }
        : {}),
    },
  };
}

/** The video, then its last frame as a PNG when the request asks for it (and there is one). */
async function videoOutputs(
  video: { content_type: string; bytes: Uint8Array; width: number; height: number; duration_seconds: number },
  request: Record<string, any>,
  last: { width: number; height: number; rgb: Uint8Array } | undefined,
): Promise<ProviderOutput[]> {
  const outputs: ProviderOutput[] = [{ kind: "video", ...video, index: 0 }];
  if (request.return_last_frame && last) {
    outputs.push({
      kind: "image",
      content_type: "image/png",
      bytes: await encodePng(last.width, last.height, last.rgb, 3),
      width: last.width,
      height: last.height,
      index: 1,
    });
  }
  return outputs;
}

/** A clip's billed seconds; an extension of a `source`-second clip also counts the seconds it added. */
function videoUsage(seconds: number, source?: number): Record<string, number> {
  return {
    output_video_seconds: seconds,
    video_seconds: seconds,
    ...(source !== undefined ? { generated_video_seconds: Math.max(1, Math.ceil(seconds - source)) } : {}),
  };
}

async function extendedResult(e: Extension, request: Record<string, any>, seconds: number): Promise<ProviderResult> {
  const source = Number(request.source_duration ?? 0);
  return {
    outputs: await videoOutputs(
      { content_type: "video/mp4", bytes: e.bytes, width: e.width, height: e.height, duration_seconds: e.seconds },
      request,
      e.lastFrame,
    ),
    usage: videoUsage(seconds, source),
    metadata: {
      simulated: true,
      provider: "sandbox",
      direction: request.direction,
      source_duration_seconds: source,
      // The source's frames are kept as they were, at its own size and frame rate (not the requested resolution).
      source_kept: true,
      fps: e.fps,
      source_frames: e.sourceFrames,
      added_frames: e.addedFrames,
      audio: e.audio,
    },
  };
}

interface AudioFile {
  samples: Int16Array;
  sampleRate: number;
  channels: number;
  kbps: number;
  seed: number;
}

/** One encoder per audio type the sandbox lists as producible: the type checker holds the two together. */
const AUDIO_ENCODERS: Record<(typeof SANDBOX_OUTPUT_FORMATS.audio)[number], (a: AudioFile) => Uint8Array> = {
  "audio/mpeg": (a) => encodeMp3(a.samples, a.sampleRate, a.channels, a.kbps),
  "audio/wav": (a) => encodeWav(a.samples, a.sampleRate, a.channels),
  "audio/flac": (a) => encodeFlac(a.samples, a.sampleRate, a.channels),
  "audio/pcm": (a) => encodePcm(a.samples),
  // Ogg Opus: speech (mono) tuned for the voice, music for fidelity; the serial follows the seed.
  "audio/ogg": (a) =>
    encodeOggOpus(a.samples, a.sampleRate, a.channels, {
      bitrate: a.kbps * 1000,
      application: a.channels === 1 ? "voip" : "audio",
      serial: a.seed,
    }),
};

/** MP3 encoders take these rates; other rates are served as the nearest one. */
const MP3_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000];

/** The rate the file is written at: MP3 moves to its nearest rate; Ogg Opus keeps the rate in its header and resamples itself. */
function rateFor(mime: string, rate: number): number {
  return mime === "audio/mpeg" ? MP3_RATES.reduce((a, b) => (Math.abs(b - rate) < Math.abs(a - rate) ? b : a)) : rate;
}

function audioFile(mime: string, file: AudioFile) {
  const encode = Object.hasOwn(AUDIO_ENCODERS, mime) ? AUDIO_ENCODERS[mime as keyof typeof AUDIO_ENCODERS] : undefined;
  // Admission refuses a format the sandbox cannot make (src/media/output-formats.ts); this is a guard.
  if (!encode) throw new ProviderError("unsupported_option", `sandbox: ${mime} output is not simulated`);
  return { mime, bytes: encode(file) };
}

export function music(request: Record<string, any>, seed: number, fixedSeconds?: number): ProviderResult {
  const mime = formatMime("audio", String(request.format ?? "mp3"));
  const sampleRate = rateFor(mime, Number(request.sample_rate ?? 44100));
  const kbps = Math.max(32, Math.min(320, Math.round(Number(request.bitrate ?? 128000) / 1000)));
  const tracks = Math.max(1, Number(request.tracks ?? 1));
  const outputs: ProviderOutput[] = [];
  let total = 0;
  for (let index = 0; index < tracks; index++) {
    // A plausible song: 60 to 150 s, fixed by the prompt and seed (SANDBOX_MUSIC_SECONDS overrides).
    const seconds = fixedSeconds ?? 60 + (hash32(`${seed}|${request.prompt}|${index}`) % 91);
    const samples = synthesize({ seconds, sampleRate, channels: 2, seed: seed + index, voice: !request.instrumental });
    const file = audioFile(mime, { samples, sampleRate, channels: 2, kbps, seed: seed + index });
    outputs.push({ kind: "audio", content_type: file.mime, bytes: file.bytes, duration_seconds: seconds, index });
    total += seconds;
  }
  return {
    outputs,
    usage: { audio_seconds: total, tracks },
    metadata: {
      simulated: true,
      provider: "sandbox",
      instrumental: Boolean(request.instrumental),
      title: request.title ?? null,
      sample_rate: sampleRate,
    },
  };
}

export function speech(request: Record<string, any>, seed: number): ProviderResult {
  const mime = formatMime("audio", String(request.format ?? "mp3"));
  const input = String(request.input ?? "");
  const characters = [...input].length;
  const speed = Number(request.speed ?? 1);
  // About 15 characters a second at speed 1, never under half a second.
  const seconds = Math.max(0.5, Math.round((characters / (15 * speed)) * 100) / 100);
  const sampleRate = rateFor(mime, Number(request.sample_rate ?? 24000));
  const samples = synthesize({
    seconds,
    sampleRate,
    channels: 1,
    seed: seed ^ hash32(String(request.voice)),
    voice: true,
    pitch: Number(request.pitch ?? 0),
  });
  const volume = Number(request.volume ?? 1);
  if (volume !== 1)
    for (let i = 0; i < samples.length; i++)
      samples[i] = Math.max(-32768, Math.min(32767, Math.round((samples[i] as number) * Math.min(volume, 4))));
  const file = audioFile(mime, { samples, sampleRate, channels: 1, kbps: 64, seed });
  return {
    outputs: [{ kind: "audio", content_type: file.mime, bytes: file.bytes, duration_seconds: seconds, index: 0 }],
    usage: { characters, audio_seconds: Math.ceil(seconds) },
    metadata: {
      simulated: true,
      provider: "sandbox",
      voice: request.voice,
      sample_rate: sampleRate,
      speed,
      pitch: Number(request.pitch ?? 0),
    },
  };
}
