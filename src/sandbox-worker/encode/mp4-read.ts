/**
 * Reads the tracks of an unfragmented MP4/MOV into samples (bytes, duration, sync, composition
 * offset, sample entry), so a clip can be written again with samples added: the sandbox's video
 * extension keeps its source sample for sample. Anything this reader does not follow (fragments,
 * edit lists other than one media segment after an optional delay, bad tables) is `undefined`:
 * the caller then has no source to keep, rather than a wrong one.
 */

export interface ReadSample {
  data: Uint8Array;
  duration: number;
  sync: boolean;
  /** Composition offset (ctts), in media ticks; may be negative. */
  cto: number;
  /** 1-based index into the track's sample entries. */
  entry: number;
}

export interface ReadTrack {
  id: number;
  handler: "vide" | "soun";
  timescale: number;
  /** Sample entry boxes (e.g. avc1, mp4a) as they were, whole. */
  entries: Uint8Array[];
  samples: ReadSample[];
  /** The one media edit: where presentation starts in media ticks, and how long it lasts in media ticks. */
  edit?: { mediaTime: number; mediaTicks: number };
  width: number;
  height: number;
}

export interface ReadMovie {
  movieTimescale: number;
  tracks: ReadTrack[];
}

class Unreadable extends Error {}

interface Box {
  type: string;
  start: number;
  end: number;
  /** Offset of the box header. */
  at: number;
}

const u32 = (d: Uint8Array, o: number) => {
  if (o + 4 > d.length) throw new Unreadable("truncated");
  return (((d[o] as number) << 24) | ((d[o + 1] as number) << 16) | ((d[o + 2] as number) << 8) | (d[o + 3] as number)) >>> 0;
};
const u64 = (d: Uint8Array, o: number) => u32(d, o) * 2 ** 32 + u32(d, o + 4);
const text = (d: Uint8Array, o: number) => String.fromCharCode(...d.subarray(o, o + 4));

function* boxes(d: Uint8Array, start: number, end: number): Generator<Box> {
  for (let off = start; end - off >= 8; ) {
    let size = u32(d, off);
    let header = 8;
    if (size === 1) {
      size = u64(d, off + 8);
      header = 16;
    } else if (size === 0) size = end - off;
    if (size < header || off + size > end) throw new Unreadable("box runs past its parent");
    yield { type: text(d, off + 4), start: off + header, end: off + size, at: off };
    off += size;
  }
}

function child(d: Uint8Array, parent: Box, type: string): Box | undefined {
  for (const b of boxes(d, parent.start, parent.end)) if (b.type === type) return b;
  return undefined;
}

function need(b: Box | undefined, what: string): Box {
  if (!b) throw new Unreadable(`no ${what}`);
  return b;
}

/** Per-sample values from a run-length table of (count, value) pairs. */
function expandRuns(d: Uint8Array, box: Box, signed: boolean): number[] {
  const n = u32(d, box.start + 4);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const count = u32(d, box.start + 8 + i * 8);
    let value = u32(d, box.start + 12 + i * 8);
    if (signed && value >= 0x80000000) value -= 2 ** 32;
    if (out.length + count > 10_000_000) throw new Unreadable("too many samples");
    for (let k = 0; k < count; k++) out.push(value);
  }
  return out;
}

function readTrak(d: Uint8Array, trak: Box, movieTimescale: number): ReadTrack | undefined {
  const tkhd = need(child(d, trak, "tkhd"), "tkhd");
  const mdia = need(child(d, trak, "mdia"), "mdia");
  const hdlr = need(child(d, mdia, "hdlr"), "hdlr");
  const handler = text(d, hdlr.start + 8);
  if (handler !== "vide" && handler !== "soun") return undefined;
  const v1 = d[tkhd.start] === 1;
  const id = u32(d, tkhd.start + (v1 ? 20 : 12));
  const dims = tkhd.start + (v1 ? 88 : 76);
  const mdhd = need(child(d, mdia, "mdhd"), "mdhd");
  const timescale = u32(d, mdhd.start + (d[mdhd.start] === 1 ? 20 : 12));
  if (timescale === 0) throw new Unreadable("zero timescale");
  const stbl = need(child(d, need(child(d, mdia, "minf"), "minf"), "stbl"), "stbl");
  const stsd = need(child(d, stbl, "stsd"), "stsd");
  const entries = [...boxes(d, stsd.start + 8, stsd.end)].map((b) => d.slice(b.at, b.end));
  const sizesBox = need(child(d, stbl, "stsz"), "stsz");
  const fixed = u32(d, sizesBox.start + 4);
  const count = u32(d, sizesBox.start + 8);
  const sizes = Array.from({ length: count }, (_, i) => (fixed !== 0 ? fixed : u32(d, sizesBox.start + 12 + i * 4)));
  const durations = expandRuns(d, need(child(d, stbl, "stts"), "stts"), false);
  const cttsBox = child(d, stbl, "ctts");
  const ctts = cttsBox ? expandRuns(d, cttsBox, d[cttsBox.start] === 1) : [];
  const stss = child(d, stbl, "stss");
  const syncSet = stss ? new Set(Array.from({ length: u32(d, stss.start + 4) }, (_, i) => u32(d, stss.start + 8 + i * 4))) : null;
  const stco = child(d, stbl, "stco");
  const co64 = child(d, stbl, "co64");
  const offsetsBox = need(stco ?? co64, "chunk offsets");
  const chunkCount = u32(d, offsetsBox.start + 4);
  const chunkOffset = (i: number) => (co64 ? u64(d, offsetsBox.start + 8 + i * 8) : u32(d, offsetsBox.start + 8 + i * 4));
  const stsc = need(child(d, stbl, "stsc"), "stsc");
  const runs = Array.from({ length: u32(d, stsc.start + 4) }, (_, i) => ({
    first: u32(d, stsc.start + 8 + i * 12),
    perChunk: u32(d, stsc.start + 12 + i * 12),
    entry: u32(d, stsc.start + 16 + i * 12),
  }));
  if (durations.length !== count) throw new Unreadable("stts and stsz disagree");
  const samples: ReadSample[] = [];
  for (let r = 0, s = 0; r < runs.length && s < count; r++) {
    const run = runs[r] as (typeof runs)[number];
    const lastChunk = (runs[r + 1]?.first ?? chunkCount + 1) - 1;
    for (let chunk = run.first; chunk <= lastChunk && s < count; chunk++) {
      let off = chunkOffset(chunk - 1);
      for (let k = 0; k < run.perChunk && s < count; k++, s++) {
        const size = sizes[s] as number;
        if (off + size > d.length) throw new Unreadable("sample past the end of the file");
        if (run.entry < 1 || run.entry > entries.length) throw new Unreadable("bad sample description index");
        samples.push({
          data: d.subarray(off, off + size),
          duration: durations[s] as number,
          sync: syncSet ? syncSet.has(s + 1) : true,
          cto: ctts[s] ?? 0,
          entry: run.entry,
        });
        off += size;
      }
    }
  }
  if (samples.length !== count) throw new Unreadable("stsc does not place every sample");
  return {
    id,
    handler,
    timescale,
    entries,
    samples,
    width: Math.round(u32(d, dims) / 65536),
    height: Math.round(u32(d, dims + 4) / 65536),
    ...readEdit(d, trak, movieTimescale, timescale),
  };
}

/** An optional leading empty edit is a delay this reader does not keep; only plain media edits are followed. */
function readEdit(d: Uint8Array, trak: Box, movieTimescale: number, timescale: number): { edit?: ReadTrack["edit"] } {
  const edts = child(d, trak, "edts");
  const elst = edts && child(d, edts, "elst");
  if (!elst) return {};
  const v1 = d[elst.start] === 1;
  const n = u32(d, elst.start + 4);
  if (n !== 1) throw new Unreadable("an edit list with more than one entry");
  const at = elst.start + 8;
  const duration = v1 ? u64(d, at) : u32(d, at);
  let mediaTime = v1 ? u64(d, at + 8) : u32(d, at + 4);
  if (!v1 && mediaTime >= 0x80000000) mediaTime -= 2 ** 32;
  const rate = u32(d, at + (v1 ? 16 : 8));
  if (mediaTime < 0 || rate !== 0x10000) throw new Unreadable("an empty or rate-changing edit");
  return { edit: { mediaTime, mediaTicks: Math.round((duration * timescale) / movieTimescale) } };
}

/** The movie's video and audio tracks, or undefined when this reader cannot follow the file. */
export function readMp4(d: Uint8Array): ReadMovie | undefined {
  try {
    let moov: Box | undefined;
    for (const b of boxes(d, 0, d.length)) {
      if (b.type === "moov") moov = b;
      else if (b.type === "moof") return undefined;
    }
    if (!moov || child(d, moov, "mvex")) return undefined;
    const mvhd = need(child(d, moov, "mvhd"), "mvhd");
    const movieTimescale = u32(d, mvhd.start + (d[mvhd.start] === 1 ? 20 : 12));
    if (movieTimescale === 0) return undefined;
    const tracks: ReadTrack[] = [];
    for (const b of boxes(d, moov.start, moov.end)) {
      if (b.type !== "trak") continue;
      const t = readTrak(d, b, movieTimescale);
      if (t) tracks.push(t);
    }
    return { movieTimescale, tracks };
  } catch (e) {
    if (e instanceof Unreadable || e instanceof RangeError) return undefined;
    throw e;
  }
}
