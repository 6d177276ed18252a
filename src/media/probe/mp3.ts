/** MP3: ID3 tags, MPEG audio frame headers, and the duration from a VBR header or the frames themselves. */
import { at, need, u32be, u32le } from "./bytes";
import { type Facts, fail, Malformed } from "./facts";

/**
 * ID3v2 tags: 10-byte header, syncsafe size, optional 10-byte footer. Some taggers prepend a new
 * tag without removing the old one, so every consecutive tag is skipped. Returns the offset after them.
 */
export function skipId3v2(d: Uint8Array): number {
  let off = 0;
  while (at(d, off, "ID3")) {
    need(d, off, 10);
    let size = 0;
    for (let i = 6; i < 10; i++) {
      const b = d[off + i] as number;
      if (b & 0x80) fail("ID3v2 size is not syncsafe");
      size = size * 128 + b;
    }
    const end = off + 10 + size + ((d[off + 5] as number) & 0x10 ? 10 : 0);
    if (end > d.length) fail("ID3v2 tag runs past the end");
    off = end;
  }
  return off;
}

// Kilobits per second by [MPEG-1 ? 0 : 1][layer 1..3][index]; index 0 (free) and 15 are refused.
const MP3_BITRATES = [
  [
    [],
    [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  ],
  [
    [],
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  ],
] as const;
const MP3_RATES: Record<number, readonly number[]> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
};

/** The length in bytes of the MPEG audio frame whose 32-bit header is `h`; 0 when the header is not valid. */
export function mpegFrameLength(h: number): number {
  if (h >>> 21 !== 0x7ff) return 0;
  const version = (h >>> 19) & 3;
  const layer = 4 - ((h >>> 17) & 3);
  if (version === 1 || layer === 4) return 0;
  const bitrate = MP3_BITRATES[version === 3 ? 0 : 1][layer]?.[(h >>> 12) & 15] ?? 0;
  const rate = MP3_RATES[version]?.[(h >>> 10) & 3];
  if (!bitrate || !rate) return 0;
  const padding = (h >>> 9) & 1;
  const samplesPerFrame = layer === 1 ? 384 : layer === 3 && version !== 3 ? 576 : 1152;
  return layer === 1
    ? (Math.floor((12 * bitrate * 1000) / rate) + padding) * 4
    : Math.floor(((samplesPerFrame / 8) * bitrate * 1000) / rate) + padding;
}

export function isMpegSync(d: Uint8Array, o: number): boolean {
  // 11 sync bits, a version other than reserved (01) and a layer other than reserved (00).
  if (o + 1 >= d.length || d[o] !== 0xff) return false;
  const b = d[o + 1] as number;
  return (b & 0xe0) === 0xe0 && (b & 0x18) !== 0x08 && (b & 0x06) !== 0;
}

/** How far past the tags the first frame may be: decoders skip junk (padding, stray tag bytes) before it. */
const MP3_SYNC_SEARCH_BYTES = 64 * 1024;

/**
 * The offset of the first MPEG audio frame at or after `start`: a sync whose frame is followed by
 * another frame header (or ends the file), so a stray FF Ex byte pair in junk is not taken for one.
 */
function firstMpegFrame(d: Uint8Array, start: number): number {
  const limit = Math.min(d.length, start + MP3_SYNC_SEARCH_BYTES);
  for (let off = start; off < limit; off++) {
    if (d[off] !== 0xff || !isMpegSync(d, off) || off + 4 > d.length) continue;
    const len = mpegFrameLength(u32be(d, off));
    if (len === 0) continue;
    const next = off + len;
    if (next >= d.length || next + 4 > d.length || mpegFrameLength(u32be(d, next)) > 0) return off;
    if (d.length - next < 128 && (at(d, next, "TAG") || at(d, next, "APETAGEX"))) return off;
  }
  fail("no MPEG audio frame after the tag");
}

/** The offset of an MP3's first audio frame, past its ID3v2 tags and any junk; undefined when there is none. */
export function mpegAudioStart(d: Uint8Array): number | undefined {
  try {
    return firstMpegFrame(d, skipId3v2(d));
  } catch (e) {
    if (e instanceof Malformed) return undefined;
    throw e;
  }
}

/** Where the audio ends: before an ID3v1 tag or an APEv2 tag (footer) at the end of the file. */
function mpegAudioEnd(d: Uint8Array, from: number): number {
  let end = d.length;
  if (end - 128 >= from && at(d, end - 128, "TAG")) end -= 128;
  if (end - 32 >= from && at(d, end - 32, "APETAGEX")) {
    const size = u32le(d, end - 32 + 12); // tag size including the footer, excluding any header
    const header = (u32le(d, end - 32 + 20) & 0x80000000) !== 0 ? 32 : 0;
    if (size >= 32 && end - size - header >= from) end -= size + header;
  }
  return end;
}

/**
 * Counts whole frames by following their lengths from `first`; where the chain breaks (junk, a
 * cut last frame) the remaining bytes are timed at the average bitrate of the frames counted.
 */
function walkMpegFrames(d: Uint8Array, first: number, end: number, samplesPerFrame: number, rate: number): number {
  let frames = 0;
  let off = first;
  while (off + 4 <= end) {
    const len = mpegFrameLength(u32be(d, off));
    if (len === 0 || off + len > end) break;
    frames++;
    off += len;
  }
  const seconds = (frames * samplesPerFrame) / rate;
  const rest = end - off;
  return frames > 0 && rest > 0 ? seconds + (rest * seconds) / (off - first) : seconds;
}

export function probeMp3(d: Uint8Array, start: number): Facts {
  const off = firstMpegFrame(d, start);
  const h = u32be(d, off);
  const version = (h >>> 19) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
  const layer = 4 - ((h >>> 17) & 3); // 1..3
  const rate = MP3_RATES[version]?.[(h >>> 10) & 3] as number;
  const mono = ((h >>> 6) & 3) === 3;
  const samplesPerFrame = layer === 1 ? 384 : layer === 3 && version !== 3 ? 576 : 1152;
  need(d, off, mpegFrameLength(h));
  const frames = vbrFrameCount(d, off, version, mono, (h & 0x10000) === 0);
  // A Xing/Info or VBRI header gives the frame count; without one, count the frames themselves
  // (a first frame's bitrate says nothing of a variable-bitrate file's length).
  const seconds =
    frames !== undefined
      ? (frames * samplesPerFrame) / rate
      : walkMpegFrames(d, off, mpegAudioEnd(d, off), samplesPerFrame, rate);
  return { kind: "audio", mime: "audio/mpeg", duration_seconds: seconds, sample_rate: rate, channels: mono ? 1 : 2 };
}

/** The frame count of a Xing/Info header (after the side information) or a VBRI header (at 32 + 4). */
function vbrFrameCount(d: Uint8Array, frame: number, version: number, mono: boolean, crc: boolean): number | undefined {
  const side = version === 3 ? (mono ? 17 : 32) : mono ? 9 : 17;
  // Writers disagree on whether the CRC shifts the Xing header; look at both places.
  for (const o of crc ? [frame + 4 + side, frame + 6 + side] : [frame + 4 + side]) {
    if ((at(d, o, "Xing") || at(d, o, "Info")) && o + 12 <= d.length && (u32be(d, o + 4) & 1) === 1) return u32be(d, o + 8);
  }
  if (at(d, frame + 36, "VBRI") && frame + 54 <= d.length) return u32be(d, frame + 36 + 14);
  return undefined;
}
