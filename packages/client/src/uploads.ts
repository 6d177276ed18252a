/** Uploads (`POST /v1/uploads`): the file is the body, sent with its media type. */
import { sniffMediaType, typeByName } from "./media-types.js";
import type { RequestOptions, Transport } from "./transport.js";

export type UploadData = Blob | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array>;

export interface UploadOptions extends RequestOptions {
  /** The file's media type; told from its first bytes (or name) when omitted. */
  contentType?: string;
}

async function headOf(data: UploadData): Promise<Uint8Array | undefined> {
  if (data instanceof Uint8Array) return data.subarray(0, 64);
  if (data instanceof ArrayBuffer) return new Uint8Array(data, 0, Math.min(64, data.byteLength));
  if (typeof Blob !== "undefined" && data instanceof Blob) return new Uint8Array(await data.slice(0, 64).arrayBuffer());
  return undefined;
}

export async function createUpload(transport: Transport, data: UploadData, options: UploadOptions = {}): Promise<unknown> {
  const { contentType, ...rest } = options;
  const blobType = typeof Blob !== "undefined" && data instanceof Blob && data.type ? data.type : undefined;
  const head = contentType || blobType ? undefined : await headOf(data);
  const type = contentType ?? blobType ?? (head && sniffMediaType(head)) ?? "application/octet-stream";
  const res = await transport.call("createUpload", { ...rest, rawBody: data, contentType: type });
  return res.json();
}

/** A local file, read from disk as it is sent (and again on a retry). */
export async function createFromFile(transport: Transport, path: string, options: UploadOptions = {}): Promise<unknown> {
  const { openAsBlob } = await import("node:fs");
  const blob = await openAsBlob(path);
  const head = new Uint8Array(await blob.slice(0, 64).arrayBuffer());
  const contentType = options.contentType ?? sniffMediaType(head) ?? typeByName(path) ?? "application/octet-stream";
  return createUpload(transport, blob, { ...options, contentType });
}
