/**
 * The prediction endpoints (replicate.com/docs/reference/http):
 *   create  POST /models/{owner}/{name}/predictions   (official models, `owner/name`)
 *           POST /predictions {version}               (a pinned version, `owner/name:version`)
 *   get     GET  /predictions/{id}
 *   cancel  POST /predictions/{id}/cancel
 *   list    GET  /predictions?created_after=…          (newest first, cursor pages `{next, previous, results}`)
 * Paths are built from the id, never from the `urls` Replicate returns, so the token only ever
 * goes to the configured base.
 */
import type { ProviderConfig } from "../config";
import { malformed, readJson } from "../http";
import { ProviderError } from "../types";
import { replicateCall } from "./client";

export type PredictionStatus = "starting" | "processing" | "succeeded" | "failed" | "canceled" | "aborted";

/**
 * A prediction object as documented (Replicate's OpenAPI `Prediction`; the webhook it was created
 * with is not among its fields); `status` stays a string, since new values may appear.
 */
export interface Prediction {
  id: string;
  status: PredictionStatus | (string & {});
  model?: string;
  version?: string;
  input?: Record<string, unknown>;
  output?: unknown;
  error?: unknown;
  logs?: string | null;
  created_at?: string;
  started_at?: string | null;
  completed_at?: string | null;
  data_removed?: boolean;
  urls?: { get?: string; cancel?: string; stream?: string; web?: string };
  metrics?: { predict_time?: number; total_time?: number };
}

export const TERMINAL: ReadonlySet<string> = new Set(["succeeded", "failed", "canceled", "aborted"]);

/** The documented fields an adapter relies on: an id and a status. */
export function asPrediction(config: ProviderConfig, body: unknown, what: string): Prediction {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw malformed(config, `${what} is not a prediction object`);
  const p = body as Record<string, unknown>;
  if (typeof p.id !== "string" || p.id.length === 0) throw malformed(config, `${what} has no prediction id`);
  if (typeof p.status !== "string" || p.status.length === 0) throw malformed(config, `${what} has no status`);
  return p as unknown as Prediction;
}

export interface ModelRef {
  owner: string;
  name: string;
  version?: string;
}

/** `owner/name` (an official model) or `owner/name:version` (a pinned version). */
export function parseModelRef(model: string): ModelRef {
  const m = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)(?::([A-Za-z0-9]+))?$/.exec(model);
  if (!m) {
    throw new ProviderError("model_unavailable", `replicate: the route names "${model}", which is not an owner/name model id.`, {
      retryable: true,
      accepted: "no",
    });
  }
  return { owner: m[1] as string, name: m[2] as string, ...(m[3] ? { version: m[3] } : {}) };
}

export interface CreateBody {
  input: Record<string, unknown>;
  webhook?: string;
  webhook_events_filter?: string[];
}

/**
 * Creates a prediction; never retried here (the task object decides). An error answer throws with
 * accepted "no" (the shared client); a 2xx whose body cannot be read means Replicate did take the
 * job, so that failure is accepted "unknown" and the task reconciles instead of moving on.
 */
export async function createPrediction(config: ProviderConfig, model: string, body: CreateBody): Promise<Prediction> {
  const ref = parseModelRef(model);
  const headers: Record<string, string> = {};
  // An optional deadline (PROVIDER_REPLICATE_CANCEL_AFTER, e.g. "30m"): Replicate aborts a prediction
  // that has not started by then (not billed) and cancels one still running.
  const cancelAfter = config.extra.cancel_after?.trim();
  if (cancelAfter && /^\d+(?:\.\d+)?(?:ms|s|m|h)?$/.test(cancelAfter)) headers["Cancel-After"] = cancelAfter;
  const res = ref.version
    ? await replicateCall(config, { operation: "create", path: "/predictions", json: { version: model, ...body }, headers })
    : await replicateCall(config, {
        operation: "create",
        path: `/models/${encodeURIComponent(ref.owner)}/${encodeURIComponent(ref.name)}/predictions`,
        json: body,
        headers,
      });
  try {
    return asPrediction(config, await readJson(config, res), "the created prediction");
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    throw new ProviderError(e.code, e.message, { retryable: true, accepted: "unknown", status: res.status });
  }
}

const predictionPath = (id: string) => `/predictions/${encodeURIComponent(id)}`;

/** Reads a prediction; reads are safe to repeat, so transient failures are retried a little here. */
export async function getPrediction(config: ProviderConfig, id: string): Promise<Prediction> {
  const res = await replicateCall(config, { method: "GET", path: predictionPath(id), retries: 2 });
  return asPrediction(config, await readJson(config, res), "the prediction");
}

/**
 * Asks Replicate to cancel. It answers with the prediction: still running (now canceled) or
 * already finished, in which case there was nothing left to cancel. A 404 is a prediction that is
 * gone, which cannot be canceled either.
 */
export async function cancelPrediction(config: ProviderConfig, id: string): Promise<"canceled" | "not_cancelable"> {
  const res = await replicateCall(config, {
    method: "POST",
    path: `${predictionPath(id)}/cancel`,
    retries: 2,
    accept: [404],
  });
  if (res.status === 404) return "not_cancelable";
  let status: unknown;
  try {
    status = ((await res.json()) as Record<string, unknown> | null)?.status;
  } catch {
    // Answered without a readable body: the request was taken.
    return "canceled";
  }
  return typeof status === "string" && TERMINAL.has(status) && status !== "canceled" ? "not_cancelable" : "canceled";
}

export interface PredictionPage {
  results: Prediction[];
  /** The next page as a path under the configured base, or null. */
  next: string | null;
}

/**
 * One page of the list. `next` is an absolute URL in Replicate's answer; only its query (the
 * cursor and filters) is kept, and the page is asked of the configured base like every other call.
 */
export async function listPredictions(config: ProviderConfig, path: string): Promise<PredictionPage> {
  const res = await replicateCall(config, { method: "GET", path, retries: 2 });
  const body = await readJson<Record<string, unknown>>(config, res);
  if (!body || typeof body !== "object" || !Array.isArray(body.results))
    throw malformed(config, "the prediction list has no results");
  const results: Prediction[] = [];
  for (const item of body.results) {
    try {
      results.push(asPrediction(config, item, "a listed prediction"));
    } catch {
      // One unreadable entry does not hide the others.
    }
  }
  let next: string | null = null;
  if (typeof body.next === "string" && body.next.length > 0) {
    try {
      const url = new URL(body.next, "https://replicate.invalid/");
      if (url.search.length > 1) next = `/predictions${url.search}`;
    } catch {}
  }
  return { results, next };
}
