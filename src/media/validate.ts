/**
 * Structural validation of an input at admission, after the probe has identified it: what a
 * decoder needs must be there and be consistent, so a file whose header lies is refused with
 * `422 invalid_media` before anything is reserved, rather than failing at the provider later.
 *
 * - PNG: every chunk's CRC, and the image data inflates to exactly what IHDR declares
 *   (interlacing included), counted as it streams within a byte budget, never held whole.
 * - JPEG: a frame header, Huffman tables where the coding needs them, and a scan.
 * - MP4/MOV: media data (mdat, or fragments) and, unfragmented, sample tables for every track.
 * - WAV: audio data in whole sample frames; MP3: two consecutive frames.
 * The probe (src/media/probe/) has already walked every container to its end.
 */
import { ApiError } from "../errors/api-error";
import { clause } from "../errors/sentence";
import { crc32 } from "./png";
import { mpegAudioStart, mpegFrameLength, type ProbedMedia } from "./probe";

/** The most image data inflated to check one PNG (an 8192×8192 RGBA image is 268 MB). */
const MAX_INFLATED_BYTES = 300 * 1024 * 1024;

class Invalid extends Error {}

const u32 = (d: Uint8Array, o: number) =>
  (((d[o] as number) << 24) | ((d[o + 1] as number) << 16) | ((d[o + 2] as number) << 8) | (d[o + 3] as number)) >>> 0;
const text = (d: Uint8Array, o: number, n: number) => String.fromCharCode(...d.subarray(o, o + n));

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Adam7: per pass, [x start, y start, x step, y step]. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** Bytes the filtered image data of IHDR's image must inflate to. */
export function pngRawSize(width: number, height: number, depth: number, colourType: number, interlaced: boolean): number {
  const bitsPerPixel = depth * (CHANNELS[colourType] ?? 0);
  const rowBytes = (w: number) => Math.ceil((w * bitsPerPixel) / 8);
  if (!interlaced) return height * (1 + rowBytes(width));
  let total = 0;
  for (const [x0, y0, dx, dy] of ADAM7) {
    const w = Math.ceil((width - x0) / dx);
    const h = Math.ceil((height - y0) / dy);
    if (w > 0 && h > 0) total += h * (1 + rowBytes(w));
  }
  return total;
}

async function validatePng(d: Uint8Array): Promise<void> {
  const idat: Uint8Array[] = [];
  let ihdr: { width: number; height: number; depth: number; colour: number; interlaced: boolean } | undefined;
  let inDefaultImage = false;
  for (let off = 8; off + 12 <= d.length; ) {
    const len = u32(d, off);
    const type = text(d, off + 4, 4);
    const end = off + 8 + len;
    if (crc32([d.subarray(off + 4, end)]) !== u32(d, end)) throw new Invalid(`the CRC of chunk ${type} does not match`);
    if (type === "IHDR") {
      ihdr = {
        width: u32(d, off + 8),
        height: u32(d, off + 12),
        depth: d[off + 16] as number,
        colour: d[off + 17] as number,
        interlaced: d[off + 20] === 1,
      };
    } else if (type === "IDAT") {
      // The image data is one run of consecutive IDAT chunks.
      if (idat.length > 0 && !inDefaultImage) throw new Invalid("IDAT chunks are not consecutive");
      idat.push(d.subarray(off + 8, end));
      inDefaultImage = true;
    } else {
      inDefaultImage = false;
      if (type === "IEND") break;
    }
    off = end + 4;
  }
  if (!ihdr) throw new Invalid("no IHDR");
  const valid: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
  if (!valid[ihdr.colour]?.includes(ihdr.depth))
    throw new Invalid(`bit depth ${ihdr.depth} is not valid for colour type ${ihdr.colour}`);
  const expected = pngRawSize(ihdr.width, ihdr.height, ihdr.depth, ihdr.colour, ihdr.interlaced);
  if (expected > MAX_INFLATED_BYTES)
    throw new Invalid(`the image would inflate to ${expected} bytes, over the ${MAX_INFLATED_BYTES} checked`);
  const got = await inflatedLength(idat, expected);
  if (got !== expected) {
    throw new Invalid(
      got > expected
        ? `the image data inflates to more than the ${expected} bytes IHDR declares`
        : `the image data inflates to ${got} bytes; IHDR (${ihdr.width}×${ihdr.height}) needs ${expected}`,
    );
  }
}

/** Streams the zlib data through the runtime's inflater, counting, and stops once past `expected`. */
async function inflatedLength(parts: Uint8Array[], expected: number): Promise<number> {
  const stream = new DecompressionStream("deflate");
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const feeding = (async () => {
    for (const p of parts) await writer.write(p);
    await writer.close();
  })();
  feeding.catch(() => undefined);
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > expected) {
        await reader.cancel().catch(() => undefined);
        await writer.abort().catch(() => undefined);
        return total;
      }
    }
    await feeding;
  } catch {
    throw new Invalid("the image data is not a valid zlib stream");
  }
  return total;
}

function validateJpeg(d: Uint8Array): void {
  let sof: number | undefined;
  let dht = false;
  let sos = false;
  for (let off = 2; off + 4 <= d.length; ) {
    if (d[off] !== 0xff) break;
    const m = d[off + 1] as number;
    if (m === 0xff) {
      off++;
      continue;
    }
    if (m === 0xd9) break;
    if ((m >= 0xd0 && m <= 0xd7) || m === 0x01) {
      off += 2;
      continue;
    }
    const len = ((d[off + 2] as number) << 8) | (d[off + 3] as number);
    if (m === 0xc4) dht = true;
    else if (m >= 0xc0 && m <= 0xcf && m !== 0xc8 && m !== 0xcc) sof ??= m;
    if (m === 0xda) {
      sos = true;
      break; // the probe has already walked the scans to EOI
    }
    off += 2 + len;
  }
  if (sof === undefined) throw new Invalid("no frame header (SOF)");
  if (!sos) throw new Invalid("no scan (SOS)");
  // Huffman-coded frames (SOF0-3, 5-7) need tables; arithmetic coding (SOF9+) does not.
  if (sof <= 0xc7 && !dht) throw new Invalid("no Huffman tables (DHT) for a Huffman-coded frame");
}

function* isoBoxes(d: Uint8Array, start: number, end: number): Generator<{ type: string; body: number; end: number }> {
  for (let off = start; off + 8 <= end; ) {
    let size = u32(d, off);
    let header = 8;
    if (size === 1) {
      size = u32(d, off + 8) * 2 ** 32 + u32(d, off + 12);
      header = 16;
    } else if (size === 0) size = end - off;
    if (size < header || off + size > end) return;
    yield { type: text(d, off + 4, 4), body: off + header, end: off + size };
    off += size;
  }
}

function findBox(d: Uint8Array, start: number, end: number, path: string[]): { body: number; end: number } | undefined {
  const [first, ...rest] = path;
  for (const b of isoBoxes(d, start, end)) {
    if (b.type !== first) continue;
    return rest.length === 0 ? b : findBox(d, b.body, b.end, rest);
  }
  return undefined;
}

function validateIsoBmff(d: Uint8Array): void {
  let moov: { body: number; end: number } | undefined;
  let media = 0;
  let fragments = 0;
  for (const b of isoBoxes(d, 0, d.length)) {
    if (b.type === "moov") moov = b;
    else if (b.type === "mdat") media += b.end - b.body;
    else if (b.type === "moof") fragments++;
  }
  if (!moov) throw new Invalid("no movie box (moov)");
  if (media === 0) throw new Invalid("no media data (mdat)");
  if (fragments > 0) return;
  for (const trak of isoBoxes(d, moov.body, moov.end)) {
    if (trak.type !== "trak") continue;
    const stbl = findBox(d, trak.body, trak.end, ["mdia", "minf", "stbl"]);
    if (!stbl) throw new Invalid("a track has no sample table (stbl)");
    for (const need of ["stsd", "stts", "stsc", "stsz"]) {
      if (!findBox(d, stbl.body, stbl.end, [need]) && !(need === "stsz" && findBox(d, stbl.body, stbl.end, ["stz2"]))) {
        throw new Invalid(`a track's sample table has no ${need}`);
      }
    }
    if (!findBox(d, stbl.body, stbl.end, ["stco"]) && !findBox(d, stbl.body, stbl.end, ["co64"])) {
      throw new Invalid("a track's sample table has no chunk offsets (stco)");
    }
  }
}

function validateWav(d: Uint8Array, facts: ProbedMedia): void {
  if (!facts.duration_seconds || facts.duration_seconds <= 0) throw new Invalid("no audio data");
  const frame = ((facts.bits_per_sample ?? 8) / 8) * (facts.channels ?? 1);
  const dataBytes = facts.duration_seconds * (facts.sample_rate ?? 1) * frame;
  if (frame > 0 && Math.round(dataBytes) < frame) throw new Invalid("less than one sample frame of audio");
  void d;
}

function validateMp3(d: Uint8Array): void {
  // The probe found one frame; a decoder needs the next one to follow it where its header says.
  const start = mpegAudioStart(d);
  if (start === undefined) throw new Invalid("no MPEG audio frame");
  const frames = countFrames(d, start, 2);
  if (frames < 2) throw new Invalid("fewer than two consecutive MPEG audio frames");
}

function countFrames(d: Uint8Array, start: number, want: number): number {
  let n = 0;
  for (let off = start; n < want && off + 4 <= d.length; n++) {
    const len = mpegFrameLength(u32(d, off));
    if (len === 0 || off + len > d.length) break;
    off += len;
  }
  return n;
}

/** Throws `422 invalid_media` at `param` when the input's structure cannot be decoded. */
export async function validateMedia(data: Uint8Array, facts: ProbedMedia, param: string): Promise<void> {
  try {
    if (facts.mime === "image/png") await validatePng(data);
    else if (facts.mime === "image/jpeg") validateJpeg(data);
    else if (facts.mime === "video/mp4" || facts.mime === "video/quicktime" || facts.mime === "audio/mp4") validateIsoBmff(data);
    else if (facts.mime === "audio/wav") validateWav(data, facts);
    else if (facts.mime === "audio/mpeg") validateMp3(data);
  } catch (e) {
    if (!(e instanceof Invalid)) throw e;
    throw new ApiError("invalid_media", `The ${facts.mime} media is malformed: ${clause(e.message)}.`, { param });
  }
}
