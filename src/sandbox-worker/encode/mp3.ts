/**
 * MP3 through lamejs (pure JS, so it runs in workerd), plus a frame splitter: the MP4 audio track
 * stores each MP3 frame as one sample.
 */
import { Mp3Encoder } from "@breezystack/lamejs";

export interface Mp3Stream {
  /** The whole stream: the frames back to back. */
  bytes: Uint8Array;
  frames: Uint8Array[];
  /** As encoded, which lame may lower from the input's rate at low bit rates. */
  sampleRate: number;
  channels: number;
  samplesPerFrame: number;
  /** Samples of silence a decoder produces before the first input sample (encoder + decoder delay). */
  delay: number;
  /** The input's length in samples per channel, at the encoded rate. */
  length: number;
}

/** lame's encoder delay (ENCDELAY) plus the standard decoder delay of 528 + 1 samples. */
const LAME_DELAY = 576 + 529;
const CHUNK = 1152 * 16;

const BITRATES = {
  v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

interface FrameHeader {
  length: number;
  sampleRate: number;
  samplesPerFrame: number;
}

/** A Layer III frame header at `at`, or undefined where there is none. */
function readHeader(b: Uint8Array, at: number): FrameHeader | undefined {
  if (at + 4 > b.length || b[at] !== 0xff || ((b[at + 1] as number) & 0xe0) !== 0xe0) return undefined;
  const version = ((b[at + 1] as number) >> 3) & 3; // 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5
  const layer = ((b[at + 1] as number) >> 1) & 3; // 1 = Layer III
  const bitrateIndex = (b[at + 2] as number) >> 4;
  const rateIndex = ((b[at + 2] as number) >> 2) & 3;
  const padding = ((b[at + 2] as number) >> 1) & 1;
  const rates = RATES[version];
  if (!rates || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const mpeg1 = version === 3;
  const kbps = (mpeg1 ? BITRATES.v1 : BITRATES.v2)[bitrateIndex] as number;
  const sampleRate = rates[rateIndex] as number;
  const samplesPerFrame = mpeg1 ? 1152 : 576;
  return { length: Math.floor(((samplesPerFrame / 8) * kbps * 1000) / sampleRate) + padding, sampleRate, samplesPerFrame };
}

/** Splits an MP3 elementary stream into frames, skipping anything between them. */
export function splitMp3(bytes: Uint8Array): { frames: Uint8Array[]; sampleRate: number; samplesPerFrame: number } {
  const frames: Uint8Array[] = [];
  let first: FrameHeader | undefined;
  for (let at = 0; at < bytes.length; ) {
    const h = readHeader(bytes, at);
    if (!h || at + h.length > bytes.length) {
      at++;
      continue;
    }
    first ??= h;
    frames.push(bytes.subarray(at, at + h.length));
    at += h.length;
  }
  return { frames, sampleRate: first?.sampleRate ?? 0, samplesPerFrame: first?.samplesPerFrame ?? 1152 };
}

/** `samples` are interleaved, one or two channels. */
export function mp3Frames(samples: Int16Array, sampleRate: number, channels: number, kbps = 128): Mp3Stream {
  if (channels !== 1 && channels !== 2) throw new RangeError(`MP3 takes 1 or 2 channels, got ${channels}`);
  const total = Math.floor(samples.length / channels);
  const encoder = new Mp3Encoder(channels, sampleRate, kbps);
  const parts: Uint8Array[] = [];
  const left = new Int16Array(CHUNK);
  const right = new Int16Array(CHUNK);
  for (let start = 0; start < total; start += CHUNK) {
    const n = Math.min(CHUNK, total - start);
    for (let i = 0; i < n; i++) {
      left[i] = samples[(start + i) * channels] as number;
      right[i] = samples[(start + i) * channels + channels - 1] as number;
    }
    parts.push(copy(encoder.encodeBuffer(left.subarray(0, n), right.subarray(0, n))));
  }
  parts.push(copy(encoder.flush()));
  const bytes = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  const split = splitMp3(bytes);
  const outRate = split.sampleRate || sampleRate;
  return {
    bytes,
    frames: split.frames,
    sampleRate: outRate,
    channels,
    samplesPerFrame: split.samplesPerFrame,
    delay: LAME_DELAY,
    length: Math.round((total * outRate) / sampleRate),
  };
}

/** lamejs returns Int8Array views of its working buffer: copy out as bytes before the next call. */
function copy(chunk: ArrayBufferView): Uint8Array {
  return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength).slice();
}

export function encodeMp3(samples: Int16Array, sampleRate: number, channels: number, kbps = 128): Uint8Array {
  return mp3Frames(samples, sampleRate, channels, kbps).bytes;
}
