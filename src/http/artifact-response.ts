/**
 * An artifact's bytes as an HTTP answer, with byte ranges (src/http/range.ts): the one way both the
 * owner's `GET /v1/artifacts/{id}` and the signed `GET /files/{id}` serve a stored output.
 */
import type { Context } from "hono";
import type { ApiError } from "../errors/api-error";
import { artifactKey } from "../media/artifacts";
import type { AppEnv } from "./context";
import { decideRange } from "./range";
import { contentDisposition, STORED_BYTES_HEADERS } from "./stored-bytes";

export interface ArtifactAnswer {
  /** The artifact's metadata, already found and authorised by the caller. */
  head: R2Object;
  cacheControl: string;
  /** Said when the object disappears between its metadata and its bytes. */
  notFound: () => ApiError;
  headers?: Record<string, string>;
}

export async function artifactResponse(c: Context<AppEnv>, id: string, answer: ArtifactAnswer): Promise<Response> {
  const { head } = answer;
  const contentType = head.httpMetadata?.contentType ?? "application/octet-stream";
  const headers = new Headers({
    ...STORED_BYTES_HEADERS,
    "Content-Type": contentType,
    "Content-Disposition": contentDisposition(id, contentType),
    "Accept-Ranges": "bytes",
    "Cache-Control": answer.cacheControl,
    ETag: head.httpEtag,
    "X-Request-Id": c.get("requestId"),
    ...answer.headers,
  });
  const range = decideRange(c.req.header("Range"), head.size);
  if (range.kind === "unsatisfiable") {
    headers.set("Content-Range", `bytes */${head.size}`);
    headers.delete("Content-Type");
    return new Response(null, { status: 416, headers });
  }
  const object = await c.env.ARTIFACTS.get(
    artifactKey(id),
    range.kind === "partial" ? { range: { offset: range.offset, length: range.length } } : undefined,
  );
  if (!object) throw answer.notFound();
  if (range.kind === "partial") {
    headers.set("Content-Range", `bytes ${range.offset}-${range.offset + range.length - 1}/${head.size}`);
    headers.set("Content-Length", String(range.length));
    return new Response(object.body, { status: 206, headers });
  }
  headers.set("Content-Length", String(head.size));
  return new Response(object.body, { status: 200, headers });
}
