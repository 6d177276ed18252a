/**
 * Reading route health cheaply: each isolate keeps the last snapshot of each provider's health
 * object. A snapshot younger than REFRESH_AFTER_MS is used as it is; an older one is still used
 * while a fresh one is read in the background; one older than MAX_AGE_MS (an isolate that was
 * idle), or none, is read before answering. An isolate that reports outcomes or claims a probe
 * gets the object's snapshot in the answer and keeps it at once. So a circuit that opens is seen
 * by every busy isolate within about REFRESH_AFTER_MS plus one request, and by the isolate whose
 * task saw it open at once.
 */

import type { Env } from "../env";
import type { CircuitState } from "./circuit";
import { healthObject } from "./health-stub";
import type { ProviderSnapshot, RouteSnapshot } from "./health-views";

export const REFRESH_AFTER_MS = 2_000;
export const MAX_AGE_MS = 10_000;

interface Entry {
  snap: ProviderSnapshot;
  /** When this isolate received it. */
  got: number;
  /** When a background read of it started (a read whose request ended may never finish). */
  refreshing?: number;
}

const cache = new Map<string, Entry>();
/** A background read older than this is taken as lost, and another may start. */
const REFRESH_LOST_MS = 5_000;

/** Keeps a snapshot an object answered (a report, a probe claim, a read). */
export function keepSnapshot(provider: string, snap: ProviderSnapshot, now = Date.now()): ProviderSnapshot {
  const fixed = { ...snap, provider };
  const prev = cache.get(provider);
  // An answer older than the one kept (a slow read overtaken by a report) is not kept.
  if (!prev || prev.snap.at <= fixed.at) cache.set(provider, { snap: fixed, got: now });
  return fixed;
}

/**
 * Reads a provider's snapshot in the caller's own context: a promise of another request's or
 * object's read is never shared (the runtime forbids I/O across them), so concurrent first reads
 * each make their own call.
 */
async function read(env: Env, provider: string): Promise<void> {
  keepSnapshot(provider, await healthObject(env, provider).snapshot());
}

const HEALTHY: RouteSnapshot = { state: "closed", retry_at: null, p50_ms: null, p95_ms: null };

/** Whether this isolate's kept snapshot shows `upstreamModel`'s circuit closed (false when it keeps none). */
export function seenClosed(provider: string, upstreamModel: string): boolean {
  const snap = cache.get(provider)?.snap;
  if (!snap) return false;
  const route = snap.routes[upstreamModel];
  return !route || route.state === "closed";
}

/** What a caller needs to decide routes: each route's state now, from snapshots at most MAX_AGE_MS old. */
export interface HealthView {
  route(provider: string, upstreamModel: string): RouteSnapshot;
}

/**
 * The health of these providers' routes. A provider whose object cannot be read counts as healthy
 * (health only ever narrows routing; it never stops it on its own failure).
 */
export async function healthView(env: Env, providers: Iterable<string>, now = Date.now()): Promise<HealthView> {
  const waits: Promise<unknown>[] = [];
  for (const provider of providers) {
    const entry = cache.get(provider);
    const age = entry ? now - entry.got : Number.POSITIVE_INFINITY;
    if (age > MAX_AGE_MS) waits.push(read(env, provider).catch(() => null));
    else if (entry && age > REFRESH_AFTER_MS && !(entry.refreshing && now - entry.refreshing < REFRESH_LOST_MS)) {
      entry.refreshing = now;
      void read(env, provider).catch(() => null);
    }
  }
  if (waits.length > 0) await Promise.all(waits);
  return {
    route(provider, upstreamModel) {
      const snap = cache.get(provider)?.snap.routes[upstreamModel];
      if (!snap || snap.state === "closed") return snap ?? HEALTHY;
      // The snapshot's open circuit may have reached its retry time since it was taken.
      const state: CircuitState = snap.retry_at !== null && Date.now() >= snap.retry_at ? "half_open" : snap.state;
      return { ...snap, state };
    },
  };
}

/** One route's health now (a cached snapshot at most MAX_AGE_MS old): its circuit and measured durations. */
export async function routeHealth(env: Env, provider: string, upstreamModel: string): Promise<RouteSnapshot> {
  return (await healthView(env, [provider])).route(provider, upstreamModel);
}

/** Whether new work may go to this route: its circuit is not open (a half-open route takes its probe). */
export async function routeHealthy(env: Env, provider: string, upstreamModel: string): Promise<boolean> {
  return (await routeHealth(env, provider, upstreamModel)).state !== "open";
}

/** Forgets every kept snapshot (tests that change health behind the isolate's back). */
export function forgetSnapshots(): void {
  cache.clear();
}

/**
 * A task about to submit on a route: true when the circuit is closed, or half-open and this task
 * is granted the probe; false when it is open, or another task holds the probe. Called from task
 * objects' alarms, never on a request path; asks the object only when the route is half-open.
 */
export async function mayUseRoute(env: Env, taskId: string, provider: string, upstreamModel: string): Promise<boolean> {
  const health = await routeHealth(env, provider, upstreamModel);
  if (health.state === "closed") return true;
  if (health.state === "open") return false;
  try {
    const { granted, snapshot } = await healthObject(env, provider).claimProbe(upstreamModel, taskId);
    keepSnapshot(provider, snapshot);
    return granted;
  } catch {
    return true;
  }
}
