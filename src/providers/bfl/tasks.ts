/**
 * BFL's two calls: submit a task (`POST /v1/{endpoint}`, answered `{id, polling_url, cost,
 * input_mp, output_mp}`) and read it (`GET polling_url`). BFL asks that the returned polling_url
 * be used as it is, since it names the cluster that holds the task (docs.bfl.ai "Integration
 * guidelines"); it is kept only when it points at a BFL API host or the configured one, because
 * the key goes with every read. Without it, `/v1/get_result?id=` on the configured host is read.
 */
import type { ProviderConfig } from "../config";
import { call, readJson } from "../http";
import { ProviderError, type ProviderHandle } from "../types";
import { authHeaders, describeBfl, safeWording, trustedUrl } from "./client";
import type { BflResultAnswer } from "./status";

const ENDPOINT = /^[a-z0-9][a-z0-9.-]{0,80}$/;

/** An answer after BFL accepted the submission (2xx) that cannot be read: the task may be running. */
function unreadableAcceptance(config: ProviderConfig, what: string): ProviderError {
  return new ProviderError("model_request_failed", `${config.name} accepted the request but its answer ${what}.`, {
    retryable: true,
    accepted: "unknown",
  });
}

export async function submitTask(
  config: ProviderConfig,
  endpoint: string,
  body: Record<string, unknown>,
  now: number,
): Promise<ProviderHandle> {
  if (!ENDPOINT.test(endpoint)) {
    throw new ProviderError("model_unavailable", `${config.name}: "${endpoint.slice(0, 80)}" is not a BFL endpoint.`, {
      accepted: "no",
    });
  }
  // No retries: a repeated POST would start (and bill) a second task; the task object decides.
  const res = await call(config, authHeaders(config), {
    method: "POST",
    path: `/v1/${endpoint}`,
    json: body,
    describe: describeBfl,
    retries: 0,
  });
  const text = await res.text().catch(() => null);
  if (text === null) throw unreadableAcceptance(config, "could not be read");
  let answer: { id?: unknown; polling_url?: unknown } | null = null;
  try {
    answer = JSON.parse(text);
  } catch {}
  const id = answer?.id;
  if (typeof id !== "string" || id.length === 0 || id.length > 200) {
    throw unreadableAcceptance(config, `has no task id (${safeWording(config, text.slice(0, 120), 160)})`);
  }
  const data: Record<string, string> = { endpoint };
  const polling = trustedUrl(config, answer?.polling_url);
  if (polling) data.polling_url = polling;
  return { job_id: id, submitted_at: now, data };
}

/** Where a task is read: the polling URL BFL returned, else `get_result` on the configured host. */
export function pollingUrlOf(config: ProviderConfig, handle: ProviderHandle): string {
  return (
    trustedUrl(config, handle.data?.polling_url) ?? `${config.baseUrl}/v1/get_result?id=${encodeURIComponent(handle.job_id)}`
  );
}

/**
 * The task's result answer. A 404 that still carries a status word is read as that answer (a
 * "Task not found" may come that way); any other error answer is thrown for the poll to retry.
 */
export async function readTask(config: ProviderConfig, handle: ProviderHandle): Promise<BflResultAnswer> {
  const res = await call(config, authHeaders(config), {
    path: pollingUrlOf(config, handle),
    describe: describeBfl,
    retries: 2,
    accept: [404],
  });
  if (res.status === 404) {
    const text = await res.text().catch(() => "");
    let answer: BflResultAnswer | null = null;
    try {
      answer = JSON.parse(text);
    } catch {}
    if (answer && typeof answer === "object" && typeof answer.status === "string") return answer;
    throw new ProviderError(
      "model_request_failed",
      `${config.name} answered 404: ${safeWording(config, describeBfl(404, text).message, 300)}`,
      {
        retryable: true,
        status: 404,
      },
    );
  }
  return readJson<BflResultAnswer>(config, res);
}
