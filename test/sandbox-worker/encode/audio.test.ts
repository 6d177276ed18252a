import { createHash } from "node:crypto";
import { parseBuffer } from "music-metadata";
import { describe, expect, it } from "vitest";
import { encodeFlac, encodeMp3, encodePcm, encodeWav, mp3Frames, synthesize } from "../../../src/sandbox-worker/encode/audio";
import { readFlac } from "./flac-reader";

const stereo = synthesize({ seconds: 2.5, sampleRate: 44100, channels: 2, seed: 11, voice: true });

describe("synthesize", () => {
  it("is deterministic per seed", () => {
    expect(synthesize({ seconds: 2.5, sampleRate: 44100, channels: 2, seed: 11, voice: true })).toEqual(stereo);
    expect(synthesize({ seconds: 2.5, sampleRate: 44100, channels: 2, seed: 12, voice: true })).not.toEqual(stereo);
  });

  it("adds a vocal line only when asked, and pitch moves it", () => {
    const bed = synthesize({ seconds: 2.5, sampleRate: 44100, channels: 2, seed: 11 });
    expect(bed).toHaveLength(stereo.length);
    expect(bed).not.toEqual(stereo);
    const higher = synthesize({ seconds: 2.5, sampleRate: 44100, channels: 2, seed: 11, voice: true, pitch: 1 });
    expect(higher).not.toEqual(stereo);
  });

  it("is audible and does not clip", () => {
    let peak = 0;
    let energy = 0;
    for (const s of stereo) {
      peak = Math.max(peak, Math.abs(s));
      energy += s * s;
    }
    expect(peak).toBeLessThan(32767);
    expect(Math.sqrt(energy / stereo.length)).toBeGreaterThan(1000);
  });

  it("interleaves the requested channel count", () => {
    expect(synthesize({ seconds: 1, sampleRate: 22050, channels: 1, seed: 1 })).toHaveLength(22050);
    expect(synthesize({ seconds: 1, sampleRate: 48000, channels: 2, seed: 1 })).toHaveLength(96000);
  });
});

describe("PCM and WAV", () => {
  it("writes little-endian 16-bit samples", () => {
    expect([...encodePcm(Int16Array.from([1, -2, 0x1234]))]).toEqual([1, 0, 0xfe, 0xff, 0x34, 0x12]);
  });

  it("writes a WAV that parses with the exact format and duration", async () => {
    const meta = await parseBuffer(encodeWav(stereo, 44100, 2), { mimeType: "audio/wav" });
    expect(meta.format).toMatchObject({ container: "WAVE", sampleRate: 44100, numberOfChannels: 2, bitsPerSample: 16 });
    expect(meta.format.duration).toBe(2.5);
  });
});

describe("FLAC", () => {
  it("parses with the exact format and duration", async () => {
    const meta = await parseBuffer(encodeFlac(stereo, 44100, 2), { mimeType: "audio/flac" });
    expect(meta.format).toMatchObject({ container: "FLAC", sampleRate: 44100, numberOfChannels: 2, bitsPerSample: 16 });
    expect(meta.format.duration).toBe(2.5);
  });

  it("decodes losslessly with valid CRCs, frame numbers, block sizes and MD5", () => {
    const flac = readFlac(encodeFlac(stereo, 44100, 2));
    expect(flac.samples).toEqual(stereo);
    expect(flac.totalSamples).toBe(110250);
    expect([flac.minBlock, flac.maxBlock]).toEqual([4096, 4096]);
    expect(flac.frameNumbers).toEqual([...Array(27).keys()]); // 26 full blocks and a short one
    // The samples' MD5 as `md5sum` gives it for the same PCM written out by Node.
    expect(Buffer.from(flac.md5).toString("hex")).toBe("c053aba132e7be10144106514655f55b");
  });

  it("codes frame numbers past 127 in two bytes and odd rates in the header", () => {
    const long = synthesize({ seconds: 13, sampleRate: 44100, channels: 1, seed: 2 });
    expect(readFlac(encodeFlac(long, 44100, 1)).frameNumbers.at(-1)).toBe(139);
    const odd = synthesize({ seconds: 0.5, sampleRate: 11025, channels: 1, seed: 2 });
    const flac = readFlac(encodeFlac(odd, 11025, 1));
    expect([flac.sampleRate, flac.samples.length]).toEqual([11025, odd.length]);
  });
});

describe("MD5", () => {
  it("node:crypto's synchronous MD5, which the FLAC encoder uses, matches the RFC 1321 test vectors in workerd", () => {
    const hex = (s: string) => createHash("md5").update(s).digest("hex");
    expect(hex("")).toBe("d41d8cd98f00b204e9800998ecf8427e");
    expect(hex("abc")).toBe("900150983cd24fb0d6963f7d28e17f72");
    expect(hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890")).toBe(
      "57edf4a22be3c955ac49da2e2107b67a",
    );
  });
});

describe("MP3", () => {
  it("encodes stereo 44.1 kHz that parses with the right format and duration", async () => {
    const meta = await parseBuffer(encodeMp3(stereo, 44100, 2, 128), { mimeType: "audio/mpeg" }, { duration: true });
    expect(meta.format).toMatchObject({ container: "MPEG", codec: "MPEG 1 Layer 3", sampleRate: 44100, numberOfChannels: 2 });
    expect(Math.abs((meta.format.duration as number) - 2.5) / 2.5).toBeLessThan(0.05);
  });

  it("encodes mono 22.05 kHz as MPEG-2", async () => {
    const mono = synthesize({ seconds: 2, sampleRate: 22050, channels: 1, seed: 3, voice: true });
    const meta = await parseBuffer(encodeMp3(mono, 22050, 1, 64), { mimeType: "audio/mpeg" }, { duration: true });
    expect(meta.format).toMatchObject({ codec: "MPEG 2 Layer 3", sampleRate: 22050, numberOfChannels: 1 });
    expect(Math.abs((meta.format.duration as number) - 2) / 2).toBeLessThan(0.05);
  });

  it("splits the stream into whole frames covering the input", () => {
    const mp3 = mp3Frames(stereo, 44100, 2, 128);
    expect(mp3.samplesPerFrame).toBe(1152);
    expect(mp3.frames.reduce((n, f) => n + f.length, 0)).toBe(mp3.bytes.length);
    expect(mp3.frames.length * 1152).toBeGreaterThanOrEqual(mp3.delay + mp3.length);
    expect(mp3.length).toBe(110250);
  });

  it("is deterministic", () => {
    expect(encodeMp3(stereo, 44100, 2, 128)).toEqual(encodeMp3(stereo, 44100, 2, 128));
  });
});
