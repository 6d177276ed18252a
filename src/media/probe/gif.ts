/** GIF: every block to the trailer, counting image descriptors as frames. */
import { positiveDims, u8, u16le } from "./bytes";
import { type Facts, fail } from "./facts";

/** Skips a run of GIF data sub-blocks (length byte, data) up to the zero terminator. */
function skipSubBlocks(d: Uint8Array, off: number): number {
  for (;;) {
    const n = u8(d, off);
    off += 1 + n;
    if (n === 0) return off;
  }
}

export function probeGif(d: Uint8Array): Facts {
  const width = u16le(d, 6);
  const height = u16le(d, 8);
  const packed = u8(d, 10);
  let off = 13 + (packed & 0x80 ? 3 << ((packed & 7) + 1) : 0);
  let frames = 0;
  let alpha = false;
  for (;;) {
    const block = u8(d, off++);
    if (block === 0x3b) break; // trailer
    if (block === 0x21) {
      const label = u8(d, off++);
      // Graphic Control Extension: size byte 4, then packed fields whose bit 0 is the transparency flag.
      if (label === 0xf9 && u8(d, off) >= 4 && (u8(d, off + 1) & 1) === 1) alpha = true;
      off = skipSubBlocks(d, off);
    } else if (block === 0x2c) {
      const local = u8(d, off + 8);
      off += 9 + (local & 0x80 ? 3 << ((local & 7) + 1) : 0);
      u8(d, off++); // LZW minimum code size
      off = skipSubBlocks(d, off);
      frames++;
    } else fail(`unknown block 0x${block.toString(16)}`);
  }
  if (frames === 0) fail("no image descriptor");
  return { kind: "image", mime: "image/gif", ...positiveDims(width, height), alpha, animated: frames > 1, frames };
}
