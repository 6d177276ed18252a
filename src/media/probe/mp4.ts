/** ISO BMFF (MP4, MOV): boxes, tracks and durations, fragmented files included. */
import { ascii, need, positiveDims, u8, u16be, u32be, u64be } from "./bytes";
import { type Facts, fail } from "./facts";

interface Box {
  type: string;
  /** Payload start and end. */
  start: number;
  end: number;
}

function* boxes(d: Uint8Array, start: number, end: number): Generator<Box> {
  let off = start;
  // Fewer than 8 bytes cannot hold a box header; some writers leave such padding at the end.
  while (end - off >= 8) {
    let size = u32be(d, off);
    const type = ascii(d, off + 4, 4);
    let header = 8;
    if (size === 1) {
      size = u64be(d, off + 8);
      header = 16;
    } else if (size === 0) size = end - off; // extends to the end of its parent
    if (size < header || off + size > end) fail(`box '${type}' runs past its parent`);
    yield { type, start: off + header, end: off + size };
    off += size;
  }
}

function child(d: Uint8Array, parent: Box, type: string): Box | undefined {
  for (const b of boxes(d, parent.start, parent.end)) if (b.type === type) return b;
  return undefined;
}

/** Timescale and duration of an mvhd or mdhd box (version 0: 32-bit times, version 1: 64-bit). */
function timing(d: Uint8Array, box: Box): { timescale: number; seconds: number | undefined } {
  const v1 = u8(d, box.start) === 1;
  const timescale = u32be(d, box.start + (v1 ? 20 : 12));
  const hi = v1 ? u32be(d, box.start + 24) : 0;
  const lo = u32be(d, box.start + (v1 ? 28 : 16));
  if (timescale === 0) fail(`'${box.type}' has a zero timescale`);
  const unknown = lo === 0xffffffff && (!v1 || hi === 0xffffffff);
  const duration = hi * 2 ** 32 + lo;
  return { timescale, seconds: unknown || duration === 0 ? undefined : duration / timescale };
}

interface Track {
  id: number;
  handler: string;
  width: number;
  height: number;
  timescale: number;
  seconds: number | undefined;
}

function readTrack(d: Uint8Array, trak: Box): Track {
  const tkhd = child(d, trak, "tkhd");
  const mdia = child(d, trak, "mdia");
  if (!tkhd || !mdia) fail("track without tkhd or mdia");
  const v1 = u8(d, tkhd.start) === 1;
  const id = u32be(d, tkhd.start + (v1 ? 20 : 12));
  // 16.16 fixed point, after the times, ids, layer, volume and the 3x3 matrix.
  const dimsAt = tkhd.start + (v1 ? 88 : 76);
  let width = Math.round(u32be(d, dimsAt) / 65536);
  let height = Math.round(u32be(d, dimsAt + 4) / 65536);
  const mdhd = child(d, mdia, "mdhd");
  const hdlr = child(d, mdia, "hdlr");
  if (!mdhd || !hdlr) fail("track without mdhd or hdlr");
  const handler = ascii(d, hdlr.start + 8, 4);
  if (handler === "vide" && (width === 0 || height === 0)) ({ width, height } = sampleEntryDims(d, mdia));
  return { id, handler, width, height, ...timing(d, mdhd) };
}

/** Some writers leave tkhd sizes at zero; the visual sample entry in stsd still has them. */
function sampleEntryDims(d: Uint8Array, mdia: Box): { width: number; height: number } {
  const minf = child(d, mdia, "minf");
  const stbl = minf && child(d, minf, "stbl");
  const stsd = stbl && child(d, stbl, "stsd");
  if (!stsd) return { width: 0, height: 0 };
  for (const entry of boxes(d, stsd.start + 8, stsd.end))
    return { width: u16be(d, entry.start + 24), height: u16be(d, entry.start + 26) };
  return { width: 0, height: 0 };
}

/**
 * Fragmented files leave mvhd and mdhd durations at zero: take mehd's fragment duration, else
 * add up the sample durations of every track fragment (trun, or tfhd/trex defaults).
 */
function fragmentedSeconds(d: Uint8Array, moov: Box, moofs: Box[], movieTimescale: number, tracks: Track[]): number | undefined {
  const mvex = child(d, moov, "mvex");
  const defaults = new Map<number, number>();
  if (mvex) {
    for (const b of boxes(d, mvex.start, mvex.end)) {
      if (b.type === "mehd") {
        const ticks = u8(d, b.start) === 1 ? u64be(d, b.start + 4) : u32be(d, b.start + 4);
        if (ticks > 0) return ticks / movieTimescale;
      } else if (b.type === "trex") defaults.set(u32be(d, b.start + 4), u32be(d, b.start + 12));
    }
  }
  const ticks = new Map<number, number>();
  for (const moof of moofs) {
    for (const traf of boxes(d, moof.start, moof.end)) {
      if (traf.type !== "traf") continue;
      const tfhd = child(d, traf, "tfhd");
      if (!tfhd) fail("track fragment without tfhd");
      const flags = u32be(d, tfhd.start) & 0xffffff;
      const trackId = u32be(d, tfhd.start + 4);
      // Optional fields in order: base data offset (8), sample description index (4), default duration (4).
      const defaultAt = tfhd.start + 8 + (flags & 0x1 ? 8 : 0) + (flags & 0x2 ? 4 : 0);
      const fallback = flags & 0x8 ? u32be(d, defaultAt) : (defaults.get(trackId) ?? 0);
      let total = ticks.get(trackId) ?? 0;
      for (const trun of boxes(d, traf.start, traf.end)) {
        if (trun.type !== "trun") continue;
        const trunFlags = u32be(d, trun.start) & 0xffffff;
        const count = u32be(d, trun.start + 4);
        if (!(trunFlags & 0x100)) {
          total += count * fallback;
          continue;
        }
        const stride = 4 * [0x100, 0x200, 0x400, 0x800].filter((f) => trunFlags & f).length;
        let at = trun.start + 8 + (trunFlags & 0x1 ? 4 : 0) + (trunFlags & 0x4 ? 4 : 0);
        need(d, at, count * stride);
        for (let i = 0; i < count; i++, at += stride) total += u32be(d, at);
      }
      ticks.set(trackId, total);
    }
  }
  let longest = 0;
  for (const t of tracks) longest = Math.max(longest, (ticks.get(t.id) ?? 0) / t.timescale);
  return longest > 0 ? longest : undefined;
}

/** QuickTime files from before ftyp existed start with one of these boxes. */
export const LEGACY_QT_FIRST_BOXES = ["moov", "mdat", "wide", "free", "skip", "pnot"];

export function probeIsoBmff(d: Uint8Array): Facts {
  let major: string | undefined;
  let moov: Box | undefined;
  const moofs: Box[] = [];
  for (const b of boxes(d, 0, d.length)) {
    if (b.type === "ftyp" && major === undefined) major = ascii(d, b.start, 4);
    else if (b.type === "moov" && !moov) moov = b;
    else if (b.type === "moof") moofs.push(b);
  }
  if (!moov) fail("no movie box (moov)");
  const mvhd = child(d, moov, "mvhd");
  if (!mvhd) fail("no movie header (mvhd)");
  const tracks: Track[] = [];
  for (const b of boxes(d, moov.start, moov.end)) if (b.type === "trak") tracks.push(readTrack(d, b));
  const video = tracks.find((t) => t.handler === "vide");
  const hasAudio = tracks.some((t) => t.handler === "soun");
  const movie = timing(d, mvhd);
  // A zero or "unknown" movie duration: the longest track, then the fragments.
  const longestTrack = Math.max(0, ...tracks.map((t) => t.seconds ?? 0));
  const seconds = movie.seconds ?? (longestTrack || fragmentedSeconds(d, moov, moofs, movie.timescale, tracks));
  const duration = seconds !== undefined ? { duration_seconds: seconds } : {};
  if (!video) {
    if (!hasAudio) fail("no video or audio track");
    return { kind: "audio", mime: "audio/mp4", ...duration };
  }
  const mov = major === undefined || major === "qt  ";
  return {
    kind: "video",
    mime: mov ? "video/quicktime" : "video/mp4",
    ...positiveDims(video.width, video.height),
    ...duration,
    has_audio: hasAudio,
  };
}
