/**
 * What a task object tells the health of a route (provider + upstream model) about each upstream
 * call it made, and whose fault a failure was. Only provider-side failures of live traffic count
 * against a route: a request the upstream refused for its content or shape, a failure the request
 * asked for (a sandbox fault in its metadata), or a tenant's own key that the upstream refused, says
 * nothing about the route's health for anyone else; nor does a failure of test-mode traffic, which
 * runs on the sandbox, where every failure is the request's or the service's own.
 */
import type { ErrorCode } from "../errors/codes";
import { SAFETY_CODES } from "../providers/types";

/**
 * `provider`: the route failed; `request`: the request was refused for itself, or asked to fail;
 * `tenant_key`: the tenant's own credential was refused.
 */
export type Fault = "provider" | "request" | "tenant_key";

export type OutcomeKind =
  /** The upstream took the job (`latency_ms`: the submission's round trip). */
  | "submit_accepted"
  /** The upstream refused the submission or did not answer it (`code`, `http_status`, `fault`). */
  | "submit_refused"
  /** A status read failed (the job may still be fine; counted, never against the circuit). */
  | "poll_error"
  /** The job first reported running (`duration_ms` since it was accepted). */
  | "first_progress"
  /** The outputs are stored (`duration_ms` since the job was accepted). */
  | "completed"
  /** The upstream's job failed, or its status could not be read in a documented shape (`code`, `fault`). */
  | "job_failed"
  /** The job finished but its outputs could not be read or stored (`code`, `fault`). */
  | "output_failed";

export interface RouteOutcome {
  provider: string;
  upstream_model: string;
  tenant_id: string;
  task_id: string;
  kind: OutcomeKind;
  /** Epoch milliseconds. */
  at: number;
  fault?: Fault;
  /** Set for a test-mode key's task: its failures never count toward a circuit. */
  mode?: "test";
  code?: string;
  http_status?: number;
  latency_ms?: number;
  duration_ms?: number;
}

/** The kinds that are one attempt of the route for its circuit, and whether it failed there. */
export function circuitAttempt(o: RouteOutcome): "ok" | "failed" | null {
  if (o.kind === "submit_accepted") return "ok";
  if (o.kind === "submit_refused" || o.kind === "job_failed" || o.kind === "output_failed") {
    return o.fault === "provider" && o.mode !== "test" ? "failed" : null;
  }
  return null;
}

/** Codes that say the request itself was refused (its content, shape or media), never the route. */
const REQUEST_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  "invalid_request",
  "invalid_media",
  "unsupported_media_type",
  "media_too_large",
  "media_fetch_failed",
  "unsupported_option",
  "unsupported_input_modality",
  "context_length_exceeded",
  "voice_model_incompatible",
  "voice_not_found",
  "insufficient_balance",
]);

/**
 * Whose fault an upstream failure was. `ownKey`: the call used the tenant's own credential, so an
 * authentication refusal (401/403) is that tenant's alone. A 4xx other than 401, 403, 404 (the
 * route's model gone), 408 and 429 (the route's capacity) is the request's; safety is the request's.
 */
export function faultOf(
  e: { code: string; upstreamStatus?: number; keyFault?: boolean },
  opts: { ownKey?: boolean } = {},
): Fault {
  if (SAFETY_CODES.has(e.code as ErrorCode) || REQUEST_CODES.has(e.code)) return "request";
  const status = e.upstreamStatus;
  // A tenant's own key refused (401, 403, its quota spent) is that tenant's alone.
  if (opts.ownKey && (status === 401 || status === 403 || e.keyFault)) return "tenant_key";
  if (status === 401 || status === 403) return "provider";
  if (status !== undefined && status >= 400 && status < 500 && status !== 404 && status !== 408 && status !== 429) {
    return "request";
  }
  return "provider";
}
