import { describe, expect, it } from "vitest";
import { encodeH264, nalUnit } from "../../../src/sandbox-worker/encode/h264";
import { expectedYuv, maxDifference, noiseRgb } from "./expected-yuv";
import { avccNalUnits, nalHeader, parsePps, parseSps, rbsp, readPcmPicture, readSkipSlice } from "./h264-reader";

function encode(width: number, height: number, frames: Uint8Array[], keyframeInterval: number) {
  return encodeH264({
    width,
    height,
    fps: 24,
    frameCount: frames.length,
    keyframeInterval,
    frame: (i) => frames[i] as Uint8Array,
  });
}

describe("H.264 elementary stream", () => {
  // 40×24 is not a multiple of 16 either way, so the SPS must crop 3×2 macroblocks down.
  const width = 40;
  const height = 24;
  const pictures = [0, 1, 2, 3, 4].map((i) => noiseRgb(width, height, 100 + i));
  const stream = encode(width, height, pictures, 2);
  const sps = parseSps(stream.sps);
  const pps = parsePps(stream.pps);

  it("declares Constrained Baseline, POC type 2 and the cropped size", () => {
    expect(sps.profileIdc).toBe(66);
    expect(sps.constraintFlags & 0xc0).toBe(0xc0);
    expect(sps.pocType).toBe(2);
    expect(sps.maxNumRefFrames).toBe(1);
    expect([sps.mbW, sps.mbH]).toEqual([3, 2]);
    expect([sps.width, sps.height]).toEqual([width, height]);
    expect(pps.cabac).toBe(false);
  });

  it("codes keyframes at the interval and P_Skip pictures in between", () => {
    expect(stream.samples.map((s) => s.isKeyframe)).toEqual([true, false, true, false, true]);
    for (const [i, s] of stream.samples.entries()) {
      const nals = avccNalUnits(s.data);
      expect(nals).toHaveLength(1);
      const h = nalHeader(nals[0] as Uint8Array);
      expect(h.type).toBe(s.isKeyframe ? 5 : 1);
      expect(h.refIdc).toBeGreaterThan(0);
      if (!s.isKeyframe) {
        expect(readSkipSlice(nals[0] as Uint8Array, sps, pps)).toEqual({ frameNum: i % 2, skipRun: 6 });
        expect(s.data.length).toBeLessThan(16);
      }
    }
  });

  it("reads back the first IDR's I_PCM samples as the BT.601 YUV of frame 0", () => {
    const nal = avccNalUnits((stream.samples[0] as { data: Uint8Array }).data)[0] as Uint8Array;
    const picture = readPcmPicture(nal, sps, pps);
    expect(picture.frameNum).toBe(0);
    const expected = expectedYuv(pictures[0] as Uint8Array, width, height);
    // The first macroblock on its own, sample by sample.
    for (let j = 0; j < 16; j++)
      for (let i = 0; i < 16; i++)
        expect(
          Math.abs((picture.y[j * picture.stride + i] as number) - (expected.y[j * width + i] as number)),
        ).toBeLessThanOrEqual(1);
    // Then the whole visible picture, including the macroblocks cut by the crop.
    expect(maxDifference(picture, expected)).toBeLessThanOrEqual(1);
  });

  it("gives consecutive IDRs different idr_pic_id values", () => {
    const ids = [0, 2, 4].map((i) => {
      const nal = avccNalUnits((stream.samples[i] as { data: Uint8Array }).data)[0] as Uint8Array;
      return readPcmPicture(nal, sps, pps).idrPicId;
    });
    expect(new Set(ids).size).toBe(3);
  });

  it("accepts RGBA with the same result as RGB", () => {
    const rgb = noiseRgb(32, 32, 9);
    const rgba = new Uint8Array(32 * 32 * 4);
    for (let p = 0; p < 32 * 32; p++) rgba.set([...rgb.subarray(p * 3, p * 3 + 3), 255], p * 4);
    expect(encode(32, 32, [rgba], 1).samples[0]?.data).toEqual(encode(32, 32, [rgb], 1).samples[0]?.data);
  });

  it("rejects odd sizes, which 4:2:0 cropping cannot express", () => {
    expect(() => encode(33, 32, [new Uint8Array(33 * 32 * 3)], 1)).toThrow(RangeError);
  });

  it("picks a level from the frame size and rate", () => {
    const one = (w: number, h: number) =>
      parseSps(
        encodeH264({ width: w, height: h, fps: 24, frameCount: 1, keyframeInterval: 1, frame: () => new Uint8Array(w * h * 3) })
          .sps,
      );
    expect(one(1280, 720).levelIdc).toBe(31);
    expect(one(1920, 1080).levelIdc).toBe(40);
    expect(one(176, 144).levelIdc).toBe(11); // 99 macroblocks at 24 fps exceed level 1.0's 1485 per second
  });
});

describe("emulation prevention", () => {
  it("escapes 00 00 0x and round-trips", () => {
    const payload = Uint8Array.from([0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 7]);
    const nal = nalUnit(3, 5, payload);
    expect([...nal]).toEqual([0x65, 0, 0, 3, 0, 0, 3, 0, 1, 0, 0, 3, 2, 0, 0, 3, 3, 0, 0, 4, 7]);
    expect(rbsp(nal)).toEqual(payload);
  });

  it("round-trips zero-heavy random payloads", () => {
    let s = 12345;
    for (let n = 0; n < 50; n++) {
      const payload = Uint8Array.from({ length: 200 }, () => {
        s = (s * 1103515245 + 12345) >>> 0;
        return s % 3 === 0 ? (s >> 8) & 3 : 0;
      });
      payload[payload.length - 1] = 0x80; // an RBSP ends in its stop bit
      expect(rbsp(nalUnit(0, 1, payload))).toEqual(payload);
    }
  });
});
