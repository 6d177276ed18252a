/** Bounds-checked readers: a read past the end is malformed media, never an out-of-range number. */
import { fail } from "./facts";

export function need(d: Uint8Array, off: number, len: number): void {
  if (!(off >= 0 && len >= 0 && off + len <= d.length)) fail("truncated");
}
export function u8(d: Uint8Array, o: number): number {
  need(d, o, 1);
  return d[o] as number;
}
export function u16be(d: Uint8Array, o: number): number {
  need(d, o, 2);
  return ((d[o] as number) << 8) | (d[o + 1] as number);
}
export function u16le(d: Uint8Array, o: number): number {
  need(d, o, 2);
  return (d[o] as number) | ((d[o + 1] as number) << 8);
}
export function u24le(d: Uint8Array, o: number): number {
  need(d, o, 3);
  return (d[o] as number) | ((d[o + 1] as number) << 8) | ((d[o + 2] as number) << 16);
}
export function u24be(d: Uint8Array, o: number): number {
  need(d, o, 3);
  return ((d[o] as number) << 16) | ((d[o + 1] as number) << 8) | (d[o + 2] as number);
}

export function u32be(d: Uint8Array, o: number): number {
  need(d, o, 4);
  return (((d[o] as number) << 24) | ((d[o + 1] as number) << 16) | ((d[o + 2] as number) << 8) | (d[o + 3] as number)) >>> 0;
}
export function u32le(d: Uint8Array, o: number): number {
  need(d, o, 4);
  return (((d[o + 3] as number) << 24) | ((d[o + 2] as number) << 16) | ((d[o + 1] as number) << 8) | (d[o] as number)) >>> 0;
}
/** 64-bit values as numbers: exact below 2^53, which covers every real size and duration. */
export function u64be(d: Uint8Array, o: number): number {
  return u32be(d, o) * 2 ** 32 + u32be(d, o + 4);
}
export function ascii(d: Uint8Array, o: number, n: number): string {
  need(d, o, n);
  return String.fromCharCode(...d.subarray(o, o + n));
}
/** Whether `text` is at `o`; false (not a throw) past the end, for identification. */
export function at(d: Uint8Array, o: number, text: string): boolean {
  if (o + text.length > d.length) return false;
  for (let i = 0; i < text.length; i++) if (d[o + i] !== text.charCodeAt(i)) return false;
  return true;
}

export function positiveDims(width: number, height: number): { width: number; height: number } {
  if (!(width > 0 && height > 0)) fail("zero width or height");
  return { width, height };
}
