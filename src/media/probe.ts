/**
 * Identifies media by its leading bytes (a declared content type is never trusted) and reads the
 * facts admission needs from the container headers alone: no decoding, one linear pass at most.
 * Every read is bounds-checked, so any input ends either in a result or in an ApiError:
 * unknown magic is `unsupported_media_type`, a known format that is truncated or inconsistent is
 * `invalid_media`.
 */
import { ApiError } from "../errors/api-error";
import { clause } from "../lib/sentence";

export interface ProbedMedia {
  kind: "image" | "video" | "audio";
  /** image/png, image/jpeg, image/webp, image/gif, video/mp4, video/quicktime, video/webm,
   * audio/wav, audio/mpeg, audio/flac, audio/ogg; audio/mp4 and audio/webm for audio-only containers. */
  mime: string;
  bytes: number;
  width?: number;
  height?: number;
  alpha?: boolean;
  animated?: boolean;
  frames?: number;
  duration_seconds?: number;
  has_audio?: boolean;
  sample_rate?: number;
  channels?: number;
  bits_per_sample?: number;
}

type Facts = Omit<ProbedMedia, "bytes">;

/** A known format whose structure does not hold; becomes invalid_media. */
class Malformed extends Error {}
/** A recognised container holding something this service does not take; becomes unsupported_media_type. */
class Unsupported extends Error {}

function fail(why: string): never {
  throw new Malformed(why);
}

// ---------------------------------------------------------------- bounds-checked readers

function need(d: Uint8Array, off: number, len: number): void {
  if (!(off >= 0 && len >= 0 && off + len <= d.length)) fail("truncated");
}
function u8(d: Uint8Array, o: number): number {
  need(d, o, 1);
  return d[o] as number;
}
function u16be(d: Uint8Array, o: number): number {
  need(d, o, 2);
  return ((d[o] as number) << 8) | (d[o + 1] as number);
}
function u16le(d: Uint8Array, o: number): number {
  need(d, o, 2);
  return (d[o] as number) | ((d[o + 1] as number) << 8);
}
function u24le(d: Uint8Array, o: number): number {
  need(d, o, 3);
  return (d[o] as number) | ((d[o + 1] as number) << 8) | ((d[o + 2] as number) << 16);
}
function u24be(d: Uint8Array, o: number): number {
  need(d, o, 3);
  return ((d[o] as number) << 16) | ((d[o + 1] as number) << 8) | (d[o + 2] as number);
}

function u32be(d: Uint8Array, o: number): number {
  need(d, o, 4);
  return (((d[o] as number) << 24) | ((d[o + 1] as number) << 16) | ((d[o + 2] as number) << 8) | (d[o + 3] as number)) >>> 0;
}
function u32le(d: Uint8Array, o: number): number {
  need(d, o, 4);
  return (((d[o + 3] as number) << 24) | ((d[o + 2] as number) << 16) | ((d[o + 1] as number) << 8) | (d[o] as number)) >>> 0;
}
/** 64-bit values as numbers: exact below 2^53, which covers every real size and duration. */
function u64be(d: Uint8Array, o: number): number {
  return u32be(d, o) * 2 ** 32 + u32be(d, o + 4);
}
function ascii(d: Uint8Array, o: number, n: number): string {
  need(d, o, n);
  return String.fromCharCode(...d.subarray(o, o + n));
}
/** Whether `text` is at `o`; false (not a throw) past the end, for identification. */
function at(d: Uint8Array, o: number, text: string): boolean {
  if (o + text.length > d.length) return false;
  for (let i = 0; i < text.length; i++) if (d[o + i] !== text.charCodeAt(i)) return false;
  return true;
}

function positiveDims(width: number, height: number): { width: number; height: number } {
  if (!(width > 0 && height > 0)) fail("zero width or height");
  return { width, height };
}

// ---------------------------------------------------------------- images

const PNG_SIGNATURE = "\x89PNG\r\n\x1a\n";

function probePng(d: Uint8Array): Facts {
  let off = 8;
  let width = 0;
  let height = 0;
  let colourType = -1;
  let trns = false;
  let actlFrames: number | undefined;
  let sawIdat = false;
  // Walk every chunk to IEND: a cut anywhere shows as a chunk running past the end.
  for (let index = 0; ; index++) {
    const len = u32be(d, off);
    const type = ascii(d, off + 4, 4);
    if (len > 0x7fffffff) fail(`chunk ${type} has an impossible length`);
    const body = off + 8;
    need(d, body, len + 4);
    if (index === 0) {
      if (type !== "IHDR" || len < 13) fail("the first chunk is not IHDR");
      width = u32be(d, body);
      height = u32be(d, body + 4);
      colourType = u8(d, body + 9);
    } else if (type === "IHDR") fail("more than one IHDR");
    else if (type === "tRNS") trns = true;
    // acTL only counts before the image data, where APNG requires it.
    else if (type === "acTL" && !sawIdat && len >= 8) actlFrames = u32be(d, body);
    else if (type === "IDAT") sawIdat = true;
    else if (type === "IEND") break;
    off = body + len + 4;
  }
  if (!sawIdat) fail("no image data (IDAT)");
  if (![0, 2, 3, 4, 6].includes(colourType)) fail(`unknown colour type ${colourType}`);
  if (actlFrames === 0) fail("acTL declares zero frames");
  return {
    kind: "image",
    mime: "image/png",
    ...positiveDims(width, height),
    alpha: colourType === 4 || colourType === 6 || trns,
    animated: actlFrames !== undefined,
    frames: actlFrames ?? 1,
  };
}

/** SOF markers that carry frame dimensions (not DHT C4, JPG C8 or DAC CC). */
function isSof(m: number): boolean {
  return m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;
}

function probeJpeg(d: Uint8Array): Facts {
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

function probeWebp(d: Uint8Array): Facts {
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

/** Skips a run of GIF data sub-blocks (length byte, data) up to the zero terminator. */
function skipSubBlocks(d: Uint8Array, off: number): number {
  for (;;) {
    const n = u8(d, off);
    off += 1 + n;
    if (n === 0) return off;
  }
}

function probeGif(d: Uint8Array): Facts {
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

// ---------------------------------------------------------------- ISO BMFF (MP4, MOV)

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
const LEGACY_QT_FIRST_BOXES = ["moov", "mdat", "wide", "free", "skip", "pnot"];

function probeIsoBmff(d: Uint8Array): Facts {
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

// ---------------------------------------------------------------- WebM (EBML)

interface Vint {
  value: number;
  length: number;
  unknown: boolean;
}

/** An EBML variable-length integer; IDs keep their length marker, sizes drop it. */
function vint(d: Uint8Array, off: number, keepMarker: boolean): Vint {
  const first = u8(d, off);
  if (first === 0) fail("invalid EBML length");
  const length = Math.clz32(first) - 23;
  const mask = 0xff >> length;
  let value = keepMarker ? first : first & mask;
  let unknown = (first & mask) === mask;
  for (let i = 1; i < length; i++) {
    const b = u8(d, off + i);
    value = value * 256 + b;
    unknown &&= b === 0xff;
  }
  return { value, length, unknown };
}

interface Element {
  id: number;
  start: number;
  end: number;
  unknownSize: boolean;
}

function element(d: Uint8Array, off: number, parentEnd: number): Element {
  const id = vint(d, off, true);
  const size = vint(d, off + id.length, false);
  const start = off + id.length + size.length;
  const end = size.unknown ? parentEnd : start + size.value;
  if (start > parentEnd || end > parentEnd) fail("EBML element runs past its parent");
  return { id: id.value, start, end, unknownSize: size.unknown };
}

function ebmlUint(d: Uint8Array, e: Element): number {
  let v = 0;
  for (let i = e.start; i < e.end; i++) v = v * 256 + u8(d, i);
  return v;
}

const EBML = {
  header: 0x1a45dfa3,
  docType: 0x4282,
  segment: 0x18538067,
  info: 0x1549a966,
  tracks: 0x1654ae6b,
  cluster: 0x1f43b675,
};

function probeWebm(d: Uint8Array): Facts {
  const header = element(d, 0, d.length);
  let docType = "";
  for (let off = header.start; off < header.end; ) {
    const e = element(d, off, header.end);
    if (e.id === EBML.docType) {
      if (e.end - e.start > 64) fail("DocType too long");
      docType = ascii(d, e.start, e.end - e.start).replace(/\0+$/, "");
    }
    off = e.end;
  }
  if (docType !== "webm") throw new Unsupported(`EBML document type '${docType}' is not webm`);
  const segment = element(d, header.end, d.length);
  if (segment.id !== EBML.segment) fail("no Segment after the EBML header");
  const facts: { seconds?: number; width?: number; height?: number; video: boolean; audio: boolean; tracks: boolean } = {
    video: false,
    audio: false,
    tracks: false,
  };
  // The rest is best effort: Info and Tracks precede the clusters in practice; stop at the first cluster.
  try {
    for (let off = segment.start; off < segment.end; ) {
      const e = element(d, off, segment.end);
      if (e.id === EBML.cluster || e.unknownSize) break;
      if (e.id === EBML.info) readWebmInfo(d, e, facts);
      else if (e.id === EBML.tracks) readWebmTracks(d, e, facts);
      off = e.end;
    }
  } catch (e) {
    if (!(e instanceof Malformed)) throw e;
  }
  const duration = facts.seconds !== undefined && facts.seconds > 0 ? { duration_seconds: facts.seconds } : {};
  if (facts.tracks && !facts.video && facts.audio) return { kind: "audio", mime: "audio/webm", ...duration };
  return {
    kind: "video",
    mime: "video/webm",
    ...(facts.width && facts.height ? { width: facts.width, height: facts.height } : {}),
    ...duration,
    ...(facts.tracks ? { has_audio: facts.audio } : {}),
  };
}

function readWebmInfo(d: Uint8Array, info: Element, facts: { seconds?: number }): void {
  let scale = 1_000_000; // TimestampScale default: durations count milliseconds
  let duration: number | undefined;
  for (let off = info.start; off < info.end; ) {
    const e = element(d, off, info.end);
    if (e.id === 0x2ad7b1) scale = ebmlUint(d, e);
    else if (e.id === 0x4489 && (e.end - e.start === 4 || e.end - e.start === 8)) {
      const view = new DataView(d.buffer, d.byteOffset + e.start, e.end - e.start);
      duration = e.end - e.start === 4 ? view.getFloat32(0) : view.getFloat64(0);
    }
    off = e.end;
  }
  if (duration !== undefined && Number.isFinite(duration)) facts.seconds = (duration * scale) / 1e9;
}

function readWebmTracks(
  d: Uint8Array,
  tracks: Element,
  facts: { width?: number; height?: number; video: boolean; audio: boolean; tracks: boolean },
): void {
  facts.tracks = true;
  for (let off = tracks.start; off < tracks.end; ) {
    const entry = element(d, off, tracks.end);
    off = entry.end;
    if (entry.id !== 0xae) continue;
    let type = 0;
    let width = 0;
    let height = 0;
    for (let o = entry.start; o < entry.end; ) {
      const e = element(d, o, entry.end);
      if (e.id === 0x83) type = ebmlUint(d, e);
      else if (e.id === 0xe0) {
        for (let v = e.start; v < e.end; ) {
          const p = element(d, v, e.end);
          if (p.id === 0xb0) width = ebmlUint(d, p);
          else if (p.id === 0xba) height = ebmlUint(d, p);
          v = p.end;
        }
      }
      o = e.end;
    }
    if (type === 1 && !facts.video) {
      facts.video = true;
      facts.width = width;
      facts.height = height;
    } else if (type === 2) facts.audio = true;
  }
}

// ---------------------------------------------------------------- audio

function probeWav(d: Uint8Array): Facts {
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

/**
 * ID3v2 tags: 10-byte header, syncsafe size, optional 10-byte footer. Some taggers prepend a new
 * tag without removing the old one, so every consecutive tag is skipped. Returns the offset after them.
 */
function skipId3v2(d: Uint8Array): number {
  let off = 0;
  while (at(d, off, "ID3")) {
    need(d, off, 10);
    let size = 0;
    for (let i = 6; i < 10; i++) {
      const b = d[off + i] as number;
      if (b & 0x80) fail("ID3v2 size is not syncsafe");
      size = size * 128 + b;
    }
    const end = off + 10 + size + ((d[off + 5] as number) & 0x10 ? 10 : 0);
    if (end > d.length) fail("ID3v2 tag runs past the end");
    off = end;
  }
  return off;
}

// Kilobits per second by [MPEG-1 ? 0 : 1][layer 1..3][index]; index 0 (free) and 15 are refused.
const MP3_BITRATES = [
  [
    [],
    [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  ],
  [
    [],
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  ],
] as const;
const MP3_RATES: Record<number, readonly number[]> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
};

/** The length in bytes of the MPEG audio frame whose 32-bit header is `h`; 0 when the header is not valid. */
export function mpegFrameLength(h: number): number {
  if (h >>> 21 !== 0x7ff) return 0;
  const version = (h >>> 19) & 3;
  const layer = 4 - ((h >>> 17) & 3);
  if (version === 1 || layer === 4) return 0;
  const bitrate = MP3_BITRATES[version === 3 ? 0 : 1][layer]?.[(h >>> 12) & 15] ?? 0;
  const rate = MP3_RATES[version]?.[(h >>> 10) & 3];
  if (!bitrate || !rate) return 0;
  const padding = (h >>> 9) & 1;
  const samplesPerFrame = layer === 1 ? 384 : layer === 3 && version !== 3 ? 576 : 1152;
  return layer === 1
    ? (Math.floor((12 * bitrate * 1000) / rate) + padding) * 4
    : Math.floor(((samplesPerFrame / 8) * bitrate * 1000) / rate) + padding;
}

function isMpegSync(d: Uint8Array, o: number): boolean {
  // 11 sync bits, a version other than reserved (01) and a layer other than reserved (00).
  if (o + 1 >= d.length || d[o] !== 0xff) return false;
  const b = d[o + 1] as number;
  return (b & 0xe0) === 0xe0 && (b & 0x18) !== 0x08 && (b & 0x06) !== 0;
}

/** How far past the tags the first frame may be: decoders skip junk (padding, stray tag bytes) before it. */
const MP3_SYNC_SEARCH_BYTES = 64 * 1024;

/**
 * The offset of the first MPEG audio frame at or after `start`: a sync whose frame is followed by
 * another frame header (or ends the file), so a stray FF Ex byte pair in junk is not taken for one.
 */
function firstMpegFrame(d: Uint8Array, start: number): number {
  const limit = Math.min(d.length, start + MP3_SYNC_SEARCH_BYTES);
  for (let off = start; off < limit; off++) {
    if (d[off] !== 0xff || !isMpegSync(d, off) || off + 4 > d.length) continue;
    const len = mpegFrameLength(u32be(d, off));
    if (len === 0) continue;
    const next = off + len;
    if (next >= d.length || next + 4 > d.length || mpegFrameLength(u32be(d, next)) > 0) return off;
    if (d.length - next < 128 && (at(d, next, "TAG") || at(d, next, "APETAGEX"))) return off;
  }
  fail("no MPEG audio frame after the tag");
}

/** The offset of an MP3's first audio frame, past its ID3v2 tags and any junk; undefined when there is none. */
export function mpegAudioStart(d: Uint8Array): number | undefined {
  try {
    return firstMpegFrame(d, skipId3v2(d));
  } catch (e) {
    if (e instanceof Malformed) return undefined;
    throw e;
  }
}

/** Where the audio ends: before an ID3v1 tag or an APEv2 tag (footer) at the end of the file. */
function mpegAudioEnd(d: Uint8Array, from: number): number {
  let end = d.length;
  if (end - 128 >= from && at(d, end - 128, "TAG")) end -= 128;
  if (end - 32 >= from && at(d, end - 32, "APETAGEX")) {
    const size = u32le(d, end - 32 + 12); // tag size including the footer, excluding any header
    const header = (u32le(d, end - 32 + 20) & 0x80000000) !== 0 ? 32 : 0;
    if (size >= 32 && end - size - header >= from) end -= size + header;
  }
  return end;
}

/**
 * Counts whole frames by following their lengths from `first`; where the chain breaks (junk, a
 * cut last frame) the remaining bytes are timed at the average bitrate of the frames counted.
 */
function walkMpegFrames(d: Uint8Array, first: number, end: number, samplesPerFrame: number, rate: number): number {
  let frames = 0;
  let off = first;
  while (off + 4 <= end) {
    const len = mpegFrameLength(u32be(d, off));
    if (len === 0 || off + len > end) break;
    frames++;
    off += len;
  }
  const seconds = (frames * samplesPerFrame) / rate;
  const rest = end - off;
  return frames > 0 && rest > 0 ? seconds + (rest * seconds) / (off - first) : seconds;
}

function probeMp3(d: Uint8Array, start: number): Facts {
  const off = firstMpegFrame(d, start);
  const h = u32be(d, off);
  const version = (h >>> 19) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
  const layer = 4 - ((h >>> 17) & 3); // 1..3
  const rate = MP3_RATES[version]?.[(h >>> 10) & 3] as number;
  const mono = ((h >>> 6) & 3) === 3;
  const samplesPerFrame = layer === 1 ? 384 : layer === 3 && version !== 3 ? 576 : 1152;
  need(d, off, mpegFrameLength(h));
  const frames = vbrFrameCount(d, off, version, mono, (h & 0x10000) === 0);
  // A Xing/Info or VBRI header gives the frame count; without one, count the frames themselves
  // (a first frame's bitrate says nothing of a variable-bitrate file's length).
  const seconds =
    frames !== undefined
      ? (frames * samplesPerFrame) / rate
      : walkMpegFrames(d, off, mpegAudioEnd(d, off), samplesPerFrame, rate);
  return { kind: "audio", mime: "audio/mpeg", duration_seconds: seconds, sample_rate: rate, channels: mono ? 1 : 2 };
}

/** The frame count of a Xing/Info header (after the side information) or a VBRI header (at 32 + 4). */
function vbrFrameCount(d: Uint8Array, frame: number, version: number, mono: boolean, crc: boolean): number | undefined {
  const side = version === 3 ? (mono ? 17 : 32) : mono ? 9 : 17;
  // Writers disagree on whether the CRC shifts the Xing header; look at both places.
  for (const o of crc ? [frame + 4 + side, frame + 6 + side] : [frame + 4 + side]) {
    if ((at(d, o, "Xing") || at(d, o, "Info")) && o + 12 <= d.length && (u32be(d, o + 4) & 1) === 1) return u32be(d, o + 8);
  }
  if (at(d, frame + 36, "VBRI") && frame + 54 <= d.length) return u32be(d, frame + 36 + 14);
  return undefined;
}

function probeFlac(d: Uint8Array, start: number): Facts {
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

function probeOgg(d: Uint8Array): Facts {
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

// ---------------------------------------------------------------- identification

interface Format {
  name: string;
  probe: (d: Uint8Array) => Facts;
}

function identify(d: Uint8Array): Format | undefined {
  if (at(d, 0, PNG_SIGNATURE)) return { name: "PNG", probe: probePng };
  if (d[0] === 0xff && d[1] === 0xd8 && d[2] === 0xff) return { name: "JPEG", probe: probeJpeg };
  if (at(d, 0, "GIF87a") || at(d, 0, "GIF89a")) return { name: "GIF", probe: probeGif };
  if (at(d, 0, "RIFF") && at(d, 8, "WEBP")) return { name: "WebP", probe: probeWebp };
  if (at(d, 0, "RIFF") && at(d, 8, "WAVE")) return { name: "WAV", probe: probeWav };
  if (at(d, 4, "ftyp") || LEGACY_QT_FIRST_BOXES.some((t) => at(d, 4, t))) return { name: "MP4/MOV", probe: probeIsoBmff };
  if (d[0] === 0x1a && d[1] === 0x45 && d[2] === 0xdf && d[3] === 0xa3) return { name: "WebM", probe: probeWebm };
  if (at(d, 0, "fLaC")) return { name: "FLAC", probe: (x) => probeFlac(x, 0) };
  if (at(d, 0, "OggS")) return { name: "Ogg", probe: probeOgg };
  // An ID3v2 tag fronts MP3 and, now and then, FLAC.
  if (at(d, 0, "ID3"))
    return {
      name: "MP3",
      probe: (x) => {
        const end = skipId3v2(x);
        return at(x, end, "fLaC") ? probeFlac(x, end) : probeMp3(x, end);
      },
    };
  if (isMpegSync(d, 0)) return { name: "MP3", probe: (x) => probeMp3(x, 0) };
  return undefined;
}

const KIND_OF_FORMAT: Record<string, ProbedMedia["kind"]> = {
  PNG: "image",
  JPEG: "image",
  GIF: "image",
  WebP: "image",
  WAV: "audio",
  FLAC: "audio",
  Ogg: "audio",
  MP3: "audio",
  "MP4/MOV": "video",
  WebM: "video",
};

/**
 * The kind that a file's leading bytes announce, before the whole file is read (to choose a size
 * cap early); `undefined` for no format of this service. MP4, MOV and WebM announce video: the
 * full probe may still find only audio in them.
 */
export function kindOfLeadingBytes(head: Uint8Array): ProbedMedia["kind"] | undefined {
  const format = identify(head);
  return format ? KIND_OF_FORMAT[format.name] : undefined;
}

/** Identifies and probes `data`; errors carry `param` (the JSON Pointer of the input). */
export function probeMedia(data: Uint8Array, param: string): ProbedMedia {
  const format = identify(data);
  if (!format) {
    throw new ApiError(
      "unsupported_media_type",
      "The media is not a supported image (PNG, JPEG, WebP, GIF), video (MP4, MOV, WebM) or audio (WAV, MP3, FLAC, Ogg) format.",
      { param },
    );
  }
  let facts: Facts;
  try {
    facts = format.probe(data);
  } catch (e) {
    if (e instanceof Unsupported)
      throw new ApiError("unsupported_media_type", `Unsupported media: ${clause(e.message)}.`, { param });
    // Anything else a parser could raise on hostile bytes is still malformed media, never a 500.
    const why = e instanceof Malformed ? e.message : "could not be parsed";
    throw new ApiError("invalid_media", `The ${format.name} media is malformed: ${why}.`, { param });
  }
  const { kind, mime, ...rest } = facts;
  return { kind, mime, bytes: data.length, ...rest };
}
