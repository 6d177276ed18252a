/**
 * Headers of every answer that serves stored bytes (an output, an upload, an input read by an
 * upstream, a voice preview): bytes made by a model or sent by a client, never a page of this
 * service, so a browser must neither guess another type for them nor run anything in them.
 */
import { EXTENSIONS } from "../media/extensions";

/** On every stored-bytes answer, whatever the route. */
export const STORED_BYTES_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  // Opened directly, an image or a clip still shows; anything else loads and runs nothing.
  "Content-Security-Policy": "default-src 'none'; img-src 'self'; media-src 'self'; sandbox",
};

/**
 * `Content-Disposition` for stored bytes named `name`: shown in place when they are media a
 * browser plays or shows, saved as a file otherwise; the file name is the id and its extension.
 */
export function contentDisposition(name: string, contentType: string): string {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  const ext = EXTENSIONS[type] ?? "bin";
  const inline = /^(image|audio|video)\//.test(type);
  // Ids are ASCII letters, digits and underscores; anything else is dropped rather than quoted.
  return `${inline ? "inline" : "attachment"}; filename="${name.replace(/[^\w.-]/g, "")}.${ext}"`;
}
