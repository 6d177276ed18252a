/**
 * Artifact downloads: through the artifact's signed URL while it is valid (no key needed), else
 * `GET /v1/artifacts/{id}` with the key. Saving to a path writes a temporary file beside it and
 * renames it once whole, so an interrupted download never leaves a truncated file under the name.
 */
import { MediaApiError, MediaConnectionError } from "./errors.js";
import type { RequestOptions, Transport } from "./transport.js";
import type { ArtifactRef } from "./types.js";

export interface DownloadResult {
  data: Uint8Array;
  contentType: string;
  bytes: number;
}

export interface SavedFile {
  path: string;
  contentType: string;
  bytes: number;
}

/** A signed URL is used only with this much of its life left. */
const SIGNED_URL_MARGIN_MS = 30_000;
/** Downloads whose body broke off are started again this many times. */
const BODY_RETRIES = 2;

function liveSignedUrl(a: ArtifactRef): string | undefined {
  if (!a.signed_url) return undefined;
  const until = a.signed_url_expires_at ? Date.parse(a.signed_url_expires_at) : Number.NaN;
  return Number.isNaN(until) || until - Date.now() > SIGNED_URL_MARGIN_MS ? a.signed_url : undefined;
}

async function open(transport: Transport, a: ArtifactRef, options: RequestOptions): Promise<Response> {
  const signed = liveSignedUrl(a);
  if (signed) {
    try {
      return await transport.send("GET", transport.resolve(signed), { ...options, accept: "*/*" }, false);
    } catch (e) {
      // An expired or revoked link: the key still reaches the artifact.
      if (!(e instanceof MediaApiError && e.status === 404 && a.artifact_id)) throw e;
    }
  }
  if (!a.artifact_id) throw new TypeError("the artifact has neither an id nor a live signed URL");
  return transport.call("downloadArtifact", { ...options, path: { artifact_id: a.artifact_id }, accept: "*/*" });
}

export async function downloadArtifact(
  transport: Transport,
  artifact: string | ArtifactRef,
  path: string | undefined,
  options: RequestOptions = {},
): Promise<DownloadResult | SavedFile> {
  const a: ArtifactRef = typeof artifact === "string" ? { artifact_id: artifact } : artifact;
  for (let attempt = 0; ; attempt++) {
    const res = await open(transport, a, options);
    const contentType = res.headers.get("content-type") ?? a.content_type ?? "application/octet-stream";
    try {
      if (path === undefined) {
        const data = new Uint8Array(await res.arrayBuffer());
        return { data, contentType, bytes: data.byteLength };
      }
      return { path, contentType, bytes: await save(res, path) };
    } catch (e) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (attempt >= BODY_RETRIES)
        throw new MediaConnectionError(`the download of ${a.artifact_id || "the artifact"} broke off`, e);
    }
  }
}

async function save(res: Response, path: string): Promise<number> {
  const [{ createWriteStream }, { rename, rm }, { Readable }, { pipeline }] = await Promise.all([
    import("node:fs"),
    import("node:fs/promises"),
    import("node:stream"),
    import("node:stream/promises"),
  ]);
  const partial = `${path}.part-${process.pid}-${Date.now()}`;
  let bytes = 0;
  try {
    const body = res.body ? Readable.fromWeb(res.body as never) : Readable.from([]);
    body.on("data", (chunk: Uint8Array) => {
      bytes += chunk.byteLength;
    });
    await pipeline(body, createWriteStream(partial));
    await rename(partial, path);
    return bytes;
  } catch (e) {
    await rm(partial, { force: true });
    throw e;
  }
}
