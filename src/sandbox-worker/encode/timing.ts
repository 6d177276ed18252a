/**
 * Frame rates as exact fractions, so that sample durations and the file's duration come out as
 * whole numbers of ticks (24 → 24/1, 29.97 → 30000/1001).
 */
export interface FrameRate {
  num: number;
  den: number;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

export function frameRate(fps: number): FrameRate {
  if (!(fps > 0) || !Number.isFinite(fps)) throw new RangeError(`fps must be positive, got ${fps}`);
  if (Number.isInteger(fps)) return { num: fps, den: 1 };
  // NTSC-style rates first: 23.976, 29.97 and 59.94 are n·1000/1001.
  const ntsc = Math.round(fps * 1001);
  if (ntsc % 1000 === 0 && Math.abs(ntsc / 1001 - fps) < 1e-4) return { num: ntsc, den: 1001 };
  const num = Math.round(fps * 1000);
  const g = gcd(num, 1000);
  return { num: num / g, den: 1000 / g };
}

/** Ticks per second for a media timescale in which one frame lasts a whole number of ticks. */
export function videoTimescale(rate: FrameRate): { timescale: number; frameTicks: number } {
  // A ×1000 scale for integral rates keeps the numbers familiar (24 fps → 24000/1000) and exact.
  return rate.den === 1 ? { timescale: rate.num * 1000, frameTicks: 1000 } : { timescale: rate.num, frameTicks: rate.den };
}
