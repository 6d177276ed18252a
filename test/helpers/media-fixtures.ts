/** Small, valid media built in the test, as data URIs or bytes (no files, no network). */
import { encodePng } from "../../src/media/png";

export function dataUri(mime: string, bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${mime};base64,${btoa(bin)}`;
}

export async function png(width = 512, height = 512, rgba = false): Promise<Uint8Array> {
  const ch = rgba ? 4 : 3;
  const px = new Uint8Array(width * height * ch);
  for (let i = 0; i < width * height; i++) {
    px[i * ch] = (i * 7) & 255;
    px[i * ch + 1] = 120;
    px[i * ch + 2] = 200;
    if (rgba) px[i * ch + 3] = i % 2 ? 255 : 0;
  }
  return encodePng(width, height, px, ch as 3 | 4);
}

export async function pngInput(width = 512, height = 512, rgba = false) {
  return { type: "data_uri" as const, data_uri: dataUri("image/png", await png(width, height, rgba)) };
}

export function wav(seconds = 3, sampleRate = 16000): Uint8Array {
  const samples = Math.round(seconds * sampleRate);
  const out = new Uint8Array(44 + samples * 2);
  const v = new DataView(out.buffer);
  const s = (o: number, t: string) => {
    for (let i = 0; i < t.length; i++) v.setUint8(o + i, t.charCodeAt(i));
  };
  s(0, "RIFF");
  v.setUint32(4, 36 + samples * 2, true);
  s(8, "WAVE");
  s(12, "fmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, 1, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * 2, true);
  v.setUint16(32, 2, true);
  v.setUint16(34, 16, true);
  s(36, "data");
  v.setUint32(40, samples * 2, true);
  for (let i = 0; i < samples; i++) v.setInt16(44 + i * 2, Math.round(Math.sin(i / 10) * 8000), true);
  return out;
}

export function wavInput(seconds = 3) {
  return { type: "data_uri" as const, data_uri: dataUri("audio/wav", wav(seconds)) };
}

function box(type: string, ...parts: Uint8Array[]): Uint8Array {
  const size = 8 + parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  v.setUint32(0, size);
  for (let i = 0; i < 4; i++) v.setUint8(4 + i, type.charCodeAt(i));
  let o = 8;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function u32s(...values: number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const v = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) v.setUint32(i * 4, (values[i] as number) >>> 0);
  return out;
}

const ascii = (t: string) => new Uint8Array([...t].map((c) => c.charCodeAt(0)));
const MATRIX = u32s(0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000);

function trak(id: number, handler: "vide" | "soun", ms: number, width: number, height: number): Uint8Array {
  const tkhd = box(
    "tkhd",
    u32s(3, 0, 0, id, 0, ms, 0, 0, 0, handler === "soun" ? 0x01000000 : 0),
    MATRIX,
    u32s(width << 16, height << 16),
  );
  const mdhd = box("mdhd", u32s(0, 0, 0, 1000, ms), new Uint8Array([0x55, 0xc4, 0, 0]));
  const hdlr = box("hdlr", u32s(0, 0), ascii(handler), u32s(0, 0, 0), ascii("h\0"));
  // The sample tables a player needs, empty, around one sample entry.
  const entry =
    handler === "vide"
      ? box(
          "avc1",
          new Uint8Array(6),
          u32s(1 << 16, 0, 0, 0),
          new Uint8Array(2),
          new Uint8Array([width >> 8, width & 255, height >> 8, height & 255]),
          new Uint8Array(50),
        )
      : box("mp4a", new Uint8Array(6), u32s(1 << 16, 0, 0, (2 << 16) | 16, 0, 48000 << 16));
  const stbl = box(
    "stbl",
    box("stsd", u32s(0, 1), entry),
    box("stts", u32s(0, 0)),
    box("stsc", u32s(0, 0)),
    box("stsz", u32s(0, 0, 0)),
    box("stco", u32s(0, 0)),
  );
  return box("trak", tkhd, box("mdia", mdhd, hdlr, box("minf", stbl)));
}

/** The box tree of an MP4 (or MOV) with a video track (and optionally audio): enough to probe. */
export function mp4(seconds = 5, width = 1280, height = 720, opts: { mov?: boolean; audio?: boolean } = {}): Uint8Array {
  const ms = Math.round(seconds * 1000);
  const brand = opts.mov ? "qt  " : "isom";
  const ftyp = box("ftyp", ascii(brand), u32s(0x200), ascii(brand), ascii(opts.mov ? "qt  " : "mp42"));
  const mvhd = box(
    "mvhd",
    u32s(0, 0, 0, 1000, ms, 0x10000),
    new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    MATRIX,
    new Uint8Array(24),
    u32s(3),
  );
  const moov = box("moov", mvhd, trak(1, "vide", ms, width, height), ...(opts.audio ? [trak(2, "soun", ms, 0, 0)] : []));
  return concat(ftyp, moov, box("mdat", new Uint8Array(16)));
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
