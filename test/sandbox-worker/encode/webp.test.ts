import webpDecoder from "@jsquash/webp/codec/dec/webp_dec.wasm";
import decodeWebp, { init as initDecoder } from "@jsquash/webp/decode";
import { beforeAll, describe, expect, it } from "vitest";
import { probeMedia } from "../../../src/media/probe";
import { encodeWebp } from "../../../src/sandbox-worker/encode/webp";

beforeAll(async () => {
  await (initDecoder as unknown as (m: WebAssembly.Module) => Promise<void>)(webpDecoder);
});

/** A horizontal gradient with a flat block, so both smooth and sharp content are coded. */
function picture(width: number, height: number): Uint8Array {
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      const block = x > width / 2 && y > height / 2;
      rgb[o] = block ? 20 : Math.round((x / width) * 255);
      rgb[o + 1] = block ? 200 : 90;
      rgb[o + 2] = block ? 60 : Math.round((y / height) * 255);
    }
  return rgb;
}

describe("WebP", () => {
  it("is a RIFF WebP that the service's probe reads at the exact size, opaque and still", async () => {
    const file = await encodeWebp(320, 180, picture(320, 180));
    expect(new TextDecoder().decode(file.subarray(0, 4))).toBe("RIFF");
    expect(new TextDecoder().decode(file.subarray(8, 12))).toBe("WEBP");
    expect(new DataView(file.buffer, file.byteOffset).getUint32(4, true)).toBe(file.length - 8);
    expect(probeMedia(file, "/output")).toMatchObject({
      kind: "image",
      mime: "image/webp",
      width: 320,
      height: 180,
      alpha: false,
      animated: false,
    });
  });

  it("decodes with libwebp's decoder to the picture it was given, within lossy error", async () => {
    const [width, height] = [96, 64];
    const rgb = picture(width, height);
    const decoded = await decodeWebp((await encodeWebp(width, height, rgb)).slice().buffer);
    expect([decoded.width, decoded.height]).toEqual([width, height]);
    let error = 0;
    for (let i = 0; i < width * height; i++)
      for (let c = 0; c < 3; c++) error += Math.abs((decoded.data[i * 4 + c] as number) - (rgb[i * 3 + c] as number));
    expect(error / (width * height * 3)).toBeLessThan(4);
    expect(decoded.data[3]).toBe(255);
  });

  it("encodes odd sizes and a single pixel", async () => {
    for (const [w, h] of [
      [1, 1],
      [17, 33],
    ] as const) {
      expect(probeMedia(await encodeWebp(w, h, picture(w, h)), "/output")).toMatchObject({ width: w, height: h });
    }
  });
});
