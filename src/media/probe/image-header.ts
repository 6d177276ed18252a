import { at, u8, u16be, u16le, u24le, u32be, u32le } from "./bytes";
import { Malformed } from "./facts";
import { isSof } from "./jpeg";
import { PNG_SIGNATURE } from "./png";

/**
 * An image's width and height from its header alone (PNG IHDR, GIF screen, WebP first chunk, JPEG
 * frame header), within `head`: no chunk, frame or scan is walked. Undefined when the header is not
 * within these bytes or is not one of these formats; the full probe decides what the file is.
 */
export function imageSizeFromHeader(head: Uint8Array): { width: number; height: number } | undefined {
  try {
    if (at(head, 0, PNG_SIGNATURE) && at(head, 12, "IHDR")) return { width: u32be(head, 16), height: u32be(head, 20) };
    if (at(head, 0, "GIF87a") || at(head, 0, "GIF89a")) return { width: u16le(head, 6), height: u16le(head, 8) };
    if (at(head, 0, "RIFF") && at(head, 8, "WEBP")) {
      if (at(head, 12, "VP8X")) return { width: u24le(head, 24) + 1, height: u24le(head, 27) + 1 };
      if (at(head, 12, "VP8L")) {
        const bits = u32le(head, 21);
        return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
      }
      if (at(head, 12, "VP8 ")) return { width: u16le(head, 26) & 0x3fff, height: u16le(head, 28) & 0x3fff };
      return undefined;
    }
    if (head[0] === 0xff && head[1] === 0xd8) {
      // Marker segments up to the frame header; EXIF and other APPn segments come first.
      for (let off = 2; u8(head, off) === 0xff; ) {
        const m = u8(head, off + 1);
        if (m === 0xff) {
          off++;
          continue;
        }
        if (m === 0xda || m === 0xd9) return undefined;
        if ((m >= 0xd0 && m <= 0xd7) || m === 0x01) {
          off += 2;
          continue;
        }
        if (isSof(m)) return { width: u16be(head, off + 7), height: u16be(head, off + 5) };
        off += 2 + u16be(head, off + 2);
      }
    }
  } catch (e) {
    if (!(e instanceof Malformed)) throw e;
  }
  return undefined;
}
