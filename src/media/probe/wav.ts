/** WAV: the RIFF chunks up to the audio data. */
import { ascii, need, u16le, u32le } from "./bytes";
import { type Facts, fail } from "./facts";

export function probeWav(d: Uint8Array): Facts {
  let fmt: { channels: number; rate: number; byteRate: number; bits: number } | undefined;
  for (let off = 12; ; ) {
    const id = ascii(d, off, 4);
    let size = u32le(d, off + 4);
    const body = off + 8;
    if (id === "fmt ") {
      if (size < 16) fail("short fmt chunk");
      need(d, body, 16);
      fmt = { channels: u16le(d, body + 2), rate: u32le(d, body + 4), byteRate: u32le(d, body + 8), bits: u16le(d, body + 14) };
      if (!fmt.channels || !fmt.rate || !fmt.byteRate) fail("fmt chunk with zero channels, sample rate or byte rate");
    } else if (id === "data") {
      if (!fmt) fail("data chunk before fmt");
      // Streaming writers leave the size at its maximum, and a cut file ends early: either way the
      // audio is what is there, in whole sample frames, as decoders play it.
      const frame = fmt.channels * Math.ceil(fmt.bits / 8);
      if (size > d.length - body) size = d.length - body - ((d.length - body) % (frame || 1));
      if (size <= 0) fail("no audio data");
      return {
        kind: "audio",
        mime: "audio/wav",
        duration_seconds: size / fmt.byteRate,
        sample_rate: fmt.rate,
        channels: fmt.channels,
        bits_per_sample: fmt.bits,
      };
    }
    need(d, body, size);
    off = body + size + (size & 1);
  }
}
