/** Deterministic RGB pictures for synthetic clips, and the image helpers the clip renderer needs. */
import { mulberry32 } from "./synth";
import { pixelStride } from "./yuv";

export interface RGBImage {
  width: number;
  height: number;
  /** RGB (or RGBA, whose alpha is dropped), row-major. */
  data: Uint8Array;
}

/** Nearest-neighbour resize to RGB; also turns RGBA into RGB. */
export function resizeRgb(img: RGBImage, width: number, height: number): Uint8Array {
  const ch = pixelStride(img.data, img.width, img.height);
  const out = new Uint8Array(width * height * 3);
  const xs = Int32Array.from(
    { length: width },
    (_, x) => Math.min(img.width - 1, Math.floor(((x + 0.5) * img.width) / width)) * ch,
  );
  for (let y = 0; y < height; y++) {
    const row = Math.min(img.height - 1, Math.floor(((y + 0.5) * img.height) / height)) * img.width * ch;
    for (let x = 0; x < width; x++) {
      const s = row + (xs[x] as number);
      const o = (y * width + x) * 3;
      out[o] = img.data[s] as number;
      out[o + 1] = img.data[s + 1] as number;
      out[o + 2] = img.data[s + 2] as number;
    }
  }
  return out;
}

/** a·(1−t) + b·t per byte, exact at t = 0 and t = 1. */
export function crossFade(a: Uint8Array, b: Uint8Array, t: number): Uint8Array {
  const w = Math.round(Math.max(0, Math.min(1, t)) * 256);
  const out = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = ((a[i] as number) * (256 - w) + (b[i] as number) * w + 128) >> 8;
  return out;
}

export interface Scene {
  /** The picture at `seconds`, RGB. */
  background(seconds: number): Uint8Array;
  /** Draws the moving shape at `seconds` onto an RGB picture, in place. */
  drawShape(rgb: Uint8Array, seconds: number): void;
}

/** A gradient whose colours drift slowly, with a disc that wanders along a Lissajous path. */
export function scene(width: number, height: number, seed: number): Scene {
  const rng = mulberry32(seed ^ 0x51de0);
  const colour = () => [40 + rng() * 200, 40 + rng() * 200, 40 + rng() * 200];
  const from = colour();
  const to = colour();
  const disc = colour().map((c) => 255 - c);
  const angle = rng() * 2 * Math.PI;
  const [fx, fy, px, py] = [0.07 + rng() * 0.1, 0.05 + rng() * 0.1, rng(), rng()];
  const radius = Math.max(2, Math.min(width, height) * (0.1 + rng() * 0.08));
  const dx = Math.cos(angle);
  const dy = Math.sin(angle);
  const span = Math.abs(dx) * width + Math.abs(dy) * height || 1;
  const min = Math.min(0, dx * width) + Math.min(0, dy * height);

  return {
    background(seconds) {
      const drift = 0.5 + 0.5 * Math.sin(seconds * 0.4);
      const out = new Uint8Array(width * height * 3);
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const t = ((x * dx + y * dy - min) / span) * (0.6 + 0.4 * drift);
          const o = (y * width + x) * 3;
          for (let c = 0; c < 3; c++) out[o + c] = (from[c] as number) + ((to[c] as number) - (from[c] as number)) * t;
        }
      }
      return out;
    },
    drawShape(rgb, seconds) {
      const cx = width / 2 + (width / 2 - radius) * Math.sin(2 * Math.PI * (seconds * fx + px));
      const cy = height / 2 + (height / 2 - radius) * Math.sin(2 * Math.PI * (seconds * fy + py));
      const r2 = radius * radius;
      for (let y = Math.max(0, Math.floor(cy - radius)); y < Math.min(height, Math.ceil(cy + radius)); y++)
        for (let x = Math.max(0, Math.floor(cx - radius)); x < Math.min(width, Math.ceil(cx + radius)); x++) {
          if ((x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 > r2) continue;
          const o = (y * width + x) * 3;
          rgb[o] = disc[0] as number;
          rgb[o + 1] = disc[1] as number;
          rgb[o + 2] = disc[2] as number;
        }
    },
  };
}
