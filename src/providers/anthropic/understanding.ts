/**
 * Image understanding: one non-streamed `POST /v1/messages` whose user turn is the images (as
 * base64 sources of the stored bytes, so Anthropic never fetches a URL) followed by the prompt —
 * Anthropic's vision guide says Claude does best with images before text. `json` output is asked
 * for with an instruction, as the Messages API has no schema-less JSON mode.
 *
 * A refusal (stop_reason "refusal", Anthropic's streaming classifiers intervening) ends the task:
 * with no text produced the request itself was refused (safety_rejected); with text produced and
 * then cut off, the output was filtered (content_filtered). Usage: Anthropic's input_tokens
 * excludes cached input, so it is reported as is beside cache_read_tokens and cache_creation_tokens;
 * output_tokens includes thinking, reported apart as reasoning_tokens.
 */
import { toBase64 } from "../../lib/base64";
import type { ProviderContext } from "../adapter";
import { call } from "../http";
import type { JobFor } from "../jobs";
import { safeProviderMessage } from "../messages";
import type { ProviderResult } from "../types";
import { ProviderError } from "../types";
import { authHeaders, describeAnthropic, MESSAGES_PATH } from "./client";
import { JSON_INSTRUCTION } from "./request";
import type { Verdict } from "./staging";

/** Used only when neither the request nor the card gives a budget (the card's is normally passed in). */
const DEFAULT_MAX_TOKENS = 4096;
const MEDIA_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

export async function understandingBody(job: JobFor<"image_to_text">, ctx: ProviderContext): Promise<Record<string, unknown>> {
  const content: Record<string, unknown>[] = [];
  for (const input of job.inputs.filter((i) => i.kind === "image")) {
    if (!MEDIA_TYPES.has(input.mime)) {
      throw new ProviderError("unsupported_media_type", `Claude reads JPEG, PNG, GIF and WebP images, not ${input.mime}.`);
    }
    const bytes = await ctx.inputs.bytes(input);
    content.push({ type: "image", source: { type: "base64", media_type: input.mime, data: toBase64(bytes) } });
  }
  content.push({ type: "text", text: job.request.prompt });
  return {
    model: job.upstream_model,
    max_tokens: job.request.max_output_tokens ?? job.card.max_output_tokens ?? DEFAULT_MAX_TOKENS,
    ...(job.request.response_format === "json" ? { system: JSON_INSTRUCTION } : {}),
    messages: [{ role: "user", content }],
    ...(typeof job.request.temperature === "number" ? { temperature: job.request.temperature } : {}),
  };
}

/**
 * How long the answer may take: a long description can outlast the default, so it is raised
 * unless the deployment set PROVIDER_ANTHROPIC_TIMEOUT_MS itself.
 */
function timeoutFor(ctx: ProviderContext): number {
  return ctx.config.extra.timeout_ms ? ctx.config.timeoutMs : Math.max(ctx.config.timeoutMs, 300_000);
}

/**
 * One synchronous call, never repeated here (a repeat could be billed twice). An error status
 * throws ProviderError (accepted "no"); once the status is 2xx the call has run, so a body that
 * breaks off is reported with accepted "unknown".
 */
export async function submitUnderstanding(
  job: JobFor<"image_to_text">,
  ctx: ProviderContext,
): Promise<{ bytes: Uint8Array; requestId: string | null }> {
  const config = ctx.config;
  const res = await call(config, authHeaders(config), {
    method: "POST",
    path: MESSAGES_PATH,
    json: await understandingBody(job, ctx),
    timeoutMs: timeoutFor(ctx),
    retries: 0,
    describe: describeAnthropic,
  });
  try {
    return { bytes: new Uint8Array(await res.arrayBuffer()), requestId: res.headers.get("request-id") };
  } catch (e) {
    throw new ProviderError(
      "model_request_failed",
      `anthropic accepted the request but its answer broke off: ${safeProviderMessage(e instanceof Error ? e.message : String(e), [config.apiKey], 300)}`,
      { retryable: true, accepted: "unknown" },
    );
  }
}

function parse(bytes: Uint8Array): Record<string, any> | null {
  try {
    const m = JSON.parse(new TextDecoder().decode(bytes));
    return m && typeof m === "object" && m.type === "message" && Array.isArray(m.content) ? m : null;
  } catch {
    return null;
  }
}

function textOf(message: Record<string, any>): string {
  return (message.content as Record<string, any>[])
    .filter((b) => b?.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string)
    .join("");
}

/** The Message's id, when the answer is one (the task's upstream job id). */
export function messageId(bytes: Uint8Array): string | null {
  const id = parse(bytes)?.id;
  return typeof id === "string" && id.length > 0 ? id : null;
}

/** A final outcome the answer carries, read at submit so that poll reports it; null when it is a result. */
export function understandingVerdict(bytes: Uint8Array): Verdict | null {
  const message = parse(bytes);
  if (!message) return { outcome: "model_output_invalid", message: "anthropic sent an answer that is not a Message." };
  const text = textOf(message).trim();
  if (message.stop_reason === "refusal") {
    const d = (message.stop_details ?? {}) as Record<string, unknown>;
    const why = [d.category, d.explanation].filter((x) => typeof x === "string" && x.length > 0).join(": ");
    return text.length === 0
      ? { outcome: "safety_rejected", message: `anthropic refused the request${why ? ` (${why})` : ""}.` }
      : { outcome: "content_filtered", message: `anthropic stopped the answer on a safety refusal${why ? ` (${why})` : ""}.` };
  }
  if (text.length === 0) {
    return {
      outcome: "model_output_invalid",
      message: `anthropic answered without text (stop_reason ${String(message.stop_reason)}).`,
    };
  }
  return null;
}

const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/** A JSON answer wrapped in a code fence despite the instruction is unwrapped when what is inside parses. */
function unfenced(text: string): string {
  const m = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  if (!m) return text;
  try {
    JSON.parse(m[1] as string);
    return (m[1] as string).trim();
  } catch {
    return text;
  }
}

export function understandingResult(bytes: Uint8Array, job: JobFor<"image_to_text">): ProviderResult {
  const message = parse(bytes);
  if (!message) throw new ProviderError("model_output_invalid", "anthropic sent an answer that is not a Message.");
  const raw = textOf(message).trim();
  if (raw.length === 0) throw new ProviderError("model_output_invalid", "anthropic answered without text.");
  const u = (message.usage ?? {}) as Record<string, any>;
  const output = count(u.output_tokens);
  const thinking = Math.min(output, count(u.output_tokens_details?.thinking_tokens));
  const cacheRead = count(u.cache_read_input_tokens);
  const cacheCreation = count(u.cache_creation_input_tokens);
  return {
    outputs: [],
    text: job.request.response_format === "json" ? unfenced(raw) : raw,
    usage: {
      input_tokens: count(u.input_tokens),
      output_tokens: output - thinking,
      ...(cacheRead > 0 ? { cache_read_tokens: cacheRead } : {}),
      ...(cacheCreation > 0 ? { cache_creation_tokens: cacheCreation } : {}),
      ...(thinking > 0 ? { reasoning_tokens: thinking } : {}),
    },
    metadata: {
      provider: "anthropic",
      model: typeof message.model === "string" ? message.model : job.upstream_model,
      message_id: typeof message.id === "string" ? message.id : null,
      stop_reason: message.stop_reason ?? null,
    },
  };
}
