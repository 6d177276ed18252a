/**
 * RGB to 8-bit YUV 4:2:0, BT.601 limited range, with the planes padded to whole 16×16 macroblocks
 * by repeating the last column and row (the padding is cropped away by the SPS, and repeating
 * edges keeps chroma at the border from bleeding toward black).
 */
export interface Yuv420 {
  /** Padded plane sizes: luma is width×height, each chroma plane (width/2)×(height/2). */
  width: number;
  height: number;
  y: Uint8Array;
  u: Uint8Array;
  v: Uint8Array;
}

/** Bytes per pixel of an RGB or RGBA buffer of the given size. */
export function pixelStride(data: Uint8Array, width: number, height: number): 3 | 4 {
  if (data.length === width * height * 3) return 3;
  if (data.length === width * height * 4) return 4;
  throw new RangeError(
    `expected ${width}×${height} RGB or RGBA (${width * height * 3} or ${width * height * 4} bytes), got ${data.length}`,
  );
}

export function rgbToYuv420(rgb: Uint8Array, width: number, height: number, padW = width, padH = height): Yuv420 {
  const ch = pixelStride(rgb, width, height);
  const y = new Uint8Array(padW * padH);
  const cw = padW >> 1;
  const u = new Uint8Array(cw * (padH >> 1));
  const v = new Uint8Array(cw * (padH >> 1));
  for (let py = 0; py < padH; py += 2) {
    const r0 = Math.min(py, height - 1) * width;
    const r1 = Math.min(py + 1, height - 1) * width;
    for (let px = 0; px < padW; px += 2) {
      const c0 = Math.min(px, width - 1);
      const c1 = Math.min(px + 1, width - 1);
      let rs = 0;
      let gs = 0;
      let bs = 0;
      for (let k = 0; k < 4; k++) {
        const i = ((k < 2 ? r0 : r1) + (k & 1 ? c1 : c0)) * ch;
        const r = rgb[i] as number;
        const g = rgb[i + 1] as number;
        const b = rgb[i + 2] as number;
        rs += r;
        gs += g;
        bs += b;
        y[(py + (k >> 1)) * padW + px + (k & 1)] = ((66 * r + 129 * g + 25 * b + 128) >> 8) + 16;
      }
      // Chroma of the 2×2 average (sums are 4× the average, hence the wider shift).
      const ci = (py >> 1) * cw + (px >> 1);
      u[ci] = ((-38 * rs - 74 * gs + 112 * bs + 512) >> 10) + 128;
      v[ci] = ((112 * rs - 94 * gs - 18 * bs + 512) >> 10) + 128;
    }
  }
  return { width: padW, height: padH, y, u, v };
}
