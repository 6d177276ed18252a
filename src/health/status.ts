/**
 * `GET /v1/status`: what every provider's health object knows, per provider and per model. Each
 * isolate keeps the answer for STATUS_TTL_MS (the response says `max-age=10` too), so the health
 * objects see at most one read per isolate per 10 s however many clients ask.
 */
import type { CatalogBundle } from "../catalog/build";
import { loadCatalog } from "../catalog/store";
import { isOffered } from "../catalog/views";
import type { Env } from "../env";
import { liveProviders, routesFor } from "../providers/routing";
import { quantile } from "./durations";
import { healthObject } from "./health-stub";
import type { Incident, ProviderStatus, RouteStatus } from "./health-views";
import type { ServiceStatus } from "./status-document";
import { addWindow, emptyWindow, type WindowStats } from "./window-stats";
import { type HealthState, routeHealthWord } from "./words";

export const STATUS_TTL_MS = 10_000;
/** Under this success rate over 5 minutes (with at least DEGRADED_MIN_ATTEMPTS), a provider or model is degraded. */
export const DEGRADED_BELOW = 0.9;
export const DEGRADED_MIN_ATTEMPTS = 5;

type WindowName = "5m" | "1h" | "24h";
const WINDOWS: WindowName[] = ["5m", "1h", "24h"];

function windowView(w: WindowStats) {
  const attempts = w.completed + w.failed;
  const p50 = quantile(w.durations, 0.5);
  const p95 = quantile(w.durations, 0.95);
  return {
    attempts,
    success_rate: attempts === 0 ? null : Math.round((w.completed / attempts) * 10_000) / 10_000,
    p50_seconds: p50 === null ? null : p50 / 1000,
    p95_seconds: p95 === null ? null : p95 / 1000,
  };
}

function sum(routes: RouteStatus[]) {
  const windows = { "5m": emptyWindow(), "1h": emptyWindow(), "24h": emptyWindow() };
  const hourly = Array.from({ length: 24 }, () => ({ completed: 0, failed: 0 }));
  for (const r of routes) {
    for (const w of WINDOWS) addWindow(windows[w], r.windows[w]);
    r.hourly.forEach((h, i) => {
      const slot = hourly[i] as { completed: number; failed: number };
      slot.completed += h.completed;
      slot.failed += h.failed;
    });
  }
  return {
    windows: { "5m": windowView(windows["5m"]), "1h": windowView(windows["1h"]), "24h": windowView(windows["24h"]) },
    hourly_success: hourly.map((h) =>
      h.completed + h.failed === 0 ? null : Math.round((h.completed / (h.completed + h.failed)) * 1000) / 1000,
    ),
  };
}

/** down when every route is open; degraded when one is open or probing, or 5-minute success is low. */
function stateOf(routes: RouteStatus[], fiveMinutes: { attempts: number; success_rate: number | null }): HealthState {
  if (routes.length > 0 && routes.every((r) => r.state === "open")) return "down";
  if (routes.some((r) => r.state !== "closed")) return "degraded";
  if (fiveMinutes.attempts >= DEGRADED_MIN_ATTEMPTS && (fiveMinutes.success_rate ?? 1) < DEGRADED_BELOW) return "degraded";
  return "operational";
}

function idle(upstream_model: string): RouteStatus {
  return {
    upstream_model,
    state: "closed",
    retry_at: null,
    windows: { "5m": emptyWindow(), "1h": emptyWindow(), "24h": emptyWindow() },
    hourly: Array.from({ length: 24 }, () => ({ completed: 0, failed: 0 })),
  };
}

function whatFailed(i: Incident): string {
  const codes = Object.entries(i.codes)
    .sort((a, b) => b[1] - a[1])
    .map(([code, n]) => `${code} ×${n}`)
    .join(", ");
  return `${i.failures} provider-side failures on ${i.provider} (${i.upstream_model}): ${codes}`;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The status document from the providers' own reports and the catalog's models. */
export function composeStatus(
  reports: ProviderStatus[],
  bundle: CatalogBundle,
  providers: Set<string>,
  now: number,
): ServiceStatus {
  const routes = new Map<string, RouteStatus>();
  const key = (p: string, m: string) => `${p}\u0000${m}`;
  for (const rep of reports) for (const r of rep.routes) routes.set(key(rep.provider, r.upstream_model), r);

  const modelsOfRoute = new Map<string, Set<string>>();
  const models: ServiceStatus["models"] = [];
  for (const model of Object.values(bundle.models).sort((a, b) => a.model.localeCompare(b.model))) {
    const mine = new Map<string, { provider: string; upstream_model: string }>();
    for (const card of model.interfaces) {
      if (!isOffered(model, card)) continue;
      for (const r of routesFor(model, card.capability, providers)) mine.set(key(r.provider, r.upstream_model), r);
    }
    if (mine.size === 0) continue;
    const list = [...mine.entries()].map(([k, r]) => ({ ...r, status: routes.get(k) ?? idle(r.upstream_model) }));
    for (const k of mine.keys()) {
      const set = modelsOfRoute.get(k) ?? new Set();
      set.add(model.model);
      modelsOfRoute.set(k, set);
    }
    const summed = sum(list.map((r) => r.status));
    models.push({
      model: model.model,
      state: stateOf(
        list.map((r) => r.status),
        summed.windows["5m"],
      ),
      routes: list.map((r) => ({
        provider: r.provider,
        upstream_model: r.upstream_model,
        state: routeHealthWord(r.status.state),
      })),
      ...summed,
    });
  }

  const openCircuits: ServiceStatus["open_circuits"] = [];
  const providerViews: ServiceStatus["providers"] = [];
  for (const rep of [...reports].sort((a, b) => a.provider.localeCompare(b.provider))) {
    // Its routes: every one the catalog gives it (idle when unreported), and any other it reported.
    const all = new Map(rep.routes.map((r) => [r.upstream_model, r]));
    for (const k of modelsOfRoute.keys()) {
      const [provider, upstream] = k.split("\u0000") as [string, string];
      if (provider === rep.provider && !all.has(upstream)) all.set(upstream, idle(upstream));
    }
    const routesOfProvider = [...all.values()];
    const open = rep.routes
      .filter((r) => r.state !== "closed")
      .map((r) => ({
        provider: rep.provider,
        upstream_model: r.upstream_model,
        state: r.state as "open" | "half_open",
        retry_at: iso(r.retry_at),
      }));
    openCircuits.push(...open);
    const summed = sum(rep.routes);
    providerViews.push({
      provider: rep.provider,
      state: stateOf(routesOfProvider, summed.windows["5m"]),
      ...summed,
      open_circuits: open,
    });
  }

  const incidents = reports
    .flatMap((r) => r.incidents)
    .sort((a, b) => b.started_at - a.started_at)
    .slice(0, 20)
    .map((i) => ({
      provider: i.provider,
      upstream_model: i.upstream_model,
      models: [...(modelsOfRoute.get(key(i.provider, i.upstream_model)) ?? [])].sort(),
      started_at: iso(i.started_at) as string,
      ended_at: iso(i.ended_at),
      failures: i.failures,
      what_failed: whatFailed(i),
      codes: i.codes,
    }));

  const states = providerViews.map((p) => p.state);
  const overall: HealthState =
    states.length > 0 && states.every((s) => s === "down")
      ? "down"
      : states.some((s) => s !== "operational")
        ? "degraded"
        : "operational";
  return {
    object: "status",
    generated_at: new Date(now).toISOString(),
    state: overall,
    providers: providerViews,
    models,
    open_circuits: openCircuits,
    incidents,
  };
}

let kept: { at: number; body: ServiceStatus } | null = null;

/** The status as this isolate last read it, at most STATUS_TTL_MS old. */
export async function serviceStatus(env: Env, now = Date.now()): Promise<ServiceStatus> {
  if (kept && now - kept.at < STATUS_TTL_MS) return kept.body;
  const providers = liveProviders(env, "live");
  const [bundle, reports] = await Promise.all([
    loadCatalog(env.CATALOG),
    Promise.all(
      [...providers].map(async (provider): Promise<ProviderStatus> => {
        try {
          const report = await healthObject(env, provider).status();
          return { ...report, provider, incidents: report.incidents.map((i) => ({ ...i, provider })) };
        } catch {
          return { provider, at: now, routes: [], incidents: [] };
        }
      }),
    ),
  ]);
  const body = composeStatus(reports, bundle, providers, now);
  kept = { at: now, body };
  return body;
}

/** Forgets the kept status (tests that change health and read it again at once). */
export function forgetStatus(): void {
  kept = null;
}
