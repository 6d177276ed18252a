/** `GET /v1/status`: route health for everyone, per provider and per model (src/health/status.ts). */
import { z } from "@hono/zod-openapi";

const State = z.enum(["operational", "degraded", "down"]).openapi({
  description:
    "down: every route open (failing for every caller); degraded: a route open or probed, or under 90 % success over 5 minutes",
});

const Window = z
  .object({
    attempts: z
      .number()
      .int()
      .openapi({ description: "Jobs completed plus provider-side failures (refused submissions, failed jobs and outputs)" }),
    success_rate: z.number().nullable().openapi({ description: "Completed jobs over attempts, 0..1; null without attempts" }),
    p50_seconds: z
      .number()
      .nullable()
      .openapi({ description: "Median time from the upstream accepting a job to its outputs stored (bucket upper bound)" }),
    p95_seconds: z.number().nullable(),
  })
  .openapi("StatusWindow");

const Windows = z.object({ "5m": Window, "1h": Window, "24h": Window });

const Circuit = z
  .object({
    provider: z.string(),
    upstream_model: z.string(),
    state: z.enum(["open", "half_open"]),
    retry_at: z.string().nullable().openapi({ description: "When the circuit lets one probe submission through (ISO 8601)" }),
  })
  .openapi("StatusCircuit");

const Incident = z
  .object({
    provider: z.string(),
    upstream_model: z.string(),
    models: z.array(z.string()),
    started_at: z.string(),
    ended_at: z.string().nullable(),
    failures: z.number().int(),
    what_failed: z.string(),
    codes: z.record(z.string(), z.number().int()),
  })
  .openapi("StatusIncident");

const Hourly = z
  .array(z.number().nullable())
  .openapi({ description: "Success rate hour by hour over the last 24 hours, oldest first (null: no attempts that hour)" });

export const ProviderStatusView = z
  .object({
    provider: z.string(),
    state: State,
    windows: Windows,
    hourly_success: Hourly,
    open_circuits: z.array(Circuit),
  })
  .openapi("ProviderStatus");

export const ModelStatusView = z
  .object({
    model: z.string(),
    state: State,
    routes: z.array(z.object({ provider: z.string(), upstream_model: z.string(), state: State })),
    windows: Windows,
    hourly_success: Hourly,
  })
  .openapi("ModelStatus");

export const ServiceStatus = z
  .object({
    object: z.literal("status"),
    generated_at: z.string(),
    state: State,
    providers: z.array(ProviderStatusView),
    models: z.array(ModelStatusView),
    open_circuits: z.array(Circuit),
    incidents: z.array(Incident),
  })
  .openapi("ServiceStatus");
export type ServiceStatus = z.infer<typeof ServiceStatus>;
