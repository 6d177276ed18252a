/**
 * Writes an MP4 from tracks of samples that already carry their sample entries (as read by
 * mp4-read.ts, plus new ones): several sample entries per track, per-sample durations and
 * composition offsets, and one edit per track. The moov comes first, as in mp4.ts.
 */
import { ByteWriter } from "./bytes";
import { LANGUAGE_UND, writeHdlr, writeMatrix } from "./mp4";
import type { ReadSample, ReadTrack } from "./mp4-read";

export type WriteTrack = Pick<ReadTrack, "handler" | "timescale" | "entries" | "edit" | "width" | "height"> & {
  samples: ReadSample[];
  /** Movie ticks of nothing before the track starts (an empty edit). */
  delay?: number;
};

const MOVIE_TIMESCALE = 1000;
const MAX_UINT32 = 0xffffffff;

interface Chunk {
  track: number;
  first: number;
  count: number;
  entry: number;
  /** Start in seconds, to interleave the tracks. */
  time: number;
  offset: number;
}

/** Consecutive samples of one sample entry, at most a second of media per chunk. */
function chunksOf(t: WriteTrack, track: number): Chunk[] {
  const chunks: Chunk[] = [];
  let ticks = 0;
  t.samples.forEach((s, i) => {
    const last = chunks[chunks.length - 1];
    const second = Math.floor(ticks / t.timescale);
    if (last && last.entry === s.entry && Math.floor(last.time) === second) last.count++;
    else chunks.push({ track, first: i, count: 1, entry: s.entry, time: ticks / t.timescale, offset: 0 });
    ticks += s.duration;
  });
  return chunks;
}

/** (count, value) runs of a per-sample value. */
function runs(values: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const v of values) {
    const last = out[out.length - 1];
    if (last && last[1] === v) last[0]++;
    else out.push([1, v]);
  }
  return out;
}

const mediaTicks = (t: WriteTrack) => t.samples.reduce((n, s) => n + s.duration, 0);
/** The media's presented length in movie ticks, without the delay. */
const presented = (t: WriteTrack) => Math.round(((t.edit?.mediaTicks ?? mediaTicks(t)) * MOVIE_TIMESCALE) / t.timescale);
const movieDuration = (t: WriteTrack) => (t.delay ?? 0) + presented(t);

function writeStbl(w: ByteWriter, t: WriteTrack, chunks: Chunk[]): void {
  w.box("stbl", () => {
    w.fullBox("stsd", 0, 0, () => {
      w.u32(t.entries.length);
      for (const e of t.entries) w.bytes(e);
    });
    const stts = runs(t.samples.map((s) => s.duration));
    w.fullBox("stts", 0, 0, () => {
      w.u32(stts.length);
      for (const [n, v] of stts) {
        w.u32(n);
        w.u32(v);
      }
    });
    if (t.samples.some((s) => s.cto !== 0)) {
      const ctts = runs(t.samples.map((s) => s.cto));
      w.fullBox("ctts", ctts.some(([, v]) => v < 0) ? 1 : 0, 0, () => {
        w.u32(ctts.length);
        for (const [n, v] of ctts) {
          w.u32(n);
          w.u32(v >>> 0);
        }
      });
    }
    if (t.samples.some((s) => !s.sync)) {
      const sync = t.samples.flatMap((s, i) => (s.sync ? [i + 1] : []));
      w.fullBox("stss", 0, 0, () => {
        w.u32(sync.length);
        for (const n of sync) w.u32(n);
      });
    }
    // stsc lists a chunk wherever samples per chunk or the sample entry changes.
    const stsc: [number, number, number][] = [];
    chunks.forEach((c, i) => {
      const last = stsc[stsc.length - 1];
      if (!last || last[1] !== c.count || last[2] !== c.entry) stsc.push([i + 1, c.count, c.entry]);
    });
    w.fullBox("stsc", 0, 0, () => {
      w.u32(stsc.length);
      for (const [first, count, entry] of stsc) {
        w.u32(first);
        w.u32(count);
        w.u32(entry);
      }
    });
    w.fullBox("stsz", 0, 0, () => {
      w.u32(0);
      w.u32(t.samples.length);
      for (const s of t.samples) w.u32(s.data.length);
    });
    w.fullBox("stco", 0, 0, () => {
      w.u32(chunks.length);
      for (const c of chunks) w.u32(c.offset);
    });
  });
}

function writeTrak(w: ByteWriter, t: WriteTrack, id: number, chunks: Chunk[]): void {
  const video = t.handler === "vide";
  w.box("trak", () => {
    w.fullBox("tkhd", 0, 3, () => {
      w.u32(0);
      w.u32(0);
      w.u32(id);
      w.u32(0);
      w.u32(movieDuration(t));
      w.zeros(8);
      w.u16(0); // layer
      w.u16(0); // alternate_group
      w.u16(video ? 0 : 0x0100);
      w.u16(0);
      writeMatrix(w);
      w.u32(video ? t.width * 65536 : 0);
      w.u32(video ? t.height * 65536 : 0);
    });
    if (t.edit || t.delay)
      w.box("edts", () => {
        w.fullBox("elst", 0, 0, () => {
          w.u32(t.delay ? 2 : 1);
          if (t.delay) {
            w.u32(t.delay);
            w.u32(0xffffffff); // media_time -1: an empty edit
            w.u32(0x10000);
          }
          w.u32(presented(t));
          w.u32(t.edit?.mediaTime ?? 0);
          w.u32(0x10000);
        });
      });
    w.box("mdia", () => {
      w.fullBox("mdhd", 0, 0, () => {
        w.u32(0);
        w.u32(0);
        w.u32(t.timescale);
        w.u32(mediaTicks(t));
        w.u16(LANGUAGE_UND);
        w.u16(0);
      });
      writeHdlr(w, false, "mhlr", t.handler, video ? "VideoHandler" : "SoundHandler");
      w.box("minf", () => {
        if (video)
          w.fullBox("vmhd", 0, 1, () => {
            w.u16(0);
            w.zeros(6);
          });
        else
          w.fullBox("smhd", 0, 0, () => {
            w.u16(0);
            w.u16(0);
          });
        w.box("dinf", () => {
          w.fullBox("dref", 0, 0, () => {
            w.u32(1);
            w.fullBox("url ", 0, 1, () => {});
          });
        });
        writeStbl(w, t, chunks);
      });
    });
  });
}

function writeMoov(w: ByteWriter, tracks: WriteTrack[], chunks: Chunk[][]): void {
  w.box("moov", () => {
    w.fullBox("mvhd", 0, 0, () => {
      w.u32(0);
      w.u32(0);
      w.u32(MOVIE_TIMESCALE);
      w.u32(Math.max(...tracks.map(movieDuration)));
      w.u32(0x10000);
      w.u16(0x0100);
      w.zeros(10);
      writeMatrix(w);
      w.zeros(24);
      w.u32(tracks.length + 1);
    });
    tracks.forEach((t, i) => {
      writeTrak(w, t, i + 1, chunks[i] as Chunk[]);
    });
  });
}

export function writeMp4(tracks: WriteTrack[]): Uint8Array {
  if (tracks.length === 0) throw new RangeError("no tracks");
  const chunks = tracks.map(chunksOf);
  const order = chunks.flat().sort((a, b) => a.time - b.time || a.track - b.track);
  const head = new ByteWriter(64 * 1024);
  head.box("ftyp", () => {
    head.fourcc("isom");
    head.u32(0x200);
    for (const b of ["isom", "iso2", "avc1", "mp41"]) head.fourcc(b);
  });
  // As in mp4.ts: the moov's size does not depend on the offsets it holds; write it twice.
  const ftypEnd = head.pos;
  writeMoov(head, tracks, chunks);
  const mdatStart = head.pos;
  let offset = mdatStart + 8;
  for (const c of order) {
    c.offset = offset;
    const samples = (tracks[c.track] as WriteTrack).samples;
    for (let i = 0; i < c.count; i++) offset += (samples[c.first + i] as ReadSample).data.length;
  }
  if (offset > MAX_UINT32) throw new RangeError("file would exceed 4 GiB; stco offsets are 32-bit");
  head.pos = ftypEnd;
  writeMoov(head, tracks, chunks);
  head.u32(offset - mdatStart);
  head.fourcc("mdat");
  const out = new Uint8Array(offset);
  out.set(head.finish(), 0);
  let at = head.pos;
  for (const c of order) {
    const samples = (tracks[c.track] as WriteTrack).samples;
    for (let i = 0; i < c.count; i++) {
      const data = (samples[c.first + i] as ReadSample).data;
      out.set(data, at);
      at += data.length;
    }
  }
  return out;
}
