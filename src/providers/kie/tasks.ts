/**
 * Kie's two Suno calls: submit (`POST /api/v1/generate`, answered `{code: 200, msg, data:
 * {taskId}}`) and read (`GET /api/v1/generate/record-info?taskId=`, answered `{code: 200, msg,
 * data: <record>}`). Any other `code`, with HTTP 200 or the matching HTTP status, is a refusal.
 */
import type { ProviderConfig } from "../config";
import { call, malformed } from "../http";
import { ProviderError, type ProviderHandle } from "../types";
import { authHeaders, codeOf, describeKie, envelopeFailure, parseEnvelope, safeWording } from "./client";
import type { SunoBody } from "./request";

/** An answer after Kie took the submission (2xx) that cannot be read: the task may be running. */
function unreadableAcceptance(config: ProviderConfig, what: string): ProviderError {
  return new ProviderError("model_request_failed", `${config.name} answered the submission but its answer ${what}.`, {
    retryable: true,
    accepted: "unknown",
  });
}

export async function submitTask(config: ProviderConfig, body: SunoBody, now: number): Promise<ProviderHandle> {
  // No retries: a repeated POST would start (and bill) a second pair of songs.
  const res = await call(config, authHeaders(config), {
    method: "POST",
    path: "/api/v1/generate",
    json: body,
    describe: describeKie,
    retries: 0,
  });
  const text = await res.text().catch(() => null);
  if (text === null) throw unreadableAcceptance(config, "could not be read");
  const envelope = parseEnvelope(text);
  if (!envelope) throw unreadableAcceptance(config, `is not JSON (${safeWording(config, text.slice(0, 120), 160)})`);
  const code = codeOf(envelope);
  // An error code in a 200 body is a refusal: Kie started nothing.
  if (code !== undefined && code !== 200) throw envelopeFailure(config, envelope, code, res.headers, "submission");
  const data = envelope.data as { taskId?: unknown } | null | undefined;
  const id = data?.taskId;
  if (typeof id !== "string" || !/^[A-Za-z0-9_-]{1,200}$/.test(id)) {
    throw unreadableAcceptance(config, `has no task id (${safeWording(config, text.slice(0, 120), 160)})`);
  }
  return { job_id: id, submitted_at: now, data: { model: String(body.model) } };
}

/** The task's record (`data` of the envelope). A failure code is thrown for the poll to retry. */
export async function readRecord(config: ProviderConfig, handle: ProviderHandle): Promise<unknown> {
  const res = await call(config, authHeaders(config), {
    path: `/api/v1/generate/record-info?taskId=${encodeURIComponent(handle.job_id)}`,
    describe: describeKie,
    retries: 2,
  });
  const text = await res.text();
  const envelope = parseEnvelope(text);
  if (!envelope) throw malformed(config, `the task record is not JSON (${safeWording(config, text.slice(0, 80), 120)})`);
  const code = codeOf(envelope);
  if (code !== undefined && code !== 200) {
    const failure = envelopeFailure(config, envelope, code, res.headers, "task read");
    // A read is safe to repeat whatever the code; the task object bounds the attempts.
    throw new ProviderError(failure.code === "safety_rejected" ? "model_request_failed" : failure.code, failure.message, {
      retryable: true,
      status: code,
      ...(failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {}),
    });
  }
  if (code === undefined) throw malformed(config, "the task answer has no code");
  return envelope.data;
}
