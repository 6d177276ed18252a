/**
 * An ISO BMFF (MP4) / QuickTime (MOV) muxer for one H.264 track and an optional MP3 track, written
 * box by box. The moov comes before the mdat so that players can start before the download ends.
 */
import { ByteWriter } from "./bytes";
import type { H264Stream } from "./h264";
import { frameRate, videoTimescale } from "./timing";

export interface Mp4AudioTrack {
  sampleRate: number;
  channels: number;
  /** MP3 frames, one sample each. */
  frames: Uint8Array[];
  /** 1152 for MPEG-1 Layer III, 576 for MPEG-2/2.5. */
  samplesPerFrame: number;
  /** Samples of codec delay at the start; hidden with an edit list so the audio lines up with the video. */
  delay?: number;
  /** Samples of real audio after the delay; with `delay`, the track's playable duration. */
  length?: number;
}

export interface MuxOptions {
  container: "mp4" | "mov";
  width: number;
  height: number;
  fps: number;
  video: H264Stream;
  audio?: Mp4AudioTrack;
}

const MOVIE_TIMESCALE = 1000;
const MAX_UINT32 = 0xffffffff;
const UNITY_MATRIX = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000];
export const LANGUAGE_UND = 0x55c4; // ISO 639-2 "und", packed as three 5-bit letters
/** objectTypeIndication for MPEG-1/2 Layer 3 audio in an esds. */
const OTI_MP3 = 0x6b;

interface Chunk {
  track: 0 | 1;
  first: number;
  count: number;
  offset: number;
}

interface TrackPlan {
  id: number;
  sizes: number[];
  /** Media timescale and one sample's duration in it (every sample lasts the same). */
  timescale: number;
  sampleTicks: number;
  /** Track duration in movie ticks, after any edit. */
  movieDuration: number;
  edit?: { mediaTime: number };
  chunks: Chunk[];
}

/** Groups samples into chunks of one second each, so the two tracks interleave in the mdat. */
function chunkBySecond(track: 0 | 1, count: number, secondOf: (i: number) => number): Chunk[] {
  const chunks: Chunk[] = [];
  for (let i = 0; i < count; i++) {
    const last = chunks[chunks.length - 1];
    if (last && secondOf(last.first) === secondOf(i)) last.count++;
    else chunks.push({ track, first: i, count: 1, offset: 0 });
  }
  return chunks;
}

function fullDuration(ticks: number, timescale: number): number {
  return Math.round((ticks * MOVIE_TIMESCALE) / timescale);
}

export function writeMatrix(w: ByteWriter): void {
  for (const m of UNITY_MATRIX) w.u32(m);
}

export function writeHdlr(w: ByteWriter, mov: boolean, componentType: string, handler: string, name: string): void {
  w.fullBox("hdlr", 0, 0, () => {
    // QuickTime names the component type (mhlr/dhlr) where ISO has zeros, and uses a Pascal string.
    if (mov) w.fourcc(componentType);
    else w.u32(0);
    w.fourcc(handler);
    w.zeros(12);
    const bytes = new TextEncoder().encode(name);
    if (mov) w.u8(bytes.length);
    w.bytes(bytes);
    if (!mov) w.u8(0);
  });
}

export function writeAvc1(
  w: ByteWriter,
  o: Pick<MuxOptions, "width" | "height" | "video">,
  type: "avc1" | "avc3" = "avc1",
): void {
  const { sps, pps } = o.video;
  w.box(type, () => {
    w.zeros(6);
    w.u16(1); // data_reference_index
    w.zeros(16); // pre_defined, reserved
    w.u16(o.width);
    w.u16(o.height);
    w.u32(0x00480000); // 72 dpi
    w.u32(0x00480000);
    w.u32(0);
    w.u16(1); // frame_count
    w.zeros(32); // compressorname (empty Pascal string)
    w.u16(0x18); // depth
    w.u16(0xffff); // pre_defined = -1
    w.box("avcC", () => {
      w.u8(1); // configurationVersion
      w.u8(sps[1] as number); // profile, compatibility flags and level, copied from the SPS
      w.u8(sps[2] as number);
      w.u8(sps[3] as number);
      w.u8(0xff); // lengthSizeMinusOne = 3
      w.u8(0xe1); // one SPS
      w.u16(sps.length);
      w.bytes(sps);
      w.u8(1); // one PPS
      w.u16(pps.length);
      w.bytes(pps);
    });
  });
}

function descriptor(w: ByteWriter, tag: number, size: number, body: () => void): void {
  if (size > 127) throw new Error("descriptor too large for a one-byte size");
  w.u8(tag);
  w.u8(size);
  body();
}

function writeMp4a(w: ByteWriter, a: Mp4AudioTrack, plan: TrackPlan): void {
  const seconds = (a.frames.length * a.samplesPerFrame) / a.sampleRate;
  const total = plan.sizes.reduce((n, s) => n + s, 0);
  const maxFrame = Math.max(0, ...plan.sizes);
  w.box("mp4a", () => {
    w.zeros(6);
    w.u16(1); // data_reference_index
    w.zeros(8); // reserved (QuickTime: version 0, revision, vendor)
    w.u16(a.channels);
    w.u16(16); // samplesize
    w.u32(0); // pre_defined, reserved
    w.u32(a.sampleRate * 65536); // 16.16 fixed point
    w.fullBox("esds", 0, 0, () => {
      descriptor(w, 0x03, 3 + 15 + 3, () => {
        w.u16(plan.id); // ES_ID
        w.u8(0); // no dependsOn, URL or OCR stream
        descriptor(w, 0x04, 13, () => {
          w.u8(OTI_MP3);
          w.u8((0x05 << 2) | 1); // streamType audio, upStream 0, reserved 1
          w.u24(maxFrame); // bufferSizeDB
          w.u32(Math.round((maxFrame * 8 * a.sampleRate) / a.samplesPerFrame)); // maxBitrate
          w.u32(seconds > 0 ? Math.round((total * 8) / seconds) : 0); // avgBitrate
        });
        descriptor(w, 0x06, 1, () => w.u8(2)); // SLConfig: predefined for MP4
      });
    });
  });
}

function writeSampleTables(w: ByteWriter, plan: TrackPlan, entry: () => void, sync?: number[]): void {
  w.box("stbl", () => {
    w.fullBox("stsd", 0, 0, () => {
      w.u32(1);
      entry();
    });
    w.fullBox("stts", 0, 0, () => {
      w.u32(1);
      w.u32(plan.sizes.length);
      w.u32(plan.sampleTicks);
    });
    if (sync)
      w.fullBox("stss", 0, 0, () => {
        w.u32(sync.length);
        for (const s of sync) w.u32(s);
      });
    // stsc lists only the chunks where samples-per-chunk changes.
    const runs: [number, number][] = [];
    plan.chunks.forEach((c, i) => {
      if (runs[runs.length - 1]?.[1] !== c.count) runs.push([i + 1, c.count]);
    });
    w.fullBox("stsc", 0, 0, () => {
      w.u32(runs.length);
      for (const [firstChunk, perChunk] of runs) {
        w.u32(firstChunk);
        w.u32(perChunk);
        w.u32(1); // sample_description_index
      }
    });
    w.fullBox("stsz", 0, 0, () => {
      w.u32(0); // sizes vary
      w.u32(plan.sizes.length);
      for (const s of plan.sizes) w.u32(s);
    });
    w.fullBox("stco", 0, 0, () => {
      w.u32(plan.chunks.length);
      for (const c of plan.chunks) w.u32(c.offset);
    });
  });
}

function writeTrak(w: ByteWriter, mov: boolean, plan: TrackPlan, kind: "vide" | "soun", o: MuxOptions, stbl: () => void): void {
  const mediaTicks = plan.sizes.length * plan.sampleTicks;
  w.box("trak", () => {
    w.fullBox("tkhd", 0, 3, () => {
      w.u32(0); // creation_time
      w.u32(0); // modification_time
      w.u32(plan.id);
      w.u32(0);
      w.u32(plan.movieDuration);
      w.zeros(8);
      w.u16(0); // layer
      w.u16(0); // alternate_group
      w.u16(kind === "soun" ? 0x0100 : 0); // volume
      w.u16(0);
      writeMatrix(w);
      w.u32(kind === "vide" ? o.width * 65536 : 0);
      w.u32(kind === "vide" ? o.height * 65536 : 0);
    });
    const edit = plan.edit;
    if (edit)
      w.box("edts", () => {
        w.fullBox("elst", 0, 0, () => {
          w.u32(1);
          w.u32(plan.movieDuration); // segment_duration, movie ticks
          w.u32(edit.mediaTime); // media_time, media ticks
          w.u32(0x10000); // media_rate 1.0
        });
      });
    w.box("mdia", () => {
      w.fullBox("mdhd", 0, 0, () => {
        w.u32(0);
        w.u32(0);
        w.u32(plan.timescale);
        w.u32(mediaTicks);
        w.u16(LANGUAGE_UND);
        w.u16(0);
      });
      writeHdlr(w, mov, "mhlr", kind, kind === "vide" ? "VideoHandler" : "SoundHandler");
      w.box("minf", () => {
        if (kind === "vide")
          w.fullBox("vmhd", 0, 1, () => {
            w.u16(0); // graphicsmode: copy
            w.zeros(6); // opcolor
          });
        else
          w.fullBox("smhd", 0, 0, () => {
            w.u16(0); // balance
            w.u16(0);
          });
        if (mov) writeHdlr(w, mov, "dhlr", "url ", "DataHandler");
        w.box("dinf", () => {
          w.fullBox("dref", 0, 0, () => {
            w.u32(1);
            w.fullBox("url ", 0, 1, () => {}); // flag 1: media is in this file
          });
        });
        stbl();
      });
    });
  });
}

function planTracks(o: MuxOptions): TrackPlan[] {
  const rate = frameRate(o.fps);
  const { timescale, frameTicks } = videoTimescale(rate);
  const frames = o.video.samples.length;
  const video: TrackPlan = {
    id: 1,
    sizes: o.video.samples.map((s) => s.data.length),
    timescale,
    sampleTicks: frameTicks,
    movieDuration: fullDuration(frames * frameTicks, timescale),
    chunks: chunkBySecond(0, frames, (i) => Math.floor((i * rate.den) / rate.num)),
  };
  const plans = [video];
  const a = o.audio;
  if (a && a.frames.length > 0) {
    const mediaTicks = a.frames.length * a.samplesPerFrame;
    const delay = Math.min(a.delay ?? 0, mediaTicks);
    const length = Math.min(a.length ?? mediaTicks - delay, mediaTicks - delay);
    plans.push({
      id: 2,
      sizes: a.frames.map((f) => f.length),
      timescale: a.sampleRate,
      sampleTicks: a.samplesPerFrame,
      movieDuration: fullDuration(a.delay !== undefined || a.length !== undefined ? length : mediaTicks, a.sampleRate),
      ...(a.delay !== undefined || a.length !== undefined ? { edit: { mediaTime: delay } } : {}),
      chunks: chunkBySecond(1, a.frames.length, (i) => Math.floor((i * a.samplesPerFrame) / a.sampleRate)),
    });
  }
  return plans;
}

/** The chunks of both tracks in file order: second by second, video before audio. */
function interleave(plans: TrackPlan[]): Chunk[] {
  const second = (c: Chunk, p: TrackPlan) => Math.floor((c.first * p.sampleTicks) / p.timescale);
  return plans
    .flatMap((p) => p.chunks.map((c) => ({ c, key: second(c, p) })))
    .sort((x, y) => x.key - y.key || x.c.track - y.c.track)
    .map((x) => x.c);
}

function writeMoov(w: ByteWriter, o: MuxOptions, plans: TrackPlan[]): void {
  const mov = o.container === "mov";
  const [video, audio] = plans as [TrackPlan, TrackPlan | undefined];
  w.box("moov", () => {
    w.fullBox("mvhd", 0, 0, () => {
      w.u32(0);
      w.u32(0);
      w.u32(MOVIE_TIMESCALE);
      w.u32(Math.max(...plans.map((p) => p.movieDuration)));
      w.u32(0x10000); // rate 1.0
      w.u16(0x0100); // volume 1.0
      w.zeros(10);
      writeMatrix(w);
      w.zeros(24); // pre_defined
      w.u32(plans.length + 1); // next_track_ID
    });
    const sync = o.video.samples.flatMap((s, i) => (s.isKeyframe ? [i + 1] : []));
    writeTrak(w, mov, video, "vide", o, () => writeSampleTables(w, video, () => writeAvc1(w, o), sync));
    const a = o.audio;
    if (audio && a) writeTrak(w, mov, audio, "soun", o, () => writeSampleTables(w, audio, () => writeMp4a(w, a, audio)));
  });
}

export function muxMp4(o: MuxOptions): Uint8Array {
  if (o.video.samples.length === 0) throw new RangeError("no video samples");
  const plans = planTracks(o);
  const order = interleave(plans);
  const payloads = [o.video.samples.map((s) => s.data), o.audio?.frames ?? []] as const;

  const head = new ByteWriter(4096);
  head.box("ftyp", () => {
    if (o.container === "mov") {
      head.fourcc("qt  ");
      head.u32(0x00000200);
      head.fourcc("qt  ");
    } else {
      head.fourcc("isom");
      head.u32(0x00000200);
      for (const b of ["isom", "iso2", "avc1", "mp41"]) head.fourcc(b);
    }
  });
  // The moov's size does not depend on the chunk offsets it holds: write it once to learn where
  // the mdat starts, then again with the real offsets.
  const ftypEnd = head.pos;
  writeMoov(head, o, plans);
  const mdatStart = head.pos;
  let offset = mdatStart + 8;
  for (const c of order) {
    c.offset = offset;
    for (let i = 0; i < c.count; i++) offset += (payloads[c.track][c.first + i] as Uint8Array).length;
  }
  if (offset > MAX_UINT32) throw new RangeError("file would exceed 4 GiB; stco offsets are 32-bit");
  head.pos = ftypEnd;
  writeMoov(head, o, plans);
  head.u32(offset - mdatStart);
  head.fourcc("mdat");

  const out = new Uint8Array(offset);
  out.set(head.finish(), 0);
  let at = head.pos;
  for (const c of order)
    for (let i = 0; i < c.count; i++) {
      const p = payloads[c.track][c.first + i] as Uint8Array;
      out.set(p, at);
      at += p.length;
    }
  return out;
}
