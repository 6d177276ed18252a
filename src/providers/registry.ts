import type { z } from "zod";
import type { Route } from "../catalog/schema";
import { sandboxAdapter } from "./sandbox/adapter";
import type { ProviderAdapter } from "./types";

/** Adapters by provider name; a route is usable when its provider has an adapter and is configured. */
const ADAPTERS: Record<string, ProviderAdapter> = {
  sandbox: sandboxAdapter,
};

export function adapterFor(provider: string): ProviderAdapter | null {
  return Object.hasOwn(ADAPTERS, provider) ? (ADAPTERS[provider] as ProviderAdapter) : null;
}

/** The route a task runs on: a configured real upstream first, the sandbox otherwise. */
export function chooseRoute(routes: z.infer<typeof Route>[], configured: Set<string>): z.infer<typeof Route> | null {
  const usable = routes.filter((r) => configured.has(r.provider) && adapterFor(r.provider));
  return usable.find((r) => r.provider !== "sandbox") ?? usable[0] ?? null;
}
