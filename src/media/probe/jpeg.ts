/** JPEG: marker segments to EOI, skipping the entropy-coded data of each scan. */
import { need, positiveDims, u8, u16be } from "./bytes";
import { type Facts, fail } from "./facts";

/** SOF markers that carry frame dimensions (not DHT C4, JPG C8 or DAC CC). */
export function isSof(m: number): boolean {
  return m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;
}

export function probeJpeg(d: Uint8Array): Facts {
  let off = 2;
  let dims: { width: number; height: number } | undefined;
  // Segments up to EOI, skipping entropy-coded data after each SOS, so a cut file is caught.
  for (;;) {
    if (u8(d, off) !== 0xff) fail("expected a marker");
    while (u8(d, off + 1) === 0xff) off++; // fill bytes
    const m = u8(d, off + 1);
    off += 2;
    if (m === 0xd9) break;
    if ((m >= 0xd0 && m <= 0xd7) || m === 0x01) continue; // standalone markers carry no length
    if (m === 0xd8 || m === 0x00) fail("unexpected marker");
    const len = u16be(d, off);
    if (len < 2) fail("segment length below 2");
    need(d, off, len);
    if (isSof(m) && !dims) {
      if (len < 8) fail("short frame header");
      dims = positiveDims(u16be(d, off + 5), u16be(d, off + 3));
    }
    off += len;
    if (m === 0xda) {
      if (!dims) fail("scan before the frame header");
      off = skipEntropyData(d, off);
    }
  }
  if (!dims) fail("no frame header");
  return { kind: "image", mime: "image/jpeg", ...dims, alpha: false, animated: false, frames: 1 };
}

/** The offset of the next marker after entropy-coded data: FF not followed by 00 (stuffing) or RSTn. */
function skipEntropyData(d: Uint8Array, off: number): number {
  for (;;) {
    const ff = d.indexOf(0xff, off);
    if (ff < 0 || ff + 1 >= d.length) fail("truncated scan data");
    const next = d[ff + 1] as number;
    if (next === 0x00 || next === 0xff || (next >= 0xd0 && next <= 0xd7)) off = ff + 1;
    else return ff;
  }
}
