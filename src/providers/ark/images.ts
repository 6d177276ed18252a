/**
 * Seedream through Ark's image generation endpoint (BytePlus "Image Generation API", Volcengine
 * "图片生成 API", the official SDK's `images.generate`): `POST /images/generations`, synchronous,
 * OpenAI-shaped. What is sent:
 *   model                  the route's upstream id
 *   prompt                 the prompt (for a set of N, with a closing sentence asking for N images:
 *                          in `auto` mode the model decides the count from the prompt, max_images caps it)
 *   size                   "WxH": the exact pixels the card resolved (Ark's second way of sizing)
 *   image                  the inputs, in the job's order (one URL, or a list): short-lived signed
 *                          URLs served by this service, never the client's own URL
 *   sequential_image_generation  "disabled" for one image, "auto" (+ options.max_images) for a set
 *   response_format "url", stream false, and watermark false (Ark's default is true: a visible
 *   "AI generated" mark the cards do not offer); seed when given
 * The answer is `{model, created, data: [{url, size} | {error: {code, message}}], usage:
 * {generated_images, output_tokens, total_tokens}}`; URLs are valid 24 hours. A refused request
 * answers an error status (a single filtered output: 400 OutputImageSensitiveContentDetected); in a
 * set, a filtered image is an entry with `error` while the others are still made.
 */

import type { ProviderContext } from "../adapter";
import type { ProviderConfig } from "../config";
import { type ImageCapability, imageOutputType, type JobFor } from "../jobs";
import { stagedBeforeCall } from "../staging";
import type { ProviderHandle, ProviderOutput, ProviderResult } from "../types";
import { ProviderError } from "../types";
import { arkCall, arkError, codeForArkError, safetyCode, safeWording, wordingOf } from "./client";
import { stage, type Verdict } from "./staging";

export const IMAGES_PATH = "/images/generations";
/** A set of large images can take minutes (hosts report about four for six 2K images). */
const IMAGE_TIMEOUT_MS = 300_000;

/** How long the call may take: raised for image generation unless the deployment set its own timeout. */
export function timeoutFor(config: ProviderConfig): number {
  return config.extra.timeout_ms ? config.timeoutMs : Math.max(config.timeoutMs, IMAGE_TIMEOUT_MS);
}

export function imageBody(job: JobFor<ImageCapability>, urls: string[]): Record<string, unknown> {
  const r = job.request;
  const sequence = r.output_relationship === "sequence";
  if (!sequence && r.count !== 1) {
    throw new ProviderError(
      "unsupported_option",
      `${job.upstream_model} makes one independent image per request; ${r.count} need output_relationship "sequence".`,
      { accepted: "no" },
    );
  }
  const body: Record<string, unknown> = {
    model: job.upstream_model,
    prompt: sequence && r.count > 1 ? `${r.prompt}\n\nGenerate a set of ${r.count} images.` : r.prompt,
    size: `${r.dimensions.width}x${r.dimensions.height}`,
    sequential_image_generation: sequence ? "auto" : "disabled",
    response_format: "url",
    stream: false,
    watermark: false,
  };
  if (sequence) body.sequential_image_generation_options = { max_images: r.count };
  if (urls.length === 1) body.image = urls[0];
  else if (urls.length > 1) body.image = urls;
  if (typeof r.seed === "number") body.seed = r.seed;
  // JPEG is what Seedream makes; the format is asked for only when a card wants PNG.
  if (imageOutputType(job) === "image/png") body.output_format = "png";
  return body;
}

interface ImagesAnswer {
  data?: unknown;
  usage?: { output_tokens?: unknown; generated_images?: unknown } | null;
  error?: unknown;
  model?: unknown;
}

function parse(bytes: Uint8Array): ImagesAnswer | null {
  try {
    const body = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    return body && typeof body === "object" && !Array.isArray(body) ? (body as ImagesAnswer) : null;
  } catch {
    return null;
  }
}

const hasImage = (item: unknown) =>
  !!item &&
  typeof item === "object" &&
  ((typeof (item as any).url === "string" && (item as any).url.length > 0) ||
    (typeof (item as any).b64_json === "string" && (item as any).b64_json.length > 0));

/**
 * What the answer says before anything is downloaded: a failure when it holds no image but says
 * why (every image of a set filtered, or an error in a 200 body). Undefined when it holds images,
 * or cannot be read at all (fetchResult then reports it as an unusable answer).
 */
export function verdictOf(config: ProviderConfig, bytes: Uint8Array): Verdict | undefined {
  const answer = parse(bytes);
  if (!answer) return undefined;
  const items = Array.isArray(answer.data) ? answer.data : [];
  if (items.some(hasImage)) return undefined;
  const error = arkError(answer.error) ?? items.map((i) => arkError((i as any)?.error)).find((e) => e !== null) ?? null;
  if (!error) return undefined;
  const known = codeForArkError(error);
  const outcome = known && known.code !== "model_unavailable" ? known.code : "model_request_failed";
  return { outcome, message: `${config.name}: ${safeWording(config, wordingOf(error, "no image was generated"))}` };
}

/** Calls Seedream once and keeps the answer before returning (see staging.ts for the crash rule). */
export async function submitImages(job: JobFor<ImageCapability>, ctx: ProviderContext): Promise<ProviderHandle> {
  const config = ctx.config;
  const found = await stagedBeforeCall(ctx, job, { kind: "images" });
  if (found) return found;
  const images = job.inputs.filter((i) => i.kind === "image");
  const urls = await Promise.all(images.map((i) => ctx.inputs.url(i)));
  const res = await arkCall(config, {
    method: "POST",
    path: IMAGES_PATH,
    json: imageBody(job, urls),
    timeoutMs: timeoutFor(config),
    retries: 0,
  });
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    throw new ProviderError(
      "model_request_failed",
      `${config.name} accepted the request but its answer broke off: ${safeWording(config, e instanceof Error ? e.message : String(e), 300)}`,
      { retryable: true, accepted: "unknown" },
    );
  }
  const jobId = res.headers.get("x-request-id") ?? `ark_img_${crypto.randomUUID().replaceAll("-", "")}`;
  return stage(ctx, job, bytes, jobId, verdictOf(config, bytes));
}

function invalid(config: ProviderConfig, what: string): ProviderError {
  return new ProviderError("model_output_invalid", `${config.name} sent an unusable image answer: ${what}.`);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/**
 * The kept answer as outputs: every image entry, in Ark's order. Entries with an `error` (an
 * image of a set that was filtered) are left out and counted in the metadata; the service bills
 * what it stores.
 */
export function imageResult(config: ProviderConfig, bytes: Uint8Array): ProviderResult {
  const answer = parse(bytes);
  if (!answer) throw invalid(config, "the body is not JSON");
  if (!Array.isArray(answer.data)) throw invalid(config, "no `data`");
  const outputs: ProviderOutput[] = [];
  const failures: string[] = [];
  for (const item of answer.data as unknown[]) {
    const entry = (item ?? {}) as Record<string, unknown>;
    const index = outputs.length;
    if (typeof entry.url === "string" && entry.url.length > 0) {
      if (!/^https?:\/\//i.test(entry.url)) throw invalid(config, `image ${index} is not an http(s) URL`);
      outputs.push({ kind: "image", url: entry.url, index });
    } else if (typeof entry.b64_json === "string" && entry.b64_json.length > 0) {
      try {
        outputs.push({ kind: "image", bytes: fromBase64(entry.b64_json), content_type: "image/jpeg", index });
      } catch {
        throw invalid(config, `image ${index} is not valid base64`);
      }
    } else {
      const error = arkError(entry.error);
      failures.push(safetyCode(error) ?? error?.code ?? "unknown");
    }
  }
  if (outputs.length === 0) throw invalid(config, "no image in `data`");
  const usage: Record<string, number> = {};
  const tokens = answer.usage?.output_tokens;
  if (typeof tokens === "number" && Number.isFinite(tokens) && tokens >= 0) usage.output_tokens = Math.floor(tokens);
  const metadata: Record<string, unknown> = {};
  const sizes = (answer.data as unknown[])
    .map((d) => (d as { size?: unknown } | null)?.size)
    .filter((s): s is string => typeof s === "string");
  if (sizes.length > 0) metadata.sizes = sizes;
  if (failures.length > 0) metadata.failed_images = failures;
  return { outputs, usage, metadata };
}
