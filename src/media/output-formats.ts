/**
 * What the sandbox's encoders (src/sandbox-worker/encode) can make, as plain data (no codec is loaded here),
 * so that admission, the catalog check and the tests read the same list the sandbox encodes from.
 * A request for anything else is refused at admission, never failed after it.
 */

/** Media types per output kind: PNG (fast-png), JPEG (jpeg-js), WebP (libwebp, webp.ts); MP3
 * (lamejs), WAV, raw PCM, FLAC, Ogg Opus (libopus, ogg-opus.ts); H.264 in MP4 or QuickTime. */
export const SANDBOX_OUTPUT_FORMATS = {
  image: ["image/png", "image/jpeg", "image/webp"],
  audio: ["audio/mpeg", "audio/wav", "audio/flac", "audio/pcm", "audio/ogg"],
  video: ["video/mp4", "video/quicktime"],
} as const satisfies Record<"image" | "audio" | "video", readonly string[]>;

/** The API's format words (`output_format`, speech and music `format`) as media types. */
const WORDS: Record<string, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  webp: "image/webp",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  flac: "audio/flac",
  pcm: "audio/pcm",
  // Opus is delivered in its Ogg encapsulation (RFC 7845).
  opus: "audio/ogg",
  ogg: "audio/ogg",
  mp4: "video/mp4",
  mov: "video/quicktime",
};

/** A format word (or a media type already) as a media type; an unknown word names a type nothing here makes. */
export function formatMime(kind: "image" | "audio" | "video", format: string): string {
  const f = format.trim().toLowerCase();
  if (f.includes("/")) return f;
  return WORDS[f] ?? `${kind}/${f}`;
}
