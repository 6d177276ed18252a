/**
 * Common files that are not media this service takes, recognised by their leading bytes, so that a
 * client who sends one hears what it sent (`unsupported_media_type`, with the detected type)
 * rather than that its bytes are unreadable (`invalid_media`, for bytes of no known format).
 * Checked before the media formats: AVIF and HEIC images are ISO BMFF files, like MP4.
 */

const ascii = (d: Uint8Array, o: number, n: number) => String.fromCharCode(...d.subarray(o, o + n));

/** ISO BMFF major brands of still images (HEIF and AVIF), which no capability takes. */
const IMAGE_BRANDS: Record<string, string> = {
  avif: "image/avif",
  avis: "image/avif",
  heic: "image/heic",
  heix: "image/heic",
  heim: "image/heic",
  heis: "image/heic",
  hevc: "image/heic-sequence",
  mif1: "image/heif",
  msf1: "image/heif-sequence",
};

function sniffBinary(d: Uint8Array): string | undefined {
  if (ascii(d, 0, 5) === "%PDF-") return "application/pdf";
  if (ascii(d, 0, 4) === "PK\x03\x04") return "application/zip";
  if (d[0] === 0x1f && d[1] === 0x8b) return "application/gzip";
  if (ascii(d, 0, 6) === "7z\xbc\xaf\x27\x1c") return "application/x-7z-compressed";
  if (ascii(d, 0, 4) === "II*\x00" || ascii(d, 0, 4) === "MM\x00*") return "image/tiff";
  if (ascii(d, 0, 4) === "\x00\x00\x01\x00" && d[4] !== undefined && (d[4] | (d[5] ?? 0)) !== 0) return "image/x-icon";
  if (ascii(d, 0, 4) === "RIFF" && ascii(d, 8, 4) === "AVI ") return "video/x-msvideo";
  // BITMAPFILEHEADER: "BM", the file size, then four reserved zero bytes.
  if (ascii(d, 0, 2) === "BM" && d.length >= 14 && d[6] === 0 && d[7] === 0 && d[8] === 0 && d[9] === 0) return "image/bmp";
  return undefined;
}

/** MPEG transport stream: a sync byte every 188 bytes. */
function isTransportStream(d: Uint8Array): boolean {
  return d.length > 376 && d[0] === 0x47 && d[188] === 0x47 && d[376] === 0x47;
}

/** Tab, line feed, form feed and carriage return are text; other C0 controls and DEL are binary. */
function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0c && c !== 0x0d) || c === 0x7f) return true;
  }
  return false;
}

/** Text: valid UTF-8 (a cut character at the end of the sample is fine) without control bytes. */
function sniffText(d: Uint8Array): string | undefined {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(d, { stream: true });
  } catch {
    return undefined;
  }
  if (text.length === 0 || hasControlCharacters(text)) return undefined;
  const start = text
    .replace(/^\ufeff/, "")
    .trimStart()
    .slice(0, 256)
    .toLowerCase();
  if (start.startsWith("<svg") || (start.startsWith("<?xml") && start.includes("<svg"))) return "image/svg+xml";
  if (start.startsWith("<!doctype html") || start.startsWith("<html")) return "text/html";
  if (start.startsWith("<?xml")) return "application/xml";
  if (start.startsWith("{") || start.startsWith("[")) return "application/json";
  return "text/plain";
}

/** The type of a known non-media file from its first bytes (a few KiB is plenty), else undefined. */
export function otherTypeOf(head: Uint8Array): string | undefined {
  // An ISO BMFF file is an image here only by its brand; every other brand is the probe's to judge.
  if (ascii(head, 4, 4) === "ftyp") return IMAGE_BRANDS[ascii(head, 8, 4)];
  return sniffBinary(head) ?? sniffText(head) ?? (isTransportStream(head) ? "video/mp2t" : undefined);
}
