/** Ogg (Vorbis, Opus): every page, the last granule position giving the duration. */
import { at, need, u8, u16le, u32le } from "./bytes";
import { type Facts, fail, Unsupported } from "./facts";

export function probeOgg(d: Uint8Array): Facts {
  let codec: { rate: number; channels: number; preSkip: number; opus: boolean } | undefined;
  let serial = -1;
  let lastGranule: number | undefined;
  // Every page, to the end: the last page's granule position gives the duration, and a cut shows.
  for (let off = 0; off < d.length; ) {
    if (!at(d, off, "OggS")) fail("lost page sync");
    if (u8(d, off + 4) !== 0) fail("unknown Ogg version");
    const lo = u32le(d, off + 6);
    const hi = u32le(d, off + 10);
    const pageSerial = u32le(d, off + 14);
    const segments = u8(d, off + 26);
    need(d, off + 27, segments);
    let bodyLength = 0;
    for (let i = 0; i < segments; i++) bodyLength += d[off + 27 + i] as number;
    const body = off + 27 + segments;
    need(d, body, bodyLength);
    if (!codec) {
      serial = pageSerial;
      codec = oggCodec(d, body, bodyLength);
    } else if (pageSerial === serial && hi < 0x80000000) lastGranule = hi * 2 ** 32 + lo; // negative: no packet ends here
    off = body + bodyLength;
  }
  if (!codec) fail("no pages");
  const samples = lastGranule === undefined ? undefined : Math.max(0, lastGranule - codec.preSkip);
  return {
    kind: "audio",
    mime: "audio/ogg",
    ...(samples !== undefined ? { duration_seconds: samples / codec.rate } : {}),
    sample_rate: codec.rate,
    channels: codec.channels,
  };
}

/** The identification header on the first page: Vorbis or Opus; other codecs are not taken. */
function oggCodec(
  d: Uint8Array,
  body: number,
  length: number,
): { rate: number; channels: number; preSkip: number; opus: boolean } {
  if (length >= 30 && u8(d, body) === 1 && at(d, body + 1, "vorbis")) {
    const channels = u8(d, body + 11);
    const rate = u32le(d, body + 12);
    if (!channels || !rate) fail("Vorbis header with zero channels or sample rate");
    return { rate, channels, preSkip: 0, opus: false };
  }
  if (length >= 19 && at(d, body, "OpusHead")) {
    const channels = u8(d, body + 9);
    if (!channels) fail("Opus header with zero channels");
    // Opus always decodes at 48 kHz and counts granules at that rate; the input rate is informational.
    return { rate: 48000, channels, preSkip: u16le(d, body + 10), opus: true };
  }
  throw new Unsupported("Ogg stream whose codec is neither Vorbis nor Opus");
}
