/**
 * MiniMax's synchronous endpoints, speech (`POST /v1/t2a_v2`) and music (`POST /v1/music_generation`):
 * the answer is the result, paid for the moment it arrives. `submitSync` keeps it in R2 before it
 * returns (the rule: src/providers/staging.ts), and `syncResult` reads the audio from what was kept:
 * a URL (output_format "url", valid for a limited time: the service copies it), found in
 * `data.audio_url` (where MiniMax's official CLI reads it) or `data.audio` (where its MCP server
 * does), or the audio in hex in `data.audio` (output_format "hex"). Any of them is accepted: the
 * answer has been paid for, and a readable one must not be thrown away. An answer with a non-zero `base_resp` is a refusal
 * (MiniMax errors come as HTTP 200): nothing is kept and the mapped error is thrown.
 */

import type { ProviderContext } from "../adapter";
import type { ProviderConfig } from "../config";
import { findStagedAnswer, readStagedAnswer, stageAnswer, stagedBeforeCall } from "../staging";
import type { ProviderHandle, ProviderJob, ProviderOutput } from "../types";
import { ProviderError } from "../types";
import { baseRespError, baseRespOf, fromHex, httpUrl, minimaxCall, readBody } from "./client";

export type SyncKind = "speech" | "music";

/** Longest wait for a synchronous answer unless the deployment set its own (a song takes minutes). */
const SYNC_TIMEOUT_MS: Record<SyncKind, number> = { speech: 120_000, music: 300_000 };

export function timeoutFor(config: ProviderConfig, kind: SyncKind): number {
  return config.extra.timeout_ms ? config.timeoutMs : Math.max(config.timeoutMs, SYNC_TIMEOUT_MS[kind]);
}

export const findStaged = (ctx: ProviderContext, job: ProviderJob, kind: SyncKind, since = 0) =>
  findStagedAnswer(ctx, job, since, { kind });

export async function submitSync(
  ctx: ProviderContext,
  job: ProviderJob,
  kind: SyncKind,
  path: string,
  body: Record<string, unknown>,
): Promise<ProviderHandle> {
  const config = ctx.config;
  const found = await stagedBeforeCall(ctx, job, { kind });
  if (found) return found;
  const res = await minimaxCall(config, { method: "POST", path, json: body, timeoutMs: timeoutFor(config, kind), retries: 0 });
  let answer: Awaited<ReturnType<typeof readBody>>;
  try {
    answer = await readBody(res);
  } catch (e) {
    throw new ProviderError(
      "model_request_failed",
      `${config.name} accepted the request but its answer broke off: ${e instanceof Error ? e.message : String(e)}`,
      { retryable: true, accepted: "unknown" },
    );
  }
  const base = baseRespOf(answer.json);
  if (base && base.status_code !== 0) throw baseRespError(config, base, res.headers);
  // Whatever else it is (even unreadable), it is kept: fetchResult judges it, nothing is asked twice.
  const trace = (answer.json as { trace_id?: unknown } | null)?.trace_id;
  const jobId =
    typeof trace === "string" && /^[\w-]{1,128}$/.test(trace)
      ? `${kind}_${trace}`
      : (res.headers.get("trace-id") ?? `minimax_${kind}_${crypto.randomUUID().replaceAll("-", "")}`);
  return stageAnswer(ctx, job, answer.bytes, { jobId, kind });
}

function invalid(config: ProviderConfig, what: string): ProviderError {
  return new ProviderError("model_output_invalid", `${config.name} sent an unusable answer: ${what}.`);
}

export interface SyncAnswer {
  data?: { audio?: unknown; audio_url?: unknown; status?: unknown } | null;
  extra_info?: Record<string, unknown> | null;
  trace_id?: unknown;
  base_resp?: unknown;
}

/** The kept answer, parsed. */
export async function readSync(ctx: ProviderContext, handle: ProviderHandle): Promise<SyncAnswer> {
  const { bytes } = await readStagedAnswer(ctx, handle);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw invalid(ctx.config, "the body is not JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) throw invalid(ctx.config, "the body is not an object");
  return body as SyncAnswer;
}

/** The audio of an answer: a URL to copy (`data.audio_url`, else `data.audio`), or the hex bytes of `data.audio`. */
export function audioOutput(config: ProviderConfig, answer: SyncAnswer, contentType: string): ProviderOutput {
  const linked = httpUrl(answer.data?.audio_url);
  if (linked) return { kind: "audio", url: linked, index: 0 };
  const audio = answer.data?.audio;
  if (typeof audio !== "string" || audio.length === 0) throw invalid(config, "no `data.audio` or `data.audio_url`");
  const url = httpUrl(audio);
  if (url) return { kind: "audio", url, index: 0 };
  const bytes = fromHex(audio);
  if (!bytes) throw invalid(config, "`data.audio` is neither a URL nor hex");
  return { kind: "audio", bytes, content_type: contentType, index: 0 };
}

/** A non-negative number from `extra_info`, or undefined. */
export function extraNumber(answer: SyncAnswer, key: string): number | undefined {
  const v = answer.extra_info?.[key];
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
}
