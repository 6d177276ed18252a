import { parseBuffer } from "music-metadata";
import { describe, expect, it } from "vitest";
import { probeMedia } from "../../../src/media/probe";
import { synthesize } from "../../../src/sandbox-worker/encode/audio";
import { oggCrc, oggStream } from "../../../src/sandbox-worker/encode/ogg";
import { encodeOggOpus, resample } from "../../../src/sandbox-worker/encode/ogg-opus";
import { OpusDecoder, OpusEncoder } from "../../../src/sandbox-worker/encode/opus";
import { readOgg } from "./ogg-reader";

const ascii = (b: Uint8Array) => new TextDecoder().decode(b);

/** What RFC 7845 says a reader learns from a stream: its header fields and the decoded, trimmed audio. */
function decodeOggOpus(file: Uint8Array) {
  const { pages, packets } = readOgg(file);
  const [head, tags, ...audio] = packets;
  if (!head || !tags) throw new Error("no headers");
  const v = new DataView(head.data.buffer, head.data.byteOffset, head.data.byteLength);
  const header = {
    magic: ascii(head.data.subarray(0, 8)),
    length: head.data.length,
    version: v.getUint8(8),
    channels: v.getUint8(9),
    preSkip: v.getUint16(10, true),
    inputRate: v.getUint32(12, true),
    gain: v.getInt16(16, true),
    mapping: v.getUint8(18),
  };
  const vendorLength = new DataView(tags.data.buffer, tags.data.byteOffset).getUint32(8, true);
  const decoder = new OpusDecoder(header.channels);
  const chunks = audio.map((p) => decoder.decode(p.data));
  decoder.destroy();
  const decoded = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    decoded.set(c, at);
    at += c.length;
  }
  const lastGranule = Number(pages[pages.length - 1]?.granule);
  // Pre-skip drops the encoder's delay; the last granule position ends the audio (end trimming).
  const pcm = decoded.subarray(header.preSkip * header.channels, lastGranule * header.channels);
  return { pages, packets, head, tags, audio, header, vendor: ascii(tags.data.subarray(12, 12 + vendorLength)), pcm, decoded };
}

function rms(samples: Int16Array): number {
  let e = 0;
  for (const s of samples) e += s * s;
  return Math.sqrt(e / Math.max(1, samples.length));
}

describe("Ogg pages (RFC 3533)", () => {
  it("computes the Ogg CRC: generator 0x04C11DB7, no reflection, zero initial value and final XOR", () => {
    expect(oggCrc(new TextEncoder().encode("123456789"))).toBe(0x89a1897f);
    expect(oggCrc(new Uint8Array(0))).toBe(0);
  });

  it("laces packets of any length, continues one across pages, and marks BOS, EOS and granules", () => {
    const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);
    // 255 × 256 bytes needs 257 lacing values: more than a page's 255 segments.
    const sizes = [0, 254, 255, 510, 255 * 256, 3];
    const packets = sizes.map((n, i) => ({ data: bytes(n, i + 1), granule: BigInt(100 * (i + 1)) }));
    const file = oggStream([[{ data: bytes(19, 9), granule: 0n }], packets], { serial: 0xdeadbeef, packetsPerPage: 50 });
    const read = readOgg(file);
    expect(read.packets.map((p) => p.data.length)).toEqual([19, ...sizes]);
    read.packets.forEach((p, i) => {
      expect(p.data.every((b) => b === (i === 0 ? 9 : i))).toBe(true);
    });
    expect(read.pages[0]).toMatchObject({ serial: 0xdeadbeef, flags: 2, granule: 0n, segments: [19] });
    // A packet that is a multiple of 255 bytes ends with a zero lacing value.
    expect(read.pages[1]?.segments.slice(0, 5)).toEqual([0, 254, 255, 0, 255]);
    const continued = read.pages.filter((p) => p.flags & 1);
    expect(continued).toHaveLength(1);
    // The page the long packet starts on ends no packet of its own after the 510-byte one.
    expect(read.pages[1]?.granule).toBe(400n);
    expect(read.pages.at(-1)).toMatchObject({ flags: 1 | 4, granule: 600n });
  });

  it("starts a new packet on a fresh, not continued, page when the segments run out between packets", () => {
    const packets = Array.from({ length: 300 }, (_, i) => ({ data: Uint8Array.of(i & 255), granule: BigInt(i + 1) }));
    const read = readOgg(oggStream([packets], { serial: 3, packetsPerPage: 1000 }));
    expect(read.pages.map((p) => [p.flags, p.segments.length, p.granule])).toEqual([
      [2, 255, 255n],
      [4, 45, 300n],
    ]);
    expect(read.packets.map((p) => p.data[0])).toEqual(packets.map((p) => p.data[0]));
  });

  it("gives a page on which no packet ends the granule position -1", () => {
    const file = oggStream([[{ data: new Uint8Array(255 * 600).fill(7), granule: 5n }]], { serial: 1, packetsPerPage: 10 });
    const read = readOgg(file);
    expect(read.pages.map((p) => p.granule)).toEqual([-1n, -1n, 5n]);
    expect(read.pages.map((p) => p.flags)).toEqual([2, 1, 1 | 4]);
  });
});

describe("Ogg Opus (RFC 7845)", () => {
  const speech = synthesize({ seconds: 2.5, sampleRate: 24000, channels: 1, seed: 5, voice: true });

  it("writes OpusHead alone on the first page, OpusTags next, and audio from a fresh page", () => {
    const s = decodeOggOpus(encodeOggOpus(speech, 24000, 1, { bitrate: 32000, application: "voip", serial: 42 }));
    expect(s.header).toEqual({
      magic: "OpusHead",
      length: 19,
      version: 1,
      channels: 1,
      // libopus's lookahead at 24 kHz (6.5 ms), counted at 48 kHz.
      preSkip: 312,
      inputRate: 24000,
      gain: 0,
      mapping: 0,
    });
    expect(s.pages[0]).toMatchObject({ flags: 2, granule: 0n, segments: [19], serial: 42 });
    expect(s.head.page).toBe(0);
    expect(ascii(s.tags.data.subarray(0, 8))).toBe("OpusTags");
    expect(s.tags).toMatchObject({ page: 1, startsPage: true });
    expect(s.vendor).toContain("libopus");
    expect(s.pages[1]).toMatchObject({ granule: 0n, ended: 1 });
    expect(s.audio[0]).toMatchObject({ page: 2, startsPage: true });
  });

  it("decodes with libopus to the input's duration at 48 kHz, pre-skip and end trimming applied, and is not silence", () => {
    const s = decodeOggOpus(encodeOggOpus(speech, 24000, 1, { bitrate: 32000, application: "voip", serial: 42 }));
    // Every packet is 20 ms: 960 samples at 48 kHz; granules count them.
    expect(s.decoded.length).toBe(s.audio.length * 960);
    let granule = 0n;
    for (const page of s.pages.slice(2)) {
      expect(page.granule).toBeGreaterThan(granule);
      granule = page.granule;
    }
    expect(Number(granule)).toBe(312 + 2.5 * 48000);
    expect(s.pcm.length / 48000).toBe(2.5);
    // End trimming cuts less than the last page holds.
    expect(s.decoded.length - Number(granule)).toBeLessThan(960);
    expect(rms(s.pcm)).toBeGreaterThan(0.3 * rms(speech));
    // Pages hold about a second each.
    expect(s.pages.length).toBe(2 + Math.ceil(s.audio.length / 50));
  });

  it("follows the input in time: the decoded loudness envelope matches the input's", () => {
    const s = decodeOggOpus(encodeOggOpus(speech, 24000, 1, { bitrate: 32000, application: "voip", serial: 1 }));
    const input = resample(speech, 1, 24000, 48000);
    const window = 4800;
    const env = (x: Int16Array) =>
      Array.from({ length: Math.floor(x.length / window) }, (_, i) => rms(x.subarray(i * window, (i + 1) * window)));
    const a = env(input);
    const b = env(s.pcm);
    expect(b).toHaveLength(a.length);
    const mean = (v: number[]) => v.reduce((x, y) => x + y, 0) / v.length;
    const [ma, mb] = [mean(a), mean(b)];
    let num = 0;
    let da = 0;
    let db = 0;
    a.forEach((x, i) => {
      const y = b[i] as number;
      num += (x - ma) * (y - mb);
      da += (x - ma) ** 2;
      db += (y - mb) ** 2;
    });
    expect(num / Math.sqrt(da * db)).toBeGreaterThan(0.9);
  });

  it("resamples a rate Opus does not code to 48 kHz and records the requested rate in OpusHead", () => {
    const music = synthesize({ seconds: 1.5, sampleRate: 44100, channels: 2, seed: 3 });
    const file = encodeOggOpus(music, 44100, 2, { bitrate: 128000, application: "audio", serial: 7 });
    const s = decodeOggOpus(file);
    expect(s.header).toMatchObject({ channels: 2, inputRate: 44100, preSkip: 312 });
    expect(s.pcm.length / 2 / 48000).toBe(1.5);
    expect(rms(s.pcm)).toBeGreaterThan(0.3 * rms(music));
  });

  it("codes every rate Opus takes natively, pre-skip always counted at 48 kHz", () => {
    for (const rate of [8000, 12000, 16000, 48000]) {
      const tone = synthesize({ seconds: 0.5, sampleRate: rate, channels: 1, seed: 2, voice: true });
      const s = decodeOggOpus(encodeOggOpus(tone, rate, 1, { bitrate: 24000, application: "voip", serial: rate }));
      const encoder = new OpusEncoder(rate, 1, "voip");
      expect(s.header.preSkip).toBe(encoder.lookahead * (48000 / rate));
      encoder.destroy();
      expect(s.header.inputRate).toBe(rate);
      expect(s.pcm.length).toBe(24000);
    }
  });

  it("reads as Opus in Ogg, with its duration, to music-metadata and to the service's own probe", async () => {
    const file = encodeOggOpus(speech, 24000, 1, { bitrate: 32000, application: "voip", serial: 9 });
    const meta = await parseBuffer(file, { mimeType: "audio/ogg" });
    expect(meta.format.container).toBe("Ogg");
    expect(meta.format.codec).toMatch(/opus/i);
    expect(meta.format.numberOfChannels).toBe(1);
    expect(meta.format.duration).toBeCloseTo(2.5, 3);
    expect(probeMedia(file, "/output")).toMatchObject({ kind: "audio", mime: "audio/ogg", channels: 1, duration_seconds: 2.5 });
  });

  it("refuses what channel mapping family 0 cannot carry", () => {
    expect(() => encodeOggOpus(new Int16Array(600), 24000, 3, { bitrate: 32000, application: "audio", serial: 1 })).toThrow(
      /mono or stereo/,
    );
  });
});
