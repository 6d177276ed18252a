/**
 * A fal result in the service's terms. Image endpoints answer `{images: [{url, width, height,
 * content_type, file_name, file_size}], seed, has_nsfw_concepts?: boolean[]}` (some answer one
 * `image`); video endpoints answer `{video: {url, content_type, file_name, file_size}}`. The URLs
 * are fal's storage, handed to the service to download into its own (they expire).
 */
import type { ProviderConfig } from "../config";
import { malformed } from "../http";
import type { ProviderJob } from "../jobs";
import { ProviderError, type ProviderOutput, type ProviderResult } from "../types";
import { extensionSeconds } from "./inputs";

interface FalFile {
  url?: unknown;
  content_type?: unknown;
  width?: unknown;
  height?: unknown;
}

export interface FalResult {
  images?: unknown;
  image?: unknown;
  video?: unknown;
  videos?: unknown;
  seed?: unknown;
  has_nsfw_concepts?: unknown;
}

const VIDEO_CAPS = new Set(["text_to_video", "image_to_video", "reference_to_video", "frames_to_video", "video_extend"]);

/** fal's flag for outputs its safety checker caught (the image is blanked, not withheld). */
export function nsfwFlagged(body: unknown): boolean {
  const flags = (body as FalResult | null)?.has_nsfw_concepts;
  return flags === true || (Array.isArray(flags) && flags.some((f) => f === true));
}

export function contentFiltered(config: ProviderConfig): ProviderError {
  return new ProviderError("content_filtered", `${config.name}'s safety checker flagged the generated output.`, {
    retryable: false,
  });
}

function positive(n: unknown): number | undefined {
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : undefined;
}

/** A `data:` URI (fal's `sync_mode` answer) as bytes; otherwise the http(s) URL to download. */
function source(url: string): { bytes: Uint8Array; content_type?: string } | { url: string } | null {
  if (/^https?:\/\//i.test(url)) return { url };
  const m = /^data:([^;,]+)?((?:;[^;,]*)*?);base64,(.*)$/s.exec(url);
  if (!m) return null;
  try {
    const raw = atob(m[3] as string);
    const bytes = Uint8Array.from(raw, (c) => c.charCodeAt(0));
    return m[1] ? { bytes, content_type: m[1] } : { bytes };
  } catch {
    return null;
  }
}

function files(body: FalResult, kind: "image" | "video"): FalFile[] {
  const many = kind === "image" ? body.images : body.videos;
  const one = kind === "image" ? body.image : body.video;
  const list = Array.isArray(many) ? many : one && typeof one === "object" ? [one] : [];
  return list.filter((f): f is FalFile => !!f && typeof f === "object");
}

function output(config: ProviderConfig, kind: "image" | "video", file: FalFile, index: number): ProviderOutput {
  const src = typeof file.url === "string" ? source(file.url) : null;
  if (!src) throw malformed(config, `${kind} ${index} has no downloadable url`);
  const declared =
    typeof file.content_type === "string" && /^[a-z]+\/[a-z0-9.+-]+$/i.test(file.content_type) ? file.content_type : undefined;
  const type = "bytes" in src ? (src.content_type ?? declared) : declared;
  if ("bytes" in src && !type) throw malformed(config, `${kind} ${index} is inline data without a type`);
  const width = positive(file.width);
  const height = positive(file.height);
  const base = {
    kind,
    index,
    ...(type ? { content_type: type } : {}),
    ...(width && height ? { width, height } : {}),
  };
  return "bytes" in src ? { ...base, bytes: src.bytes } : { ...base, url: src.url };
}

/** The outputs of a successful result; a flagged, empty or malformed one throws. */
export function resultOf(config: ProviderConfig, job: ProviderJob, body: unknown, requestId: string): ProviderResult {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw malformed(config, "the result is not an object");
  if (nsfwFlagged(body)) throw contentFiltered(config);
  const kind = VIDEO_CAPS.has(job.capability) ? "video" : "image";
  const found = files(body as FalResult, kind);
  if (found.length === 0) throw malformed(config, kind === "video" ? "no video in the result" : "no images in the result");
  const outputs = found.map((f, i) => output(config, kind, f, i));
  const seed = (body as FalResult).seed;
  const usage: Record<string, number> = {};
  // The service measures stored outputs; an extension's generated seconds cannot be told from the
  // returned clip, so the length asked of fal (what it bills) is reported.
  if (job.capability === "video_extend") usage.generated_video_seconds = extensionSeconds(job);
  return {
    outputs,
    usage,
    metadata: { request_id: requestId, ...(typeof seed === "number" && Number.isSafeInteger(seed) ? { seed } : {}) },
  };
}
