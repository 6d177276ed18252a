/**
 * Admission's use of route health: a model's routes in the card's order, those whose circuit is
 * open moved last (a task reaches one only when every route before it failed, and waits there for
 * its retry time). A half-open route keeps its place, so that a task makes its probe. A model whose every route is open is
 * refused before anything is reserved: 503 model_unavailable, `details.reason: "all_routes_unhealthy"`.
 */
import type { CandidateFailure } from "../catalog/select";
import { ApiError } from "../errors/api-error";
import type { RoutePlan } from "../providers/routing";
import type { HealthView } from "./snapshot";

/** A half-open route keeps its place: the next task to reach it makes its probe (src/health/snapshot.ts mayUseRoute). */
const RANK = { closed: 0, half_open: 0, open: 1 } as const;

/** Anything routed: a task's route plan, a chat route (whose upstream model is named by a key function). */
type Routed = { provider: string };
const planModel = (r: Pick<RoutePlan, "upstream_model">) => r.upstream_model;

/**
 * The routes in the order they should be tried, and, when every one is open, when the first
 * reopens. `upstreamOf` names a route's upstream model where it is not `upstream_model`.
 */
export function orderByHealth<R extends Routed & Pick<RoutePlan, "upstream_model">>(
  routes: R[],
  view: HealthView,
): { routes: R[]; retry_at: number | null };
export function orderByHealth<R extends Routed>(
  routes: R[],
  view: HealthView,
  upstreamOf: (r: R) => string,
): { routes: R[]; retry_at: number | null };
export function orderByHealth<R extends Routed>(
  routes: R[],
  view: HealthView,
  upstreamOf: (r: R) => string = planModel as unknown as (r: R) => string,
): { routes: R[]; retry_at: number | null } {
  const states = routes.map((r) => view.route(r.provider, upstreamOf(r)));
  if (states.length === 0 || states.some((s) => s.state !== "open")) {
    const order = routes.map((r, i) => ({ r, rank: RANK[(states[i] as { state: keyof typeof RANK }).state] }));
    // A stable sort: the card's order within each rank.
    return { routes: order.sort((a, b) => a.rank - b.rank).map((o) => o.r), retry_at: null };
  }
  return { routes, retry_at: Math.min(...states.map((s) => s.retry_at ?? Date.now())) };
}

export function retryAfterSeconds(retryAt: number, now = Date.now()): number {
  return Math.max(1, Math.ceil((retryAt - now) / 1000));
}

export function allRoutesUnhealthy(model: string, retryAt: number, routes: readonly Routed[]): ApiError {
  const retryAfter = retryAfterSeconds(retryAt);
  return new ApiError(
    "model_unavailable",
    `Every route of ${model} is failing for every caller right now (${routes.map((r) => r.provider).join(", ")}); try again in ${retryAfter} s or choose another model.`,
    {
      param: "/model",
      retryAfter,
      details: { model, reason: "all_routes_unhealthy", retry_after_seconds: retryAfter },
    },
  );
}

/** The same, as an `auto` candidate failure (`supported.retry_after_seconds` says when to try again). */
export function unhealthyFailure(model: string, retryAt: number): CandidateFailure {
  return {
    model,
    code: "all_routes_unhealthy",
    param: "/model",
    message: `Every route of ${model} is failing for every caller right now.`,
    supported: { retry_after_seconds: retryAfterSeconds(retryAt) },
    error: "unsupported_option",
  };
}
