/**
 * fal's queue API (docs "Asynchronous Inference", and the official client's queue module):
 *   POST {base}/{endpoint id}[?fal_webhook=…]            → {request_id, status_url, response_url, cancel_url, queue_position}
 *   GET  {base}/{owner}/{app}/requests/{id}/status?logs=1 → {status, queue_position | logs, metrics}
 *   GET  {base}/{owner}/{app}/requests/{id}               → the model's output, or its error answer
 *   PUT  {base}/{owner}/{app}/requests/{id}/cancel        → {status: CANCELLATION_REQUESTED | ALREADY_COMPLETED | NOT_FOUND}
 * Follow-ups address the app (`owner/app`), not the endpoint's sub-path (`/edit`, `/image-to-video`).
 */
import type { ProviderConfig } from "../config";
import { call, readJson } from "../http";
import { safeProviderMessage } from "../messages";
import { ProviderError, type ProviderHandle } from "../types";
import { authHeaders, describeFal, parseBody } from "./client";

/** Apps under a namespace have one more leading segment (`workflows/owner/app`), as the official client parses them. */
const NAMESPACES = new Set(["workflows", "comfy"]);
const ENDPOINT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\/[A-Za-z0-9._-]+)+$/;

export function appRoot(endpoint: string): string {
  const parts = endpoint.split("/");
  return parts.slice(0, NAMESPACES.has(parts[0] as string) ? 3 : 2).join("/");
}

export interface FalUrls {
  status: string;
  result: string;
  cancel: string;
}

/** A URL fal handed back, kept only when it points at the configured host: the key goes with every follow-up. */
function sameHost(config: ProviderConfig, value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    return new URL(value).origin === new URL(config.baseUrl).origin ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The follow-up URLs of a request: those fal returned at submission, or the documented paths. */
export function urlsOf(config: ProviderConfig, handle: ProviderHandle): FalUrls {
  const endpoint = handle.data?.endpoint ?? "";
  const base = `${config.baseUrl}/${appRoot(endpoint)}/requests/${encodeURIComponent(handle.job_id)}`;
  return {
    status: sameHost(config, handle.data?.status_url) ?? `${base}/status`,
    result: sameHost(config, handle.data?.response_url) ?? base,
    cancel: sameHost(config, handle.data?.cancel_url) ?? `${base}/cancel`,
  };
}

/** An answer after fal accepted the submission (2xx) that cannot be read: the job may be running. */
function unreadableAcceptance(config: ProviderConfig, what: string): ProviderError {
  return new ProviderError("model_request_failed", `${config.name} accepted the request but its answer ${what}.`, {
    retryable: true,
    accepted: "unknown",
  });
}

export async function submitRequest(
  config: ProviderConfig,
  endpoint: string,
  input: Record<string, unknown>,
  webhookUrl: string | null,
  now: number,
): Promise<ProviderHandle> {
  if (!ENDPOINT_ID.test(endpoint)) {
    throw new ProviderError("model_unavailable", `${config.name}: "${endpoint.slice(0, 100)}" is not a fal endpoint id.`, {
      accepted: "no",
    });
  }
  const query = webhookUrl ? `?fal_webhook=${encodeURIComponent(webhookUrl)}` : "";
  // No retries here: a repeated POST would queue (and bill) a second job; the task object decides.
  const res = await call(config, authHeaders(config), {
    method: "POST",
    path: `/${endpoint}${query}`,
    json: input,
    describe: describeFal,
    retries: 0,
  });
  const text = await res.text().catch(() => null);
  if (text === null) throw unreadableAcceptance(config, "could not be read");
  const body = parseBody(text) as Record<string, unknown> | null;
  const id = body?.request_id;
  if (typeof id !== "string" || id.length === 0 || id.length > 200) {
    throw unreadableAcceptance(config, `has no request_id (${safeProviderMessage(text.slice(0, 120), [config.apiKey], 160)})`);
  }
  const data: Record<string, string> = { endpoint };
  for (const key of ["status_url", "response_url", "cancel_url"] as const) {
    const url = sameHost(config, body?.[key]);
    if (url) data[key] = url;
  }
  return { job_id: id, submitted_at: now, data };
}

export interface FalLog {
  message?: unknown;
  level?: unknown;
  timestamp?: unknown;
}

export interface FalStatus {
  status?: unknown;
  queue_position?: unknown;
  logs?: unknown;
  metrics?: { inference_time?: unknown } | null;
  /** Set on a COMPLETED request that failed (the official Python client reads both). */
  error?: unknown;
  error_type?: unknown;
}

export async function readStatus(config: ProviderConfig, handle: ProviderHandle): Promise<FalStatus> {
  const url = new URL(urlsOf(config, handle).status);
  url.searchParams.set("logs", "1");
  const res = await call(config, authHeaders(config), { path: url.toString(), describe: describeFal, retries: 2 });
  const body = await readJson<unknown>(config, res);
  if (!body || typeof body !== "object" || typeof (body as FalStatus).status !== "string") {
    throw new ProviderError("model_request_failed", `${config.name} sent a malformed status answer (no status).`, {
      retryable: true,
    });
  }
  return body as FalStatus;
}

/** The result answer; an error answer (the request failed) is thrown as the ProviderError `describeFal` makes of it. */
export function readResult(config: ProviderConfig, handle: ProviderHandle): Promise<Response> {
  return call(config, authHeaders(config), { path: urlsOf(config, handle).result, describe: describeFal, retries: 2 });
}

/** Whether fal took the cancellation. Statuses other than the documented ones count as not cancelable. */
export async function cancelRequest(config: ProviderConfig, handle: ProviderHandle): Promise<"canceled" | "not_cancelable"> {
  const res = await call(config, authHeaders(config), {
    method: "PUT",
    path: urlsOf(config, handle).cancel,
    describe: describeFal,
    retries: 2,
    // ALREADY_COMPLETED comes with 400 and NOT_FOUND with 404: answers, not failures.
    accept: [400, 404, 409, 410],
  });
  const body = parseBody(await res.text().catch(() => "")) as { status?: unknown } | null;
  const status = typeof body?.status === "string" ? body.status.toUpperCase() : undefined;
  if (status === "CANCELLATION_REQUESTED" || status === "OK") return "canceled";
  if (status === "ALREADY_COMPLETED" || status === "NOT_FOUND") return "not_cancelable";
  return res.status >= 200 && res.status < 300 ? "canceled" : "not_cancelable";
}
