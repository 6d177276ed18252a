/**
 * FLAC with VERBATIM subframes: a valid, seekable, lossless stream with no prediction, so it is
 * slightly larger than the WAV. Fixed 4096-sample blocks, 16-bit samples, independent channels.
 */
import { createHash } from "node:crypto";
import { BitWriter } from "./bits";
import { encodePcm } from "./wav";

const BLOCK = 4096;

const CRC8 = (() => {
  const t = new Uint8Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 0x80 ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff;
    t[n] = c;
  }
  return t;
})();

const CRC16 = (() => {
  const t = new Uint16Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n << 8;
    for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x8005) & 0xffff : (c << 1) & 0xffff;
    t[n] = c;
  }
  return t;
})();

function crc8(bytes: Uint8Array, end: number): number {
  let c = 0;
  for (let i = 0; i < end; i++) c = CRC8[c ^ (bytes[i] as number)] as number;
  return c;
}

function crc16(bytes: Uint8Array, end: number): number {
  let c = 0;
  for (let i = 0; i < end; i++) c = ((c << 8) & 0xffff) ^ (CRC16[(c >> 8) ^ (bytes[i] as number)] as number);
  return c;
}

/** The frame number in FLAC's extended UTF-8 form (up to 7 bytes for 36-bit numbers). */
function utf8Number(n: number): number[] {
  if (n < 0x80) return [n];
  const count = n < 0x800 ? 2 : n < 0x10000 ? 3 : n < 0x200000 ? 4 : n < 0x4000000 ? 5 : n < 0x80000000 ? 6 : 7;
  const out = new Array<number>(count);
  for (let i = count - 1; i > 0; i--) {
    out[i] = 0x80 | (n & 0x3f);
    n = Math.floor(n / 64);
  }
  // The lead byte has `count` one bits, a zero, then the highest payload bits.
  out[0] = ((0xff00 >> count) & 0xff) | n;
  return out;
}

const RATE_CODES: Record<number, number> = {
  88200: 1,
  176400: 2,
  192000: 3,
  8000: 4,
  16000: 5,
  22050: 6,
  24000: 7,
  32000: 8,
  44100: 9,
  48000: 10,
  96000: 11,
};

function frameHeader(frame: number, blockSize: number, sampleRate: number, channels: number): number[] {
  const bs = blockSize === BLOCK ? 12 : blockSize <= 256 ? 6 : 7;
  let sr = RATE_CODES[sampleRate] ?? 0;
  const srTail: number[] = [];
  if (!sr) {
    if (sampleRate % 1000 === 0 && sampleRate / 1000 < 256) {
      sr = 12;
      srTail.push(sampleRate / 1000);
    } else if (sampleRate < 65536) {
      sr = 13;
      srTail.push(sampleRate >> 8, sampleRate & 0xff);
    }
  }
  const h = [0xff, 0xf8, (bs << 4) | sr, ((channels - 1) << 4) | (0b100 << 1), ...utf8Number(frame)];
  if (bs === 6) h.push(blockSize - 1);
  if (bs === 7) h.push((blockSize - 1) >> 8, (blockSize - 1) & 0xff);
  h.push(...srTail);
  return h;
}

function streamInfo(sampleRate: number, channels: number, total: number, minFrame: number, maxFrame: number, sum: Uint8Array) {
  const w = new BitWriter(34);
  // The minimum excludes the last block, so it is BLOCK unless the whole stream is one short block.
  const blockSize = total >= BLOCK ? BLOCK : Math.max(16, total);
  w.bits(blockSize, 16);
  w.bits(blockSize, 16);
  w.bits(minFrame, 24);
  w.bits(maxFrame, 24);
  w.bits(sampleRate, 20);
  w.bits(channels - 1, 3);
  w.bits(15, 5); // bits per sample − 1
  w.bits(Math.floor(total / 2 ** 32), 4);
  w.bits(total >>> 0, 32);
  w.bytes(sum);
  return w.finish();
}

/** `samples` are interleaved. */
export function encodeFlac(samples: Int16Array, sampleRate: number, channels: number): Uint8Array {
  if (!Number.isInteger(channels) || channels < 1 || channels > 8)
    throw new RangeError(`FLAC takes 1–8 channels, got ${channels}`);
  if (!Number.isInteger(sampleRate) || sampleRate < 1 || sampleRate >= 2 ** 20)
    throw new RangeError(`bad sampleRate ${sampleRate}`);
  const total = Math.floor(samples.length / channels);
  const frames: Uint8Array[] = [];
  for (let start = 0, n = 0; start < total; start += BLOCK, n++) {
    const size = Math.min(BLOCK, total - start);
    const header = frameHeader(n, size, sampleRate, channels);
    const frame = new Uint8Array(header.length + 1 + channels * (1 + size * 2) + 2);
    frame.set(header);
    let o = header.length;
    frame[o++] = crc8(frame, header.length);
    const view = new DataView(frame.buffer);
    for (let c = 0; c < channels; c++) {
      frame[o++] = 0x02; // subframe header: VERBATIM, no wasted bits
      for (let i = 0; i < size; i++, o += 2) view.setInt16(o, samples[(start + i) * channels + c] as number);
    }
    view.setUint16(o, crc16(frame, o));
    frames.push(frame);
  }
  const sizes = frames.map((f) => f.length);
  const minFrame = sizes.reduce((a, b) => Math.min(a, b), sizes[0] ?? 0);
  const maxFrame = sizes.reduce((a, b) => Math.max(a, b), 0);
  // STREAMINFO carries the MD5 of the decoded samples; node:crypto's hash is synchronous (crypto.subtle's is not).
  const sum = createHash("md5")
    .update(encodePcm(samples.subarray(0, total * channels)))
    .digest();
  const info = streamInfo(sampleRate, channels, total, minFrame, maxFrame, sum);
  const out = new Uint8Array(4 + 4 + info.length + sizes.reduce((a, b) => a + b, 0));
  out.set([0x66, 0x4c, 0x61, 0x43], 0); // "fLaC"
  out.set([0x80, 0, 0, info.length], 4); // last metadata block, type 0 (STREAMINFO)
  out.set(info, 8);
  let at = 8 + info.length;
  for (const f of frames) {
    out.set(f, at);
    at += f.length;
  }
  return out;
}
