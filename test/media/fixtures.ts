/**
 * Tiny, structurally valid media files built byte by byte, for the probe tests and for the media
 * server of test/global-setup.ts (so only web APIs here: this runs in workerd and in Node).
 * Payloads are filler: the probe reads containers and headers, never decodes samples or pixels.
 */
import { encodePng } from "../../src/media/png";

type Part = number[] | Uint8Array | string;

export function bytes(...parts: Part[]): Uint8Array {
  const arrays = parts.map((p) => (typeof p === "string" ? latin1(p) : p instanceof Uint8Array ? p : Uint8Array.from(p)));
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let off = 0;
  for (const a of arrays) {
    out.set(a, off);
    off += a.length;
  }
  return out;
}

function latin1(s: string): Uint8Array {
  return Uint8Array.from(s, (c) => c.charCodeAt(0) & 0xff);
}

export const be16 = (n: number) => [(n >>> 8) & 255, n & 255];
export const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
export const be64 = (n: number) => [...be32(Math.floor(n / 2 ** 32)), ...be32(n >>> 0)];
export const le16 = (n: number) => [n & 255, (n >>> 8) & 255];
export const le24 = (n: number) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255];
export const le32 = (n: number) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255];
export const zeros = (n: number) => new Uint8Array(n);

// ---------------------------------------------------------------- PNG

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of data) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function pngChunk(type: string, data: Part = []): Uint8Array {
  const body = bytes(type, data);
  return bytes(be32(body.length - 4), body, be32(crc32(body)));
}

/** Inserts chunks right after IHDR (signature 8 bytes + IHDR chunk 25 bytes). */
export function afterIhdr(png: Uint8Array, ...chunks: Uint8Array[]): Uint8Array {
  return bytes(png.subarray(0, 33), ...chunks, png.subarray(33));
}

function gradient(width: number, height: number, channels: 3 | 4): Uint8Array {
  const px = new Uint8Array(width * height * channels);
  for (let i = 0; i < px.length; i++) px[i] = (i * 37) & 255;
  return px;
}

export const pngRgb = (width = 5, height = 3) => encodePng(width, height, gradient(width, height, 3), 3);
export const pngRgba = (width = 4, height = 6) => encodePng(width, height, gradient(width, height, 4), 4);

/** An RGB PNG with a tRNS chunk (one colour made transparent). */
export async function pngTrns(): Promise<Uint8Array> {
  return afterIhdr(await pngRgb(), pngChunk("tRNS", [0, 0, 0, 0, 0, 0]));
}

/** An APNG: acTL (frame count, plays) before the image data. */
export async function apng(frames = 3): Promise<Uint8Array> {
  return afterIhdr(await pngRgba(), pngChunk("acTL", [...be32(frames), ...be32(0)]));
}

// ---------------------------------------------------------------- JPEG

const segment = (marker: number, ...payload: Part[]) => {
  const body = bytes(...payload);
  return bytes([0xff, marker], be16(body.length + 2), body);
};

/** SOI, APP0, DQT, SOFn, DHT, one scan per `scans` (with stuffed FF 00 and an RST marker), EOI. */
export function jpeg(width = 7, height = 5, options: { progressive?: boolean } = {}): Uint8Array {
  const scan = bytes(segment(0xda, [3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 0x3f, 0]), [0x12, 0xff, 0x00, 0x34, 0xff, 0xd0, 0x56, 0x78]);
  return bytes(
    [0xff, 0xd8],
    segment(0xe0, "JFIF\0", [1, 1, 0, 0, 1, 0, 1, 0, 0]),
    segment(0xdb, [0, ...zeros(64)]),
    segment(options.progressive ? 0xc2 : 0xc0, [8, ...be16(height), ...be16(width), 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]),
    segment(0xc4, zeros(29)),
    scan,
    ...(options.progressive ? [segment(0xc4, zeros(29)), scan] : []),
    [0xff, 0xd9],
  );
}

// ---------------------------------------------------------------- WebP

export function riff(form: string, ...chunks: Uint8Array[]): Uint8Array {
  const body = bytes(form, ...chunks);
  return bytes("RIFF", le32(body.length), body);
}

export function riffChunk(fourcc: string, data: Part): Uint8Array {
  const body = bytes(data);
  return bytes(fourcc, le32(body.length), body, body.length & 1 ? [0] : []);
}

const vp8Chunk = (width: number, height: number) =>
  riffChunk("VP8 ", [0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, ...le16(width), ...le16(height), ...zeros(8)]);
const vp8lChunk = (width: number, height: number, alpha: boolean) =>
  riffChunk("VP8L", [0x2f, ...le32((width - 1) | ((height - 1) << 14) | ((alpha ? 1 : 0) << 28)), 0x07, 0x01]);

export const webpLossy = (width = 30, height = 20) => riff("WEBP", vp8Chunk(width, height));
export const webpLossless = (width = 17, height = 9, alpha = true) => riff("WEBP", vp8lChunk(width, height, alpha));

/** VP8X with an alpha channel (ALPH + VP8), or animated (ANIM + ANMF frames). */
export function webpExtended(options: { width?: number; height?: number; alpha?: boolean; frames?: number } = {}): Uint8Array {
  const { width = 300, height = 200, alpha = false, frames = 0 } = options;
  const flags = (alpha ? 0x10 : 0) | (frames > 0 ? 0x02 : 0);
  const header = riffChunk("VP8X", [flags, 0, 0, 0, ...le24(width - 1), ...le24(height - 1)]);
  if (frames === 0) return riff("WEBP", header, ...(alpha ? [riffChunk("ALPH", [0, 1, 2])] : []), vp8Chunk(width, height));
  const frame = riffChunk("ANMF", [
    ...le24(0),
    ...le24(0),
    ...le24(width - 1),
    ...le24(height - 1),
    ...le24(100),
    0,
    ...vp8lChunk(width, height, alpha),
  ]);
  return riff("WEBP", header, riffChunk("ANIM", [0, 0, 0, 0, 0, 0]), ...Array.from({ length: frames }, () => frame));
}

// ---------------------------------------------------------------- GIF

/** GIF89a with a 2-colour global table, `frames` image descriptors and optionally a transparency GCE. */
export function gif(options: { width?: number; height?: number; frames?: number; transparent?: boolean } = {}): Uint8Array {
  const { width = 10, height = 8, frames = 1, transparent = false } = options;
  const parts: Part[] = ["GIF89a", le16(width), le16(height), [0x80, 0, 0], [0, 0, 0, 255, 255, 255]];
  if (frames > 1) parts.push([0x21, 0xff, 0x0b], "NETSCAPE2.0", [3, 1, 0, 0, 0]);
  for (let i = 0; i < frames; i++) {
    if (transparent || frames > 1) parts.push([0x21, 0xf9, 4, transparent ? 0x09 : 0x08, 10, 0, 0, 0]);
    parts.push([0x2c, ...le16(0), ...le16(0), ...le16(width), ...le16(height), 0], [2, 2, 0x44, 0x01, 0]);
  }
  parts.push([0x3b]);
  return bytes(...parts);
}

// ---------------------------------------------------------------- ISO BMFF (MP4, MOV)

export function box(type: string, ...parts: Part[]): Uint8Array {
  const body = bytes(...parts);
  return bytes(be32(8 + body.length), type, body);
}

/** A box with a 64-bit largesize header. */
export function box64(type: string, ...parts: Part[]): Uint8Array {
  const body = bytes(...parts);
  return bytes(be32(1), type, be64(16 + body.length), body);
}

const IDENTITY_MATRIX = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000].flatMap(be32);
/** A 32-bit or 64-bit time field, as the box version says. */
const time = (v: 0 | 1, n: number) => (v === 1 ? be64(n) : be32(n));

export function mvhd(v: 0 | 1, timescale: number, duration: number): Uint8Array {
  return box(
    "mvhd",
    [v, 0, 0, 0],
    time(v, 0),
    time(v, 0),
    be32(timescale),
    time(v, duration),
    be32(0x00010000),
    be16(0x0100),
    zeros(10),
    IDENTITY_MATRIX,
    zeros(24),
    be32(3),
  );
}

function tkhd(v: 0 | 1, id: number, width: number, height: number): Uint8Array {
  return box(
    "tkhd",
    [v, 0, 0, 3],
    time(v, 0),
    time(v, 0),
    be32(id),
    be32(0),
    time(v, 0),
    zeros(8),
    be16(0),
    be16(0),
    be16(0),
    be16(0),
    IDENTITY_MATRIX,
    be32(width * 65536),
    be32(height * 65536),
  );
}

function mdhd(v: 0 | 1, timescale: number, duration: number): Uint8Array {
  return box("mdhd", [v, 0, 0, 0], time(v, 0), time(v, 0), be32(timescale), time(v, duration), be16(0x55c4), be16(0));
}

const hdlr = (handler: string) => box("hdlr", [0, 0, 0, 0], be32(0), handler, zeros(12), "Handler\0");

/** The sample tables a player needs (timing, chunking, sizes, offsets), empty, around one sample entry. */
const sampleTables = (entry: Uint8Array) =>
  box(
    "minf",
    box(
      "stbl",
      box("stsd", [0, 0, 0, 0], be32(1), entry),
      box("stts", [0, 0, 0, 0], be32(0)),
      box("stsc", [0, 0, 0, 0], be32(0)),
      box("stsz", [0, 0, 0, 0], be32(0), be32(0)),
      box("stco", [0, 0, 0, 0], be32(0)),
    ),
  );

/** stsd with one visual sample entry carrying the coded size. */
const videoStbl = (width: number, height: number) =>
  sampleTables(box("avc1", zeros(6), be16(1), zeros(16), be16(width), be16(height), zeros(50)));

/** stsd with one AAC sample entry. */
const audioStbl = () => sampleTables(box("mp4a", zeros(6), be16(1), zeros(8), be16(2), be16(16), zeros(4), be32(48000 * 65536)));

export interface TrackSpec {
  handler: "vide" | "soun";
  /** Track header size; video tracks also get the same size in their sample entry unless `entry` says otherwise. */
  width?: number;
  height?: number;
  entry?: { width: number; height: number };
  timescale: number;
  duration: number;
  version?: 0 | 1;
}

export function trak(id: number, t: TrackSpec): Uint8Array {
  const v = t.version ?? 0;
  const entry = t.entry ?? { width: t.width ?? 0, height: t.height ?? 0 };
  return box(
    "trak",
    tkhd(v, id, t.width ?? 0, t.height ?? 0),
    box(
      "mdia",
      mdhd(v, t.timescale, t.duration),
      hdlr(t.handler),
      t.handler === "vide" ? videoStbl(entry.width, entry.height) : audioStbl(),
    ),
  );
}

export function isoFile(options: {
  brand: string;
  movie: { version?: 0 | 1; timescale: number; duration: number };
  tracks: TrackSpec[];
  largeMdat?: boolean;
}): Uint8Array {
  const { brand, movie, tracks } = options;
  const compatible = brand === "qt  " ? "qt  " : "isomiso2mp41";
  const mdat = options.largeMdat ? box64("mdat", zeros(64)) : box("mdat", zeros(64));
  return bytes(
    box("ftyp", brand, be32(0x200), compatible),
    box("moov", mvhd(movie.version ?? 0, movie.timescale, movie.duration), ...tracks.map((t, i) => trak(i + 1, t))),
    mdat,
  );
}

export const mp4 = () =>
  isoFile({
    brand: "isom",
    movie: { timescale: 1000, duration: 2500 },
    tracks: [
      { handler: "vide", width: 640, height: 360, timescale: 12800, duration: 32000 },
      { handler: "soun", timescale: 48000, duration: 120000 },
    ],
  });

/** Version 1 headers (64-bit times) and a 64-bit mdat size. */
export const mp4Version1 = () =>
  isoFile({
    brand: "mp42",
    movie: { version: 1, timescale: 600, duration: 2400 },
    tracks: [{ handler: "vide", width: 1920, height: 1080, timescale: 90000, duration: 360000, version: 1 }],
    largeMdat: true,
  });

/** QuickTime; an unset movie duration (longest track wins) and a tkhd without size (the sample entry has it). */
export const mov = () =>
  isoFile({
    brand: "qt  ",
    movie: { timescale: 600, duration: 0 },
    tracks: [
      { handler: "vide", entry: { width: 320, height: 240 }, timescale: 30000, duration: 90000 },
      { handler: "soun", timescale: 44100, duration: 154350 },
    ],
  });

/**
 * Fragmented: zero durations in moov, the samples in moof/traf. Durations come from the trex
 * default (10 x 40), a tfhd default (4 x 50) and per-sample trun entries (2 x 100): 0.8 s at 1 kHz;
 * or from an mvex/mehd fragment duration when `mehd` is given.
 */
export function mp4Fragmented(options: { mehd?: number } = {}): Uint8Array {
  const tfhd = (flags: number, defaultDuration?: number) =>
    box("tfhd", be32(flags), be32(1), defaultDuration !== undefined ? be32(defaultDuration) : []);
  // Per-sample entries carry a duration and a size (flags 0x100 | 0x200).
  const trun = (flags: number, count: number, durations: number[] = []) =>
    box("trun", be32(flags), be32(count), flags & 1 ? be32(0) : [], ...durations.map((d) => bytes(be32(d), be32(100))));
  const fragment = (sequence: number, traf: Uint8Array) =>
    bytes(box("moof", box("mfhd", [0, 0, 0, 0], be32(sequence)), traf), box("mdat", zeros(16)));
  return bytes(
    box("ftyp", "iso5", be32(0x200), "iso5iso6mp41"),
    box(
      "moov",
      mvhd(0, 1000, 0),
      trak(1, { handler: "vide", width: 160, height: 90, timescale: 1000, duration: 0 }),
      box(
        "mvex",
        options.mehd !== undefined ? box("mehd", [0, 0, 0, 0], be32(options.mehd)) : [],
        box("trex", [0, 0, 0, 0], be32(1), be32(1), be32(40), be32(0), be32(0)),
      ),
    ),
    fragment(1, box("traf", tfhd(0x020000), trun(0x001, 10))),
    fragment(2, box("traf", tfhd(0x020008, 50), trun(0x000, 4))),
    fragment(3, box("traf", tfhd(0x020000), trun(0x301, 2, [100, 100]))),
  );
}

export const m4a = () =>
  isoFile({
    brand: "M4A ",
    movie: { timescale: 44100, duration: 88200 },
    tracks: [{ handler: "soun", timescale: 44100, duration: 88200 }],
  });

// ---------------------------------------------------------------- WebM

/** An EBML element with an 8-byte size field. */
export function ebml(id: number[], ...parts: Part[]): Uint8Array {
  const body = bytes(...parts);
  return bytes(id, [0x01, 0, 0, 0, ...be32(body.length)], body);
}

const ebmlUint = (id: number[], n: number) => ebml(id, be32(n));

function float64(n: number): number[] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, n);
  return [...new Uint8Array(view.buffer)];
}

export function webmHeader(docType = "webm"): Uint8Array {
  return ebml(
    [0x1a, 0x45, 0xdf, 0xa3],
    ebmlUint([0x42, 0x86], 1),
    ebmlUint([0x42, 0xf7], 1),
    ebml([0x42, 0x82], docType),
    ebmlUint([0x42, 0x87], 4),
  );
}

/** EBML header, then Segment → Info (duration in ms), Tracks (a video and an audio track), one Cluster. */
export function webm(
  options: { width?: number; height?: number; durationMs?: number; audio?: boolean; video?: boolean } = {},
): Uint8Array {
  const { width = 320, height = 240, durationMs = 2500, audio = true, video = true } = options;
  const videoTrack = ebml(
    [0xae],
    ebmlUint([0xd7], 1),
    ebmlUint([0x83], 1),
    ebml([0xe0], ebmlUint([0xb0], width), ebmlUint([0xba], height)),
  );
  const audioTrack = ebml([0xae], ebmlUint([0xd7], 2), ebmlUint([0x83], 2));
  return bytes(
    webmHeader(),
    ebml(
      [0x18, 0x53, 0x80, 0x67],
      ebml([0x15, 0x49, 0xa9, 0x66], ebmlUint([0x2a, 0xd7, 0xb1], 1_000_000), ebml([0x44, 0x89], float64(durationMs))),
      ebml([0x16, 0x54, 0xae, 0x6b], ...(video ? [videoTrack] : []), ...(audio ? [audioTrack] : [])),
      ebml([0x1f, 0x43, 0xb6, 0x75], ebmlUint([0xe7], 0), zeros(16)),
    ),
  );
}

// ---------------------------------------------------------------- WAV

export function wav(options: { rate?: number; channels?: number; bits?: number; seconds?: number } = {}): Uint8Array {
  const { rate = 8000, channels = 2, bits = 16, seconds = 0.5 } = options;
  const blockAlign = (channels * bits) / 8;
  const dataLength = Math.round(rate * seconds) * blockAlign;
  return riff(
    "WAVE",
    riffChunk("fmt ", [
      ...le16(1),
      ...le16(channels),
      ...le32(rate),
      ...le32(rate * blockAlign),
      ...le16(blockAlign),
      ...le16(bits),
    ]),
    riffChunk("LIST", "INFOxyz"), // an odd-sized chunk before the data, padded to even
    riffChunk("data", zeros(dataLength)),
  );
}

// ---------------------------------------------------------------- MP3

export interface Mp3Spec {
  frames?: number;
  /** MPEG-1 Layer III 128 kb/s 44.1 kHz by default; `mpeg2` is MPEG-2 Layer III 64 kb/s 22.05 kHz. */
  mpeg2?: boolean;
  mono?: boolean;
  /** Frame count written in a Xing (or Info) header in the first frame. */
  xing?: number;
  info?: boolean;
  vbri?: number;
  id3?: boolean;
}

export function mp3FrameLength(spec: Mp3Spec): number {
  return spec.mpeg2 ? Math.floor((72 * 64000) / 22050) : Math.floor((144 * 128000) / 44100);
}

export function mp3(spec: Mp3Spec = {}): Uint8Array {
  const { frames = 10, mpeg2 = false, mono = false } = spec;
  const header = [0xff, mpeg2 ? 0xf3 : 0xfb, mpeg2 ? 0x80 : 0x90, mono ? 0xc4 : 0x44];
  const length = mp3FrameLength(spec);
  const frame = (body: Part[] = []) => {
    const f = bytes(header, ...body);
    return bytes(f, zeros(length - f.length));
  };
  const side = mpeg2 ? (mono ? 9 : 17) : mono ? 17 : 32;
  const first: Uint8Array[] = [];
  if (spec.xing !== undefined) first.push(frame([zeros(side), spec.info ? "Info" : "Xing", be32(0x0001), be32(spec.xing)]));
  if (spec.vbri !== undefined)
    first.push(frame([zeros(32), "VBRI", be16(1), be16(0), be16(75), be32(length * spec.vbri), be32(spec.vbri)]));
  const tag = spec.id3 ? bytes("ID3", [3, 0, 0], syncsafe(300), zeros(300)) : new Uint8Array();
  return bytes(tag, ...first, ...Array.from({ length: frames }, () => frame()));
}

function syncsafe(n: number): number[] {
  return [(n >>> 21) & 127, (n >>> 14) & 127, (n >>> 7) & 127, n & 127];
}

// ---------------------------------------------------------------- FLAC

export function flac(
  options: { rate?: number; channels?: number; bits?: number; samples?: number; id3?: boolean } = {},
): Uint8Array {
  const { rate = 44100, channels = 2, bits = 16, samples = 110250 } = options;
  const packed = (BigInt(rate) << 44n) | (BigInt(channels - 1) << 41n) | (BigInt(bits - 1) << 36n) | BigInt(samples);
  const packedBytes = Array.from({ length: 8 }, (_, i) => Number((packed >> BigInt(56 - 8 * i)) & 0xffn));
  const streaminfo = [...be16(4096), ...be16(4096), 0, 0, 0, 0, 0, 0, ...packedBytes, ...zeros(16)];
  const comment = bytes(le32(4), "test", le32(0));
  return bytes(
    options.id3 ? bytes("ID3", [4, 0, 0], syncsafe(20), zeros(20)) : new Uint8Array(),
    "fLaC",
    [0x00, 0, 0, 34],
    streaminfo,
    [0x84, 0, 0, comment.length],
    comment,
    [0xff, 0xf8, 0x69, 0x08],
    zeros(32),
  );
}

// ---------------------------------------------------------------- Ogg

const OGG_CRC = Array.from({ length: 256 }, (_, i) => {
  let r = i << 24;
  for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
  return r >>> 0;
});

/** One Ogg page holding whole packets, with lacing values and a valid CRC. */
export function oggPage(
  headerType: number,
  granule: bigint,
  serial: number,
  sequence: number,
  packets: Uint8Array[],
): Uint8Array {
  const lacing: number[] = [];
  for (const p of packets) {
    let n = p.length;
    while (n >= 255) {
      lacing.push(255);
      n -= 255;
    }
    lacing.push(n);
  }
  const g = BigInt.asUintN(64, granule);
  const page = bytes(
    "OggS",
    [0, headerType],
    le32(Number(g & 0xffffffffn)),
    le32(Number(g >> 32n)),
    le32(serial),
    le32(sequence),
    le32(0),
    [lacing.length, ...lacing],
    ...packets,
  );
  let crc = 0;
  for (const b of page) crc = ((crc << 8) ^ (OGG_CRC[((crc >>> 24) ^ b) & 0xff] as number)) >>> 0;
  page.set(le32(crc), 22);
  return page;
}

/** Ogg Vorbis: identification page, comment/setup page, audio page whose granule ends the stream. */
export function oggVorbis(options: { rate?: number; channels?: number; seconds?: number } = {}): Uint8Array {
  const { rate = 44100, channels = 2, seconds = 3 } = options;
  const ident = bytes([1], "vorbis", le32(0), [channels], le32(rate), le32(0), le32(128000), le32(0), [0xb8, 1]);
  const serial = 0x1234;
  return bytes(
    oggPage(0x02, 0n, serial, 0, [ident]),
    oggPage(0x00, 0n, serial, 1, [bytes([3], "vorbis", zeros(20)), bytes([5], "vorbis", zeros(300))]),
    oggPage(0x00, BigInt(Math.round((rate * seconds) / 2)), serial, 2, [zeros(100)]),
    oggPage(0x04, BigInt(Math.round(rate * seconds)), serial, 3, [zeros(100)]),
  );
}

/** Ogg Opus: OpusHead, OpusTags, audio pages; granules count 48 kHz samples including the pre-skip. */
export function oggOpus(options: { channels?: number; preSkip?: number; seconds?: number } = {}): Uint8Array {
  const { channels = 2, preSkip = 312, seconds = 1.5 } = options;
  const head = bytes("OpusHead", [1, channels], le16(preSkip), le32(16000), le16(0), [0]);
  const serial = 0x5678;
  return bytes(
    oggPage(0x02, 0n, serial, 0, [head]),
    oggPage(0x00, 0n, serial, 1, [bytes("OpusTags", le32(4), "test", le32(0))]),
    oggPage(0x04, BigInt(preSkip + Math.round(48000 * seconds)), serial, 2, [zeros(60), zeros(60)]),
  );
}

// ---------------------------------------------------------------- all, by name

/** Every fixture by name; the media server of the tests serves them at /media/<name>. */
export async function buildFixtures(): Promise<Record<string, Uint8Array>> {
  return {
    png: await pngRgb(),
    "png-rgba": await pngRgba(),
    "png-trns": await pngTrns(),
    apng: await apng(),
    jpeg: jpeg(),
    "jpeg-progressive": jpeg(640, 480, { progressive: true }),
    "webp-lossy": webpLossy(),
    "webp-lossless": webpLossless(),
    "webp-extended-alpha": webpExtended({ alpha: true }),
    "webp-animated": webpExtended({ width: 64, height: 48, frames: 3, alpha: true }),
    gif: gif(),
    "gif-animated": gif({ frames: 2 }),
    "gif-transparent": gif({ transparent: true }),
    mp4: mp4(),
    "mp4-v1": mp4Version1(),
    mov: mov(),
    "mp4-fragmented": mp4Fragmented(),
    m4a: m4a(),
    webm: webm(),
    wav: wav(),
    mp3: mp3(),
    "mp3-xing": mp3({ xing: 100 }),
    "mp3-info-mono": mp3({ xing: 50, info: true, mono: true }),
    "mp3-vbri": mp3({ vbri: 40 }),
    "mp3-id3": mp3({ id3: true }),
    "mp3-mpeg2": mp3({ mpeg2: true, frames: 20 }),
    flac: flac(),
    "flac-id3": flac({ id3: true, rate: 48000, channels: 1, bits: 24, samples: 24000 }),
    "ogg-vorbis": oggVorbis(),
    "ogg-opus": oggOpus(),
  };
}
