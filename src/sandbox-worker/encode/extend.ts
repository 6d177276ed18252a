/**
 * A simulated video extension that keeps its source: the source's H.264 samples as they were, and
 * new frames after them (or before them), so the clip starts (or ends) with the source exactly.
 * The new frames are this package's own H.264 under a second sample entry (avc3, their own SPS
 * and PPS under ids the source does not use, repeated in-band at each new keyframe), so no source
 * frame is decoded or re-encoded.
 *
 * Audio: the source's track is kept sample for sample and padded with silence over the added
 * seconds, in its own codec where this package can write silence (AAC-LC, MP3); any other audio
 * codec is kept as it was, shorter than the video (and, before, delayed by an empty edit).
 * Tracks other than the first video and first audio track are not carried over.
 */
import { BitWriter } from "./bits";
import { ByteWriter } from "./bytes";
import { mp3Frames, splitMp3 } from "./mp3";
import { writeAvc1 } from "./mp4";
import { type ReadSample, type ReadTrack, readMp4 } from "./mp4-read";
import { type WriteTrack, writeMp4 } from "./mp4-write";
import { renderVideo } from "./video";

export interface ExtendOptions {
  direction: "before" | "after";
  /** Seconds to add; rounded to whole frames of the source's frame rate. */
  seconds: number;
  seed: number;
  /** Upper bound on the new frames' keyframe bytes (see renderVideo). */
  maxBytes?: number;
}

export interface Extension {
  bytes: Uint8Array;
  width: number;
  height: number;
  fps: number;
  sourceFrames: number;
  addedFrames: number;
  /** Seconds of the whole clip, as its video track presents it. */
  seconds: number;
  audio: "padded_with_silence" | "kept_unextended" | "none";
  /** The clip's last picture (RGB) when it is a new frame, that is when extending after the source. */
  lastFrame?: { width: number; height: number; rgb: Uint8Array };
}

const text = (d: Uint8Array, o: number) => String.fromCharCode(...d.subarray(o, o + 4));
const u16 = (d: Uint8Array, o: number) => ((d[o] as number) << 8) | (d[o + 1] as number);
const sum = (samples: ReadSample[]) => samples.reduce((n, s) => n + s.duration, 0);

/** The most common sample duration: the frame duration of a constant-rate clip. */
function frameTicks(samples: ReadSample[]): number {
  const counts = new Map<number, number>();
  for (const s of samples) counts.set(s.duration, (counts.get(s.duration) ?? 0) + 1);
  return [...counts].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
}

/** The first descriptor with `tag` inside an esds payload (ISO 14496-1 expandable sizes). */
function descriptor(d: Uint8Array, start: number, end: number, tag: number): { start: number; end: number } | undefined {
  for (let off = start; off < end; ) {
    const t = d[off++] as number;
    let size = 0;
    for (let i = 0; i < 4 && off < end; i++) {
      const b = d[off++] as number;
      size = (size << 7) | (b & 0x7f);
      if (!(b & 0x80)) break;
    }
    if (t === tag) return { start: off, end: Math.min(end, off + size) };
    // ES_Descriptor (3) and DecoderConfigDescriptor (4) hold other descriptors after fixed fields.
    if (t === 3) return descriptor(d, off + 3, Math.min(end, off + size), tag);
    if (t === 4) return descriptor(d, off + 13, Math.min(end, off + size), tag);
    off += size;
  }
  return undefined;
}

interface SilenceCodec {
  /** One silent frame's bytes and its duration in track ticks. */
  frame: Uint8Array;
  ticks: number;
}

/** An AAC-LC raw_data_block with no spectral data: SCE (mono) or CPE (stereo), then END. */
function silentAac(channels: 1 | 2): Uint8Array {
  const w = new BitWriter(16);
  const ics = () => {
    w.bits(100, 8); // global_gain (no band carries any coefficient)
    w.bits(0, 1); // ics_reserved_bit
    w.bits(0, 2); // window_sequence: ONLY_LONG_SEQUENCE
    w.bits(0, 1); // window_shape
    w.bits(0, 6); // max_sfb 0: no sections, scale factors or spectral data
    w.bits(0, 1); // predictor_data_present
    w.bits(0, 3); // pulse, TNS and gain control data absent
  };
  w.bits(channels === 1 ? 0 : 1, 3); // id_syn_ele: SCE or CPE
  w.bits(0, 4); // element_instance_tag
  if (channels === 2) w.bits(0, 1); // common_window
  ics();
  if (channels === 2) ics();
  w.bits(7, 3); // ID_END
  w.alignZero();
  return w.finish();
}

/** Silence in the audio track's own codec, or undefined when this package cannot write it. */
function silenceFor(track: ReadTrack): SilenceCodec | undefined {
  const entry = track.entries[(track.samples[0]?.entry ?? 1) - 1];
  if (!entry || entry.length < 36) return undefined;
  const type = text(entry, 4);
  const rate = u16(entry, 32);
  const mp3 = (): SilenceCodec | undefined => {
    // The first frame's header, not the sample entry (writers put 2 channels there for mono MP3).
    const first = track.samples[0]?.data;
    const frameRate = first && splitMp3(first).sampleRate;
    if (!first || !frameRate) return undefined;
    const channels = (first[3] as number) >> 6 === 3 ? 1 : 2;
    // The first frame: it owes nothing to a bit reservoir (main_data_begin 0), so it stands alone.
    const stream = mp3Frames(new Int16Array(1152 * 4 * channels), frameRate, channels, 64 * channels);
    const frame = stream.frames[0];
    if (!frame || stream.sampleRate !== frameRate) return undefined;
    return { frame, ticks: Math.round((stream.samplesPerFrame * track.timescale) / frameRate) };
  };
  if (type === ".mp3") return mp3();
  if (type !== "mp4a") return undefined;
  // The esds box follows the 28-byte audio sample entry fields.
  let esds: { start: number; end: number } | undefined;
  for (let off = 36; off + 8 <= entry.length; ) {
    const size = (((entry[off] as number) << 24) | (u16(entry, off + 1) << 8) | (entry[off + 3] as number)) >>> 0;
    if (size < 8 || off + size > entry.length) break;
    if (text(entry, off + 4) === "esds") esds = { start: off + 12, end: off + size };
    off += size;
  }
  if (!esds) return undefined;
  const config = descriptor(entry, esds.start, esds.end, 4);
  const oti = config ? entry[config.start] : undefined;
  if (oti === 0x6b || oti === 0x69) return mp3();
  if (oti !== 0x40) return undefined;
  const asc = descriptor(entry, esds.start, esds.end, 5);
  if (!asc || asc.end - asc.start < 2) return undefined;
  const objectType = (entry[asc.start] as number) >> 3;
  const channelConfig = ((entry[asc.start + 1] as number) >> 3) & 0x0f;
  if (objectType !== 2 || (channelConfig !== 1 && channelConfig !== 2)) return undefined;
  return { frame: silentAac(channelConfig), ticks: Math.round((1024 * track.timescale) / (rate || track.timescale)) };
}

function extendAudio(track: ReadTrack, o: ExtendOptions, addedSeconds: number): { track: WriteTrack; padded: boolean } {
  const start = track.edit?.mediaTime ?? 0;
  const shown = track.edit?.mediaTicks ?? sum(track.samples);
  const added = Math.round(addedSeconds * track.timescale);
  const silence = silenceFor(track);
  if (!silence) {
    // Kept as it was: after the source it simply ends early; before it, it waits for the source.
    const delay = o.direction === "before" ? Math.round(addedSeconds * 1000) : undefined;
    return { track: { ...track, ...(delay ? { delay } : {}) }, padded: false };
  }
  const entry = track.samples[0]?.entry ?? 1;
  const frames = (n: number): ReadSample[] =>
    Array.from({ length: Math.max(0, n) }, () => ({ data: silence.frame, duration: silence.ticks, sync: true, cto: 0, entry }));
  if (o.direction === "after") {
    const missing = start + shown + added - sum(track.samples);
    const samples = [...track.samples, ...frames(Math.ceil(missing / silence.ticks))];
    return { track: { ...track, samples, edit: { mediaTime: start, mediaTicks: shown + added } }, padded: true };
  }
  const count = Math.ceil(added / silence.ticks);
  const samples = [...frames(count), ...track.samples];
  return {
    track: { ...track, samples, edit: { mediaTime: start + count * silence.ticks - added, mediaTicks: added + shown } },
    padded: true,
  };
}

/** Reads ue(v) values from the start of an RBSP (enough for the ids at the head of an SPS or PPS). */
function leadingUe(rbsp: Uint8Array, count: number, skipBytes: number): number[] {
  let bit = skipBytes * 8;
  const next = () => ((rbsp[bit >> 3] ?? 0) >> (7 - (bit++ & 7))) & 1;
  const out: number[] = [];
  for (let k = 0; k < count; k++) {
    let zeros = 0;
    while (next() === 0 && zeros < 32) zeros++;
    let v = 0;
    for (let i = 0; i < zeros; i++) v = v * 2 + next();
    out.push(2 ** zeros - 1 + v);
  }
  return out;
}

/**
 * Parameter set ids the source's avcC does not use, so that the new frames' SPS and PPS (in their
 * own sample entry and in-band) never replace the source's in a decoder that keeps both.
 */
function freeParameterSetIds(entry: Uint8Array): { spsId: number; ppsId: number } {
  const used = { sps: new Set<number>(), pps: new Set<number>() };
  // The visual sample entry's fixed fields take 78 bytes after its header: its child boxes start at 86.
  for (let off = 86; off + 8 <= entry.length; ) {
    const size = (((entry[off] as number) << 24) | (u16(entry, off + 1) << 8) | (entry[off + 3] as number)) >>> 0;
    if (size < 8 || off + size > entry.length) break;
    if (text(entry, off + 4) === "avcC") {
      let at = off + 8 + 5;
      const spsCount = (entry[at++] as number) & 0x1f;
      for (let i = 0; i < spsCount && at + 2 <= off + size; i++) {
        const len = u16(entry, at);
        used.sps.add(leadingUe(entry.subarray(at + 2, at + 2 + len), 1, 4)[0] as number);
        at += 2 + len;
      }
      const ppsCount = entry[at++] ?? 0;
      for (let i = 0; i < ppsCount && at + 2 <= off + size; i++) {
        const len = u16(entry, at);
        used.pps.add(leadingUe(entry.subarray(at + 2, at + 2 + len), 1, 1)[0] as number);
        at += 2 + len;
      }
    }
    off += size;
  }
  let spsId = 31;
  while (used.sps.has(spsId) && spsId > 0) spsId--;
  let ppsId = 255;
  while (used.pps.has(ppsId) && ppsId > 0) ppsId--;
  return { spsId, ppsId };
}

/** The extended clip, or why the source cannot be kept (no unfragmented MP4/MOV with H.264 samples). */
export function extendClip(source: Uint8Array, o: ExtendOptions): Extension | { unreadable: string } {
  const movie = readMp4(source);
  if (!movie) return { unreadable: "the source is not an unfragmented MP4/MOV this simulator reads" };
  const video = movie.tracks.find((t) => t.handler === "vide" && t.samples.length > 0);
  const videoEntry = video?.entries[(video.samples[0]?.entry ?? 1) - 1];
  if (!video || !videoEntry || !["avc1", "avc3"].includes(text(videoEntry, 4)))
    return { unreadable: "the source has no H.264 video samples" };
  const ticks = frameTicks(video.samples);
  const fps = video.timescale / ticks;
  // The new frames' size: the source's coded size, in whole chroma samples.
  const width = Math.max(2, u16(videoEntry, 32) & ~1);
  const height = Math.max(2, u16(videoEntry, 34) & ~1);
  const added = Math.max(1, Math.round((o.seconds * video.timescale) / ticks));
  const rendered = renderVideo({
    width,
    height,
    fps,
    seconds: added / fps,
    seed: o.seed,
    parameterSets: { ...freeParameterSetIds(videoEntry), inBand: true },
    ...(o.maxBytes ? { maxBytes: o.maxBytes } : {}),
  });
  // An avc3 entry: its parameter sets may also travel in-band, as they do at each new keyframe, so
  // a player that does not switch sample entries still finds them before the new frames.
  const entryWriter = new ByteWriter(1024);
  writeAvc1(entryWriter, { width, height, video: rendered.video }, "avc3");
  const entries = [...video.entries, entryWriter.finish()];

  const start = video.edit?.mediaTime ?? 0;
  const shown = video.edit?.mediaTicks ?? sum(video.samples);
  // Composition offsets place the new frames right after (or before) what the source presents.
  const cto = o.direction === "after" ? start + shown - sum(video.samples) : start;
  const fresh: ReadSample[] = rendered.video.samples.map((s) => ({
    data: s.data,
    duration: ticks,
    sync: s.isKeyframe,
    cto,
    entry: entries.length,
  }));
  const samples = o.direction === "after" ? [...video.samples, ...fresh] : [...fresh, ...video.samples];
  const out: WriteTrack[] = [
    {
      ...video,
      entries,
      samples,
      width: video.width || width,
      height: video.height || height,
      ...(video.edit ? { edit: { mediaTime: start, mediaTicks: shown + added * ticks } } : {}),
    },
  ];
  const addedSeconds = (added * ticks) / video.timescale;
  const audio = movie.tracks.find((t) => t.handler === "soun" && t.samples.length > 0);
  const extended = audio && extendAudio(audio, o, addedSeconds);
  if (extended) out.push(extended.track);
  return {
    bytes: writeMp4(out),
    width: video.width || width,
    height: video.height || height,
    fps,
    sourceFrames: video.samples.length,
    addedFrames: added,
    seconds: (shown + added * ticks) / video.timescale,
    audio: !extended ? "none" : extended.padded ? "padded_with_silence" : "kept_unextended",
    ...(o.direction === "after" ? { lastFrame: { width, height, rgb: rendered.lastFrameRgb } } : {}),
  };
}
