/**
 * How a job's stored inputs reach Gemini. The Gemini API takes media inline (base64 in the JSON
 * body; Google raised that limit to 100 MB per request in 2026) or as a file uploaded to its Files
 * API (up to 2 GB, kept 48 hours) and named by URI. Images and short clips go inline; a video above
 * PROVIDER_GOOGLE_INLINE_MAX_BYTES (20 MiB by default: its base64 stays far below Google's limit and
 * a Worker's memory) is uploaded, read from R2 in 8 MiB slices so it is never held whole.
 *
 * The Files API's resumable protocol (as the official SDK speaks it):
 *   POST /upload/v1beta/files  X-Goog-Upload-Protocol: resumable, X-Goog-Upload-Command: start,
 *        X-Goog-Upload-Header-Content-Length / -Content-Type, body {file: {display_name}}
 *        → 200 with the session in `x-goog-upload-url`
 *   POST <session>  X-Goog-Upload-Command: upload (the last slice: "upload, finalize"),
 *        X-Goog-Upload-Offset → `x-goog-upload-status: active`, then `final` with {file: File}
 *   GET  /v1beta/files/{id} → File {name, uri, mimeType, state: PROCESSING | ACTIVE | FAILED}
 *   DELETE /v1beta/files/{id}
 * Videos are processed after upload and may be used only once ACTIVE.
 */

import type { ProviderContext } from "../adapter";
import { malformed, readJson } from "../http";
import type { JobInput } from "../jobs";
import { safeProviderMessage } from "../messages";
import { ProviderError } from "../types";
import { API_VERSION, googleCall, toBase64 } from "./client";

export const INLINE_MAX_BYTES = 20 * 1024 * 1024;
const SLICE_BYTES = 8 * 1024 * 1024;
/** How long a freshly uploaded video may stay PROCESSING before the submission gives up (and is retried). */
const ACTIVE_WAIT_MS = 5 * 60 * 1000;

export interface UploadedFile {
  /** `files/{id}` */
  name: string;
  uri: string;
  mimeType: string;
}

/** The inline limit of this deployment (PROVIDER_GOOGLE_INLINE_MAX_BYTES), else the default. */
export function inlineMax(ctx: ProviderContext): number {
  const v = Number(ctx.config.extra.inline_max_bytes);
  return Number.isFinite(v) && v > 0 ? v : INLINE_MAX_BYTES;
}

async function sizeOf(ctx: ProviderContext, input: JobInput): Promise<number> {
  if (typeof input.bytes === "number" && input.bytes > 0) return input.bytes;
  const head = await ctx.env.ARTIFACTS.head(input.key);
  if (!head) throw new ProviderError("model_request_failed", `google: input ${input.field} is no longer stored.`);
  return head.size;
}

async function slice(ctx: ProviderContext, input: JobInput, offset: number, length: number): Promise<Uint8Array> {
  const object = await ctx.env.ARTIFACTS.get(input.key, { range: { offset, length } });
  if (!object) throw new ProviderError("model_request_failed", `google: input ${input.field} is no longer stored.`);
  return new Uint8Array(await object.arrayBuffer());
}

function fileOf(body: unknown): UploadedFile | null {
  const f = (body as { file?: Record<string, unknown> } | null)?.file ?? (body as Record<string, unknown> | null);
  if (!f || typeof f.name !== "string" || typeof f.uri !== "string") return null;
  return { name: f.name, uri: f.uri, mimeType: typeof f.mimeType === "string" ? f.mimeType : "" };
}

/**
 * The upload session on the configured API host (as the official SDK does): the key travels with
 * every slice, so it never goes to a host an answer names, and a proxy base URL keeps working.
 */
export function sessionUrl(given: string | null, baseUrl: string): string | null {
  if (!given) return null;
  try {
    const session = new URL(given);
    const base = new URL(baseUrl);
    if (!/^\/upload\//.test(session.pathname)) return null;
    return `${base.origin}${base.pathname.replace(/\/+$/, "")}${session.pathname}${session.search}`;
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Uploads a stored input to the Files API and waits until Google has processed it. */
export async function uploadFile(ctx: ProviderContext, input: JobInput, size: number): Promise<UploadedFile> {
  const config = ctx.config;
  const start = await googleCall(config, {
    method: "POST",
    path: `/upload/${API_VERSION}/files`,
    headers: {
      "X-Goog-Upload-Protocol": "resumable",
      "X-Goog-Upload-Command": "start",
      "X-Goog-Upload-Header-Content-Length": String(size),
      "X-Goog-Upload-Header-Content-Type": input.mime,
    },
    json: { file: { display_name: `${input.field}-${input.key.split("/").pop() ?? "input"}`.slice(0, 120) } },
    retries: 2,
  });
  await start.body?.cancel();
  const session = sessionUrl(start.headers.get("x-goog-upload-url"), config.baseUrl);
  if (!session) throw malformed(config, "the upload start answer has no usable x-goog-upload-url");
  let file: UploadedFile | null = null;
  for (let offset = 0; offset < size; offset += SLICE_BYTES) {
    const length = Math.min(SLICE_BYTES, size - offset);
    const last = offset + length >= size;
    const res = await googleCall(config, {
      method: "POST",
      path: session,
      headers: {
        "X-Goog-Upload-Command": last ? "upload, finalize" : "upload",
        "X-Goog-Upload-Offset": String(offset),
        "Content-Type": input.mime,
      },
      body: await slice(ctx, input, offset, length),
      timeoutMs: Math.max(config.timeoutMs, 120_000),
      retries: 2,
    });
    const status = res.headers.get("x-goog-upload-status");
    if (!last) {
      await res.body?.cancel();
      if (status !== "active") throw malformed(config, `the upload session answered status "${status ?? "none"}" mid-file`);
      continue;
    }
    if (status !== "final") throw malformed(config, `the upload did not finalize (status "${status ?? "none"}")`);
    file = fileOf(await readJson(config, res));
  }
  if (!file || !/^files\/[A-Za-z0-9_-]{1,128}$/.test(file.name)) throw malformed(config, "the finished upload names no file");
  await waitActive(ctx, file);
  return file;
}

/** Polls the file until ACTIVE; FAILED means Google could not read the media (a refusal, not retried). */
async function waitActive(ctx: ProviderContext, file: UploadedFile): Promise<void> {
  const config = ctx.config;
  const until = Date.now() + ACTIVE_WAIT_MS;
  for (let n = 0; ; n++) {
    const res = await googleCall(config, { path: `/${API_VERSION}/${file.name}`, retries: 2 });
    const body = (await readJson(config, res)) as { state?: unknown; error?: { message?: unknown } };
    const state = typeof body.state === "string" ? body.state : "";
    if (state === "ACTIVE") return;
    if (state === "FAILED") {
      const why =
        typeof body.error?.message === "string" ? `: ${safeProviderMessage(body.error.message, [config.apiKey], 300)}` : "";
      throw new ProviderError("model_request_failed", `google could not process the uploaded ${file.mimeType || "file"}${why}.`);
    }
    if (Date.now() > until) {
      throw new ProviderError("model_timeout", `google was still processing ${file.name} after ${ACTIVE_WAIT_MS / 1000} s.`, {
        retryable: true,
      });
    }
    await sleep(Math.min(5_000, 500 * (n + 1)));
  }
}

/** Best effort: uploaded files expire after 48 hours anyway. */
export async function deleteFiles(ctx: ProviderContext, files: UploadedFile[]): Promise<void> {
  await Promise.all(
    files.map((f) =>
      googleCall(ctx.config, { method: "DELETE", path: `/${API_VERSION}/${f.name}`, retries: 0, timeoutMs: 10_000 })
        .then((r) => r.body?.cancel())
        .catch(() => undefined),
    ),
  );
}

export type Placed = { inline: { bytes: Uint8Array; base64: string } } | { file: UploadedFile };

/** An input inline (its bytes) when small enough, else uploaded (added to `uploaded` for clean-up). */
export async function place(ctx: ProviderContext, input: JobInput, uploaded: UploadedFile[]): Promise<Placed> {
  const size = await sizeOf(ctx, input);
  if (size <= inlineMax(ctx)) {
    const bytes = await ctx.inputs.bytes(input);
    return { inline: { bytes, base64: toBase64(bytes) } };
  }
  const file = await uploadFile(ctx, input, size);
  uploaded.push(file);
  return { file };
}

/** A generateContent part for an input: `inlineData` or `fileData`. */
export async function contentPart(
  ctx: ProviderContext,
  input: JobInput,
  uploaded: UploadedFile[],
): Promise<Record<string, unknown>> {
  const placed = await place(ctx, input, uploaded);
  if ("inline" in placed) return { inlineData: { mimeType: input.mime, data: placed.inline.base64 } };
  return { fileData: { mimeType: placed.file.mimeType || input.mime, fileUri: placed.file.uri } };
}
