/**
 * Sandbox images: real PNG, JPEG or WebP files at exactly the requested dimensions, drawn from
 * the prompt, seed and palette — a gradient with shapes, so different requests give visibly
 * different pictures.
 */
import jpeg from "jpeg-js";
import { hash32, seededRandom } from "../lib/random";
import type { SANDBOX_OUTPUT_FORMATS } from "../media/output-formats";
import { encodePng } from "../media/png";
import { encodeWebp } from "./encode/webp";

export interface ImageSpec {
  width: number;
  height: number;
  seed: number;
  prompt: string;
  index: number;
  count: number;
  palette?: { color: string; weight: number }[];
  sequence?: boolean;
}

type Rgb = [number, number, number];

function hexToRgb(hex: string): Rgb {
  const h = hex.replace("#", "");
  const full = h.length === 3 ? [...h].map((c) => c + c).join("") : h.slice(0, 6);
  const n = Number.parseInt(full, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

export function colorsFor(spec: ImageSpec): Rgb[] {
  if (spec.palette && spec.palette.length > 0) return spec.palette.map((p) => hexToRgb(p.color));
  const rnd = seededRandom(hash32(`${spec.seed}|${spec.prompt}`));
  return Array.from({ length: 4 }, () => [Math.floor(rnd() * 256), Math.floor(rnd() * 256), Math.floor(rnd() * 256)] as Rgb);
}

export function renderImage(spec: ImageSpec): Uint8Array {
  const { width, height } = spec;
  const colors = colorsFor(spec);
  // Independent outputs differ by seed offset; sequence outputs share a scene and move in order.
  const rnd = seededRandom(hash32(`${spec.seed}|${spec.prompt}|${spec.sequence ? 0 : spec.index}`));
  const a = colors[0] as Rgb;
  const b = colors[1 % colors.length] as Rgb;
  const px = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const t = y / Math.max(1, height - 1);
    const r = a[0] + (b[0] - a[0]) * t;
    const g = a[1] + (b[1] - a[1]) * t;
    const bl = a[2] + (b[2] - a[2]) * t;
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      px[o] = r;
      px[o + 1] = g;
      px[o + 2] = bl;
    }
  }
  const shapes = 3 + Math.floor(rnd() * 4);
  const shift = spec.sequence ? (spec.index / Math.max(1, spec.count)) * 0.5 : 0;
  for (let s = 0; s < shapes; s++) {
    const c = colors[(s + 2) % colors.length] as Rgb;
    const cx = ((rnd() + shift) % 1) * width;
    const cy = rnd() * height;
    const radius = (0.05 + rnd() * 0.2) * Math.min(width, height);
    const r2 = radius * radius;
    const y0 = Math.max(0, Math.floor(cy - radius));
    const y1 = Math.min(height, Math.ceil(cy + radius));
    const x0 = Math.max(0, Math.floor(cx - radius));
    const x1 = Math.min(width, Math.ceil(cx + radius));
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const dx = x - cx;
        const dy = y - cy;
        if (dx * dx + dy * dy <= r2) {
          const o = (y * width + x) * 3;
          px[o] = c[0];
          px[o + 1] = c[1];
          px[o + 2] = c[2];
        }
      }
    }
  }
  return px;
}

export async function renderPng(spec: ImageSpec): Promise<Uint8Array> {
  return encodePng(spec.width, spec.height, renderImage(spec), 3);
}

export type SandboxImageType = (typeof SANDBOX_OUTPUT_FORMATS.image)[number];

/** RGB pixels as PNG, JPEG (quality 90) or WebP (lossy, quality 90). */
export async function encodeImage(type: SandboxImageType, width: number, height: number, rgb: Uint8Array) {
  if (type === "image/png") return { type, bytes: await encodePng(width, height, rgb, 3) };
  if (type === "image/webp") return { type, bytes: await encodeWebp(width, height, rgb) };
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0, j = 0; i < rgb.length; i += 3, j += 4) {
    rgba[j] = rgb[i] as number;
    rgba[j + 1] = rgb[i + 1] as number;
    rgba[j + 2] = rgb[i + 2] as number;
    rgba[j + 3] = 255;
  }
  return { type, bytes: new Uint8Array(jpeg.encode({ data: rgba, width, height }, 90).data) };
}

export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Nearest-neighbour resize to exactly width×height, RGB out (alpha dropped onto white). */
export function resizeRgb(src: RgbImage & { channels?: number }, width: number, height: number): Uint8Array {
  const ch = src.channels ?? 3;
  const out = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(src.height - 1, Math.floor((y * src.height) / height));
    for (let x = 0; x < width; x++) {
      const sx = Math.min(src.width - 1, Math.floor((x * src.width) / width));
      const i = (sy * src.width + sx) * ch;
      const o = (y * width + x) * 3;
      const a = ch === 4 ? (src.data[i + 3] as number) / 255 : 1;
      for (let c = 0; c < 3; c++) out[o + c] = Math.round((src.data[i + (ch >= 3 ? c : 0)] as number) * a + 255 * (1 - a));
    }
  }
  return out;
}

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * An output derived from an input picture: the base resized to the canvas and tinted toward the
 * request's colours. With regions, only the pixels inside them change (an edit mask).
 */
export function deriveImage(base: RgbImage & { channels?: number }, spec: ImageSpec, regions: Region[] = []): Uint8Array {
  const { width, height } = spec;
  const px = resizeRgb(base, width, height);
  const [tr, tg, tb] = colorsFor(spec)[spec.index % colorsFor(spec).length] as [number, number, number];
  const strength = 0.35 + 0.1 * (spec.index % 3);
  const inside = (x: number, y: number) =>
    regions.length === 0 ||
    regions.some((r) => x >= r.x * width && x < (r.x + r.width) * width && y >= r.y * height && y < (r.y + r.height) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!inside(x, y)) continue;
      const o = (y * width + x) * 3;
      px[o] = (px[o] as number) * (1 - strength) + tr * strength;
      px[o + 1] = (px[o + 1] as number) * (1 - strength) + tg * strength;
      px[o + 2] = (px[o + 2] as number) * (1 - strength) + tb * strength;
    }
  }
  return px;
}
