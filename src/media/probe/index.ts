/**
 * Identifies media by its leading bytes (a declared content type is never trusted) and reads the
 * facts admission needs from the container headers alone: no decoding, one linear pass at most.
 * Every read is bounds-checked, so any input ends either in a result or in an ApiError:
 * unknown magic is `unsupported_media_type`, a known format that is truncated or inconsistent is
 * `invalid_media`.
 */
import { ApiError } from "../../errors/api-error";
import { clause } from "../../errors/sentence";
import { at } from "./bytes";
import { type Facts, Malformed, type ProbedMedia, Unsupported } from "./facts";
import { probeFlac } from "./flac";
import { probeGif } from "./gif";
import { probeJpeg } from "./jpeg";
import { isMpegSync, probeMp3, skipId3v2 } from "./mp3";
import { LEGACY_QT_FIRST_BOXES, probeIsoBmff } from "./mp4";
import { probeOgg } from "./ogg";
import { PNG_SIGNATURE, probePng } from "./png";
import { probeWav } from "./wav";
import { probeWebm } from "./webm";
import { probeWebp } from "./webp";

export type { ProbedMedia } from "./facts";
export { imageSizeFromHeader } from "./image-header";
export { mpegAudioStart, mpegFrameLength } from "./mp3";

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
