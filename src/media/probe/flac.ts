/** FLAC: the metadata blocks, STREAMINFO first. */
import { need, u8, u16be, u24be, u32be } from "./bytes";
import { type Facts, fail } from "./facts";

export function probeFlac(d: Uint8Array, start: number): Facts {
  let off = start + 4;
  let info: Facts | undefined;
  // Metadata blocks up to the one flagged last; STREAMINFO must come first.
  for (let last = false; !last; ) {
    const type = u8(d, off);
    last = (type & 0x80) !== 0;
    const len = u24be(d, off + 1);
    const body = off + 4;
    need(d, body, len);
    if (!info) {
      if ((type & 0x7f) !== 0 || len < 34) fail("the first metadata block is not STREAMINFO");
      const rate = (u16be(d, body + 10) << 4) | (u8(d, body + 12) >> 4);
      const channels = ((u8(d, body + 12) >> 1) & 7) + 1;
      const bits = (((u8(d, body + 12) & 1) << 4) | (u8(d, body + 13) >> 4)) + 1;
      const samples = (u8(d, body + 13) & 0x0f) * 2 ** 32 + u32be(d, body + 14);
      if (rate === 0) fail("zero sample rate");
      info = {
        kind: "audio",
        mime: "audio/flac",
        // Zero total samples means "unknown" in STREAMINFO.
        ...(samples > 0 ? { duration_seconds: samples / rate } : {}),
        sample_rate: rate,
        channels,
        bits_per_sample: bits,
      };
    }
    off = body + len;
  }
  if (!info) fail("no STREAMINFO");
  return info;
}
