/**
 * The one place that decides which routes serve a request, for chat and media alike.
 *
 * A route is live when the code has an adapter that serves the capability and the deployment has
 * configured its provider. The sandbox is a choice, never a fallback: it serves test-mode keys
 * everywhere, and live keys only where SANDBOX_FOR_LIVE_KEYS is "true" (the local configuration),
 * and there only for cards that no configured real provider serves.
 */
import type { Capability, ModelFile } from "../catalog/schema";
import type { Env } from "../env";
import { envPrefix, providersWithKeys } from "./config";
import { PROVIDERS, SANDBOX, serves } from "./names";
import type { RoutePlan } from "./route-plan";

export type { RoutePlan } from "./route-plan";

export type KeyMode = "live" | "test";

function sandboxOn(env: Env): boolean {
  return env.SANDBOX_ENABLED !== "false";
}

/** Per environment object and mode (bindings do not change while an isolate lives); shared, never changed. */
const live = new WeakMap<object, Partial<Record<KeyMode, ReadonlySet<string>>>>();

/** The providers whose routes are live for a caller in `mode` on this deployment. */
export function liveProviders(env: Env, mode: KeyMode): Set<string> {
  let byMode = live.get(env);
  if (!byMode) {
    byMode = {};
    live.set(env, byMode);
  }
  byMode[mode] ??= readLiveProviders(env, mode);
  return byMode[mode] as Set<string>;
}

function readLiveProviders(env: Env, mode: KeyMode): Set<string> {
  if (mode === "test") return new Set(sandboxOn(env) ? [SANDBOX] : []);
  const names = new Set<string>();
  for (const name of providersWithKeys(env)) {
    const known = Object.hasOwn(PROVIDERS, name) ? PROVIDERS[name] : undefined;
    if (!known || name === SANDBOX) continue;
    if (known.needsBaseUrl && !(env as unknown as Record<string, unknown>)[`${envPrefix(name)}BASE_URL`]) continue;
    names.add(name);
  }
  if (sandboxOn(env) && env.SANDBOX_FOR_LIVE_KEYS === "true") names.add(SANDBOX);
  return names;
}

/** Whether a route serves a capability: its provider's adapter does, and the route does not exclude it. */
export function routeServes(route: ModelFile["routes"][number], capability: Capability): boolean {
  return serves(route.provider, capability) && (!route.capabilities || route.capabilities.includes(capability));
}

/** The id the upstream knows the model by for this capability. */
export function upstreamModel(route: ModelFile["routes"][number], capability: Capability): string {
  return route.upstream_models?.[capability] ?? route.upstream_model;
}

/**
 * The routes a request for `capability` of `model` may run on, in the order they are tried:
 * the live real routes in the card's order; the sandbox only when no real route is live.
 */
export function routesFor(model: ModelFile, capability: Capability, providers: Set<string>): RoutePlan[] {
  const usable = model.routes.filter((r) => providers.has(r.provider) && routeServes(r, capability));
  const real = usable.filter((r) => r.provider !== SANDBOX);
  const chosen = real.length > 0 ? real : usable;
  return chosen.map((r) => {
    const pricing = r.pricing?.[capability];
    return { provider: r.provider, upstream_model: upstreamModel(r, capability), ...(pricing ? { pricing } : {}) };
  });
}

/** Whether a model's capability has a live route for these providers. */
export function hasLiveRoute(model: ModelFile, capability: Capability, providers: Set<string>): boolean {
  return model.routes.some((r) => providers.has(r.provider) && routeServes(r, capability));
}
