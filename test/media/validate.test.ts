/**
 * Inputs whose structure a decoder could not read are refused at admission (422 invalid_media,
 * naming the field), before anything is reserved: a PNG whose header lies about its size or whose
 * CRC is wrong, a JPEG without tables or scan, an MP4 without media or sample tables, an MP3 of one frame.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error";
import { encodePng } from "../../src/media/png";
import { mpegFrameLength, probeMedia } from "../../src/media/probe";
import { pngRawSize, validateMedia } from "../../src/media/validate";
import { call, expectError, newTenant } from "../helpers/api";
import { dataUri, png } from "../helpers/media-fixtures";
import { ledger, newKey } from "../helpers/tasks";
import { buildFixtures, isoFile } from "./fixtures";

async function verdict(bytes: Uint8Array): Promise<string> {
  try {
    await validateMedia(bytes, probeMedia(bytes, "/x"), "/x");
    return "ok";
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
}

/** A PNG whose IHDR claims `width`×`height` over the image data of a 2×2 image, CRCs made right. */
async function lyingPng(width: number, height: number): Promise<Uint8Array> {
  const real = await encodePng(2, 2, new Uint8Array(12), 3);
  const out = real.slice();
  const v = new DataView(out.buffer);
  v.setUint32(16, width);
  v.setUint32(20, height);
  // Recompute IHDR's CRC so that only the size lies.
  const { crc32 } = await import("../../src/media/png");
  v.setUint32(29, crc32([out.subarray(12, 29)]));
  return out;
}

describe("structural validation of inputs", () => {
  it("accepts every well-formed fixture it validates", async () => {
    const fixtures = await buildFixtures();
    for (const name of [
      "png",
      "png-rgba",
      "png-trns",
      "apng",
      "mp4",
      "mp4-v1",
      "mov",
      "mp4-fragmented",
      "wav",
      "mp3",
      "mp3-xing",
    ]) {
      expect(await verdict(fixtures[name] as Uint8Array), name).toBe("ok");
    }
    expect(await verdict(await png(300, 200))).toBe("ok");
    expect(await verdict(await png(64, 64, true))).toBe("ok");
  });

  it("computes the raw size of interlaced and packed images as the PNG specification does", () => {
    expect(pngRawSize(2, 2, 8, 2, false)).toBe(2 * (1 + 6));
    expect(pngRawSize(10, 3, 1, 0, false)).toBe(3 * (1 + 2));
    // Adam7 on 8×8 RGB: passes of 1×1, 1×1, 2×1, 2×2, 4×2, 4×4, 8×4 pixels.
    const rows = [
      [1, 1],
      [1, 1],
      [1, 2],
      [2, 2],
      [2, 4],
      [4, 4],
      [4, 8],
    ];
    expect(pngRawSize(8, 8, 8, 2, true)).toBe(rows.reduce((n, [h, w]) => n + (h as number) * (1 + (w as number) * 3), 0));
  });

  it.each([
    [4000, 3000],
    [2, 3],
    [1, 1],
  ])("refuses a PNG whose header says %i×%i over 2×2 pixels of data", async (w, h) => {
    expect(await verdict(await lyingPng(w, h))).toBe("invalid_media");
  });

  it("refuses a PNG with any single byte changed after its signature (CRCs, inflated size)", async () => {
    const good = await png(40, 30);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 8, max: good.length - 1 }), fc.integer({ min: 1, max: 255 }), async (at, delta) => {
        const bad = good.slice();
        bad[at] = ((bad[at] as number) + delta) & 255;
        let code: string;
        try {
          code = await verdict(bad);
        } catch (e) {
          code = e instanceof ApiError ? e.code : "thrown";
        }
        return code === "invalid_media" || code === "unsupported_media_type";
      }),
      { numRuns: 300 },
    );
  });

  it("refuses an MP4 without media data or without sample tables, and an MP3 of one frame", async () => {
    const fixtures = await buildFixtures();
    const mp4 = fixtures.mp4 as Uint8Array;
    const withoutMdat = mp4.slice(0, mp4.length - 72);
    expect(await verdict(withoutMdat)).toBe("invalid_media");
    const bare = isoFile({
      brand: "isom",
      movie: { timescale: 1000, duration: 1000 },
      tracks: [{ handler: "vide", width: 64, height: 64, timescale: 1000, duration: 1000 }],
    });
    // Strip the stbl down to its sample description: a player has nothing to play.
    const stripped = new Uint8Array([...bare].map((b) => b));
    const at = indexOf(stripped, "stts");
    stripped.set([120, 120, 120, 120], at);
    expect(await verdict(stripped)).toBe("invalid_media");
    const mp3 = fixtures.mp3 as Uint8Array;
    const start = mp3.indexOf(0xff);
    const oneFrame = mp3.slice(0, start + mpegFrameLength(new DataView(mp3.buffer, mp3.byteOffset).getUint32(start)));
    expect(await verdict(oneFrame)).toBe("invalid_media");
  });

  it("refuses a lying PNG at admission with 422 invalid_media at its field, reserving nothing", async () => {
    const t = await newTenant({ credits: "500" });
    const res = await call("/v1/images/edits", {
      key: t.api_key,
      body: { prompt: "x", images: [{ type: "data_uri", data_uri: dataUri("image/png", await lyingPng(4000, 3000)) }] },
      headers: { "Idempotency-Key": newKey() },
    });
    const e = expectError(res, 422, "invalid_media", "/images/0");
    expect(e.retryable).toBe(false);
    expect(((await ledger(t.tenant_id)) as any).totals.reserved).toBe("0");
  });
});

function indexOf(d: Uint8Array, type: string): number {
  for (let i = 0; i + 4 <= d.length; i++) if ([...type].every((c, j) => d[i + j] === c.charCodeAt(0))) return i;
  throw new Error(`no ${type}`);
}
