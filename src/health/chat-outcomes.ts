/**
 * What a chat call tells the health of a route (provider + upstream model) about each upstream
 * call it made, in the task outcomes' vocabulary (src/health/outcomes.ts), so that chat and media
 * open and close the same circuits and show in the same status. A call that answered is an
 * accepted submission and a completed job whose duration is its first-token latency (the time to
 * the upstream's answer for JSON, to the first chunk for a stream): what a chat caller waits for.
 * A failure counts against the route only when it is the provider's side; a request the upstream
 * refused for itself, or a tenant's own key refused, says nothing of the route for anyone else.
 * Test-mode calls never report (they run on the sandbox, where no failure is the provider's).
 */
import { ApiError } from "../errors/api-error";
import type { ChatRoute } from "../providers/chat";
import { faultOf, type RouteOutcome } from "./outcomes";
import { recordOutcome } from "./reporter";

/** One chat call's identity in the health object's attempts: the request id and the attempt's start. */
function outcome(route: ChatRoute, tenantId: string, id: string, kind: RouteOutcome["kind"], extra: Partial<RouteOutcome>) {
  return {
    provider: route.provider,
    upstream_model: route.upstreamModel,
    tenant_id: tenantId,
    task_id: id,
    kind,
    at: Date.now(),
    ...extra,
  } satisfies RouteOutcome;
}

/** The upstream answered (its first token after `firstTokenMs`). */
export function chatSucceeded(route: ChatRoute, tenantId: string, requestId: string, startedAt: number): void {
  const id = `${requestId}:${startedAt}`;
  const ms = Math.max(0, Date.now() - startedAt);
  recordOutcome(outcome(route, tenantId, id, "submit_accepted", { latency_ms: ms }));
  recordOutcome(outcome(route, tenantId, id, "completed", { duration_ms: ms }));
}

/** The upstream failed before the first byte reached the client. */
export function chatFailed(route: ChatRoute, tenantId: string, requestId: string, startedAt: number, error: unknown): void {
  const e =
    error instanceof ApiError
      ? {
          code: error.code,
          upstreamStatus: (error.details as { upstream_status?: unknown } | undefined)?.upstream_status as number | undefined,
          // A tenant's key refused (made so by the failover) is that tenant's alone.
          keyFault: (error.details as { reason?: unknown } | undefined)?.reason === "provider_key_rejected",
        }
      : { code: "model_request_failed" };
  const status = "upstreamStatus" in e && typeof e.upstreamStatus === "number" ? e.upstreamStatus : undefined;
  recordOutcome(
    outcome(route, tenantId, `${requestId}:${startedAt}`, "submit_refused", {
      code: e.code,
      fault: faultOf({ ...e, upstreamStatus: status }, { ownKey: route.key === "tenant" }),
      ...(status !== undefined ? { http_status: status } : {}),
    }),
  );
}
