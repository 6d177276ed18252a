/** WebM (EBML): the DocType, then Info and Tracks up to the first cluster. */
import { ascii, u8 } from "./bytes";
import { type Facts, fail, Malformed, Unsupported } from "./facts";

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

export function probeWebm(d: Uint8Array): Facts {
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
