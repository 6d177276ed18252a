/**
 * Media types by their first bytes or a file name (what an upload is sent as), and the file
 * extension an output is saved with. The server identifies every file by its bytes itself; this
 * only labels what the client sends and names what it saves.
 */

const ascii = (bytes: Uint8Array, at: number, text: string) =>
  bytes.length >= at + text.length && [...text].every((c, i) => bytes[at + i] === c.charCodeAt(0));

/** The media type the first bytes (at least 12) announce, when they are one the API reads. */
export function sniffMediaType(head: Uint8Array): string | undefined {
  if (ascii(head, 0, "\x89PNG")) return "image/png";
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (ascii(head, 0, "GIF8")) return "image/gif";
  if (ascii(head, 0, "RIFF") && ascii(head, 8, "WEBP")) return "image/webp";
  if (ascii(head, 0, "RIFF") && ascii(head, 8, "WAVE")) return "audio/wav";
  if (ascii(head, 4, "ftyp")) {
    if (ascii(head, 8, "qt  ")) return "video/quicktime";
    if (ascii(head, 8, "M4A ")) return "audio/mp4";
    return "video/mp4";
  }
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return "video/webm";
  if (ascii(head, 0, "fLaC")) return "audio/flac";
  if (ascii(head, 0, "OggS")) return "audio/ogg";
  if (ascii(head, 0, "ID3") || (head[0] === 0xff && ((head[1] ?? 0) & 0xe0) === 0xe0)) return "audio/mpeg";
  return undefined;
}

const BY_EXTENSION: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  mp4: "video/mp4",
  m4v: "video/mp4",
  mov: "video/quicktime",
  webm: "video/webm",
  wav: "audio/wav",
  mp3: "audio/mpeg",
  flac: "audio/flac",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  opus: "audio/ogg",
  m4a: "audio/mp4",
};

export function typeByName(name: string): string | undefined {
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(name)?.[1]?.toLowerCase();
  return ext ? BY_EXTENSION[ext] : undefined;
}

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "video/mp4": "mp4",
  "video/quicktime": "mov",
  "video/webm": "webm",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/wave": "wav",
  "audio/mpeg": "mp3",
  "audio/flac": "flac",
  "audio/ogg": "ogg",
  "audio/opus": "opus",
  "audio/mp4": "m4a",
  "audio/pcm": "pcm",
  "audio/l16": "pcm",
  "text/plain": "txt",
  "application/json": "json",
};

/** The extension to save a file of this type with (`bin` when unknown). */
export function extensionFor(contentType: string | undefined): string {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return EXTENSIONS[type] ?? "bin";
}

/** `image`, `video` or `audio` for a media type. */
export function kindOf(contentType: string | undefined): "image" | "video" | "audio" | undefined {
  const top = (contentType ?? "").split("/")[0]?.toLowerCase();
  return top === "image" || top === "video" || top === "audio" ? top : undefined;
}
