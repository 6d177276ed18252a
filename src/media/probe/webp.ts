/** WebP: the RIFF chunks, lossy (VP8), lossless (VP8L) or extended (VP8X). */
import { ascii, positiveDims, u8, u16le, u24le, u32le } from "./bytes";
import { type Facts, fail } from "./facts";

export function probeWebp(d: Uint8Array): Facts {
  const end = 8 + u32le(d, 4);
  if (end > d.length) fail("RIFF size exceeds the data");
  let first: string | undefined;
  let dims: { width: number; height: number } | undefined;
  let alpha = false;
  let animated = false;
  let anmf = 0;
  let hasImage = false;
  for (let off = 12; off < end; ) {
    const fourcc = ascii(d, off, 4);
    const size = u32le(d, off + 4);
    const body = off + 8;
    if (body + size > end) fail(`chunk ${fourcc} runs past the RIFF end`);
    if (first === undefined) {
      first = fourcc;
      if (fourcc === "VP8 ") {
        // Frame tag (3 bytes, bit 0 clear on a key frame), start code, 14-bit width and height.
        if (
          size < 10 ||
          (u8(d, body) & 1) !== 0 ||
          u8(d, body + 3) !== 0x9d ||
          u8(d, body + 4) !== 0x01 ||
          u8(d, body + 5) !== 0x2a
        )
          fail("bad VP8 key frame header");
        dims = positiveDims(u16le(d, body + 6) & 0x3fff, u16le(d, body + 8) & 0x3fff);
      } else if (fourcc === "VP8L") {
        if (size < 5 || u8(d, body) !== 0x2f) fail("bad VP8L signature");
        const bits = u32le(d, body + 1);
        if (bits >>> 29 !== 0) fail("unknown VP8L version");
        dims = { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
        alpha = ((bits >>> 28) & 1) === 1;
      } else if (fourcc === "VP8X") {
        if (size < 10) fail("short VP8X chunk");
        const flags = u8(d, body);
        alpha = (flags & 0x10) !== 0;
        animated = (flags & 0x02) !== 0;
        dims = { width: u24le(d, body + 4) + 1, height: u24le(d, body + 7) + 1 };
      } else fail(`unexpected first chunk ${fourcc}`);
    } else if (fourcc === "ANMF") anmf++;
    else if (fourcc === "VP8 " || fourcc === "VP8L") hasImage = true;
    off = body + size + (size & 1);
  }
  if (!first || !dims) fail("no image chunk");
  if (first === "VP8X") {
    if (animated && anmf === 0) fail("animated without frames");
    if (!animated && !hasImage) fail("no image data");
  }
  return { kind: "image", mime: "image/webp", ...dims, alpha, animated, frames: animated ? anmf : 1 };
}
