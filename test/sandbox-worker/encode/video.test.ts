import { describe, expect, it } from "vitest";
import { renderClip, resizeRgb } from "../../../src/sandbox-worker/encode/video";
import { expectedYuv, maxDifference, noiseRgb } from "./expected-yuv";
import { avccNalUnits, parsePps, parseSps, readPcmPicture } from "./h264-reader";
import { majorBrand, probe } from "./mp4-probe";

/** Integer upscaling, where nearest neighbour is unambiguous: each source pixel becomes a block. */
function upscale(rgb: Uint8Array, width: number, height: number, factor: number): Uint8Array {
  const out = new Uint8Array(width * factor * height * factor * 3);
  for (let y = 0; y < height * factor; y++)
    for (let x = 0; x < width * factor; x++) {
      const s = (Math.floor(y / factor) * width + Math.floor(x / factor)) * 3;
      out.set(rgb.subarray(s, s + 3), (y * width * factor + x) * 3);
    }
  return out;
}

/** Decodes a keyframe sample of an MP4 through the test-only reader. */
async function decodeSample(bytes: Uint8Array, index: number) {
  const { info, samples } = await probe(bytes);
  const track = info.videoTracks[0]!;
  const list = samples(track.id);
  // The SPS and PPS live in the avcC box; find them by their NAL header bytes after "avcC".
  const at = findBox(bytes, "avcC");
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const spsLen = view.getUint16(at + 6);
  const sps = bytes.subarray(at + 8, at + 8 + spsLen);
  const ppsLen = view.getUint16(at + 9 + spsLen);
  const pps = bytes.subarray(at + 11 + spsLen, at + 11 + spsLen + ppsLen);
  const s = list[index]!;
  return {
    isSync: s.isSync,
    count: list.length,
    picture: readPcmPicture(avccNalUnits(s.data)[0]!, parseSps(sps), parsePps(pps)),
  };
}

/** Offset of a box's payload, found by its type. */
function findBox(bytes: Uint8Array, type: string): number {
  const code = [...type].map((c) => c.charCodeAt(0));
  for (let i = 4; i < bytes.length - 4; i++) if (code.every((c, k) => bytes[i + k] === c)) return i + 4;
  throw new Error(`no ${type} box`);
}

describe("renderClip", () => {
  it("starts on firstFrame and ends on lastFrame, both as keyframes", async () => {
    const first = { width: 32, height: 18, data: noiseRgb(32, 18, 1) };
    const last = { width: 16, height: 9, data: noiseRgb(16, 9, 2) };
    const clip = await renderClip({
      width: 64,
      height: 36,
      seconds: 2,
      fps: 12,
      seed: 1,
      container: "mp4",
      firstFrame: first,
      lastFrame: last,
    });
    expect(clip.frameCount).toBe(24);

    const head = await decodeSample(clip.bytes, 0);
    expect(head.isSync).toBe(true);
    expect(maxDifference(head.picture, expectedYuv(upscale(first.data, 32, 18, 2), 64, 36))).toBeLessThanOrEqual(1);

    const tail = await decodeSample(clip.bytes, 23);
    expect(tail.isSync).toBe(true);
    const lastRgb = upscale(last.data, 16, 9, 4);
    expect(maxDifference(tail.picture, expectedYuv(lastRgb, 64, 36))).toBeLessThanOrEqual(1);
    expect(clip.lastFrameRgb).toEqual(lastRgb);
  });

  it("cross-fades intermediate keyframes between the two pictures", async () => {
    const flat = (r: number, g: number, b: number) => ({
      width: 2,
      height: 2,
      data: Uint8Array.from({ length: 12 }, (_, i) => [r, g, b][i % 3]!),
    });
    const clip = await renderClip({
      width: 32,
      height: 32,
      seconds: 2,
      fps: 10,
      seed: 1,
      container: "mp4",
      firstFrame: flat(0, 0, 0),
      lastFrame: flat(255, 255, 255),
      keyframeInterval: 10,
    });
    const mid = await decodeSample(clip.bytes, 10);
    expect(mid.isSync).toBe(true);
    // Frame 10 of 0..19 is 10/19 of the way from black (Y 16) to white (Y 235).
    expect(mid.picture.y[0]).toBeCloseTo(16 + (219 * 10) / 19, -0.5);
  });

  it("puts keyframes one second apart by default and is deterministic per seed", async () => {
    const a = await renderClip({ width: 48, height: 32, seconds: 3, seed: 9, container: "mp4" });
    const b = await renderClip({ width: 48, height: 32, seconds: 3, seed: 9, container: "mp4" });
    const c = await renderClip({ width: 48, height: 32, seconds: 3, seed: 10, container: "mp4" });
    expect(a.bytes).toEqual(b.bytes);
    expect(a.bytes).not.toEqual(c.bytes);
    const { info, samples } = await probe(a.bytes);
    const track = info.videoTracks[0]!;
    expect(track.nb_samples).toBe(72);
    expect(samples(track.id).flatMap((s, i) => (s.isSync ? [i] : []))).toEqual([0, 24, 48]);
    expect(info.duration / info.timescale).toBe(3);
  });

  it("adds a soundtrack as long as the picture, in MOV too", async () => {
    const clip = await renderClip({ width: 64, height: 36, seconds: 2.5, fps: 30, seed: 3, container: "mov", withAudio: true });
    expect(majorBrand(clip.bytes)).toBe("qt  ");
    const { info } = await probe(clip.bytes);
    expect(info.videoTracks[0]?.nb_samples).toBe(75);
    expect(info.audioTracks[0]?.codec).toBe("mp4a.6b");
    for (const t of info.tracks) expect(t.movie_duration / t.movie_timescale).toBeCloseTo(2.5, 3);
  });

  it("rounds odd sizes down to even", async () => {
    const clip = await renderClip({ width: 65, height: 37, seconds: 0.5, seed: 1, container: "mp4" });
    expect([clip.width, clip.height]).toEqual([64, 36]);
    const { info } = await probe(clip.bytes);
    expect(info.videoTracks[0]?.video).toEqual({ width: 64, height: 36 });
  });

  it("stretches the keyframe interval to stay within a byte budget", async () => {
    const clip = await renderClip({ width: 160, height: 96, seconds: 4, seed: 1, container: "mp4", maxBytes: 50_000 });
    expect(clip.keyframeInterval).toBeGreaterThan(24);
    expect(clip.bytes.length).toBeLessThan(60_000);
  });

  it("keeps a 640×360, 2 s clip under 1.2 MB", async () => {
    const clip = await renderClip({ width: 640, height: 360, seconds: 2, seed: 5, container: "mp4" });
    expect(clip.bytes.length).toBeLessThan(1.2e6);
  });
});

describe("resizeRgb", () => {
  it("drops alpha and scales by nearest neighbour", () => {
    const rgba = Uint8Array.from([1, 2, 3, 255, 4, 5, 6, 255]);
    expect([...resizeRgb({ width: 2, height: 1, data: rgba }, 4, 1)]).toEqual([1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6]);
  });
});
