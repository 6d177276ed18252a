/**
 * The caller's route preferences (`provider` on a create, a quote or a chat call) and the order
 * they give a model's routes. They run after the key's lists and before the tenant's own keys,
 * route health and price (docs/routing.md): they narrow and order what the service would do,
 * and never add a route the model does not have.
 */
import { z } from "@hono/zod-openapi";
import { PROVIDERS } from "../providers/names";

/** A provider this code knows; any other name is a 422 pointing at it. */
export const ProviderName = z
  .string()
  .refine((p) => Object.hasOwn(PROVIDERS, p), { message: `must be one of: ${Object.keys(PROVIDERS).join(", ")}` })
  .openapi({ description: "A provider name as `GET /v1/models` routes name it", example: "fal" });

const Providers = z.array(ProviderName).min(1).max(20);

export const ProviderPreferences = z
  .object({
    order: Providers.optional().openapi({
      description: "Providers to try first, in this order; then the model's other routes unless `allow_fallbacks` is false",
    }),
    only: Providers.optional().openapi({ description: "Use these providers' routes and no other" }),
    ignore: Providers.optional().openapi({ description: "Never use these providers' routes" }),
    sort: z.enum(["price", "latency"]).optional().openapi({
      description:
        "Order the routes not named in `order`: `price` by their price for this request, `latency` by their measured p50 over the last hour (routes without figures last)",
    }),
    allow_fallbacks: z.boolean().optional().openapi({
      description:
        "Default true. False: only the providers in `order` (or, without `order`, only the first route) may serve; the rest are never tried",
    }),
  })
  .strict()
  .openapi("ProviderPreferences", {
    description: "Route preferences for this request (docs/routing.md): which providers may serve it, and in what order",
  });
export type ProviderPreferences = z.infer<typeof ProviderPreferences>;

/** Anything with a provider: a media route plan, a chat route. */
export interface RouteLike {
  provider: string;
}

/** What sorting needs to know of a route; each is asked only when its sort is asked for. */
export interface RouteFigures<R> {
  /** The route's price of this request, in credits (a decimal string or a number). */
  price?: (route: R) => number;
  /** The route's measured p50 in ms, or null when it has none. */
  latency?: (route: R) => number | null;
}

/** Whether a request carries preferences that change anything (the usual call pays nothing). */
export function hasPreferences(p: ProviderPreferences | undefined): p is ProviderPreferences {
  return (
    !!p &&
    (p.order !== undefined ||
      p.only !== undefined ||
      p.ignore !== undefined ||
      p.sort !== undefined ||
      p.allow_fallbacks === false)
  );
}

/**
 * The routes the preferences leave, in the order they give. Routes keep their incoming order (the
 * card's, with the tenant's own keys placed) wherever the preferences say nothing, so a tenant's
 * `prefer` key still comes before the platform's route of the same provider.
 */
export function applyPreferences<R extends RouteLike>(
  routes: readonly R[],
  prefs: ProviderPreferences | undefined,
  figures: RouteFigures<R> = {},
): R[] {
  if (!hasPreferences(prefs)) return [...routes];
  const only = prefs.only ? new Set(prefs.only) : null;
  const ignore = new Set(prefs.ignore ?? []);
  let left = routes.filter((r) => (!only || only.has(r.provider)) && !ignore.has(r.provider));
  if (prefs.sort) left = sortRoutes(left, prefs.sort, figures);
  const order = prefs.order ?? [];
  const rank = new Map(order.map((p, i) => [p, i]));
  const named = left
    .filter((r) => rank.has(r.provider))
    .sort((a, b) => (rank.get(a.provider) as number) - (rank.get(b.provider) as number));
  const rest = left.filter((r) => !rank.has(r.provider));
  if (prefs.allow_fallbacks === false) return order.length > 0 ? named : left.slice(0, 1);
  return [...named, ...rest];
}

/** A stable sort by the asked figure; routes without one go last, in their incoming order. */
function sortRoutes<R>(routes: R[], sort: "price" | "latency", figures: RouteFigures<R>): R[] {
  const measure = sort === "price" ? figures.price : figures.latency;
  if (!measure) return routes;
  const keyed = routes.map((r, i) => ({ r, i, k: measure(r) }));
  keyed.sort((a, b) => {
    if (a.k === null || a.k === undefined) return b.k === null || b.k === undefined ? a.i - b.i : 1;
    if (b.k === null || b.k === undefined) return -1;
    return a.k - b.k || a.i - b.i;
  });
  return keyed.map((x) => x.r);
}

/** Why a model is passed over when the preferences leave it no route (a `candidate_failures` entry). */
export function excludedByPreferences(model: string, providers: readonly string[]) {
  return {
    model,
    code: "excluded_by_provider_preferences",
    param: "/provider",
    message: `The request's provider preferences leave ${model} no route (it is served by ${providers.join(", ") || "no provider"}).`,
    received: null,
    supported: { providers: [...new Set(providers)] },
    error: "unsupported_option" as const,
  };
}
