/**
 * Reference BT.601 limited-range conversion in floating point, kept apart from the encoder's
 * integer version so the tests compare against the formula rather than against themselves.
 */
export interface Planes {
  width: number;
  height: number;
  y: Float64Array;
  u: Float64Array;
  v: Float64Array;
}

export function expectedYuv(rgb: Uint8Array, width: number, height: number): Planes {
  const ch = rgb.length / (width * height);
  const px = (x: number, y: number, c: number) => rgb[(y * width + x) * ch + c] as number;
  const y = new Float64Array(width * height);
  const u = new Float64Array((width / 2) * (height / 2));
  const v = new Float64Array(u.length);
  for (let j = 0; j < height; j++)
    for (let i = 0; i < width; i++)
      y[j * width + i] = 16 + (65.481 * px(i, j, 0) + 128.553 * px(i, j, 1) + 24.966 * px(i, j, 2)) / 255;
  for (let j = 0; j < height / 2; j++)
    for (let i = 0; i < width / 2; i++) {
      const avg = [0, 1, 2].map(
        (c) => (px(2 * i, 2 * j, c) + px(2 * i + 1, 2 * j, c) + px(2 * i, 2 * j + 1, c) + px(2 * i + 1, 2 * j + 1, c)) / 4,
      ) as [number, number, number];
      u[j * (width / 2) + i] = 128 + (-37.797 * avg[0] - 74.203 * avg[1] + 112 * avg[2]) / 255;
      v[j * (width / 2) + i] = 128 + (112 * avg[0] - 93.786 * avg[1] - 18.214 * avg[2]) / 255;
    }
  return { width, height, y, u, v };
}

/** Largest absolute difference between the decoded picture (cropped) and the expected planes. */
export function maxDifference(
  decoded: { stride: number; y: Uint8Array; u: Uint8Array; v: Uint8Array },
  expected: Planes,
): number {
  let worst = 0;
  const { width, height } = expected;
  for (let j = 0; j < height; j++)
    for (let i = 0; i < width; i++)
      worst = Math.max(worst, Math.abs((decoded.y[j * decoded.stride + i] as number) - (expected.y[j * width + i] as number)));
  const cs = decoded.stride / 2;
  for (let j = 0; j < height / 2; j++)
    for (let i = 0; i < width / 2; i++) {
      worst = Math.max(worst, Math.abs((decoded.u[j * cs + i] as number) - (expected.u[j * (width / 2) + i] as number)));
      worst = Math.max(worst, Math.abs((decoded.v[j * cs + i] as number) - (expected.v[j * (width / 2) + i] as number)));
    }
  return worst;
}

/** Deterministic noise pictures: every pixel differs, so any misplaced sample shows. */
export function noiseRgb(width: number, height: number, seed: number, channels = 3): Uint8Array {
  const out = new Uint8Array(width * height * channels);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < out.length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = (s >>> 0) & 0xff;
  }
  return out;
}
