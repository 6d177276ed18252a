/**
 * A quote takes the create's route choice, route health included: for a model whose every route
 * is open it is refused as the create is (503 all_routes_unhealthy), and `auto` quotes the model
 * the create would choose instead. The circuit is opened by reporting provider-side failures from
 * two tenants to the health object, as the task steps do.
 */
import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import { MIN_FAILURES } from "../../src/health/circuit";
import type { RouteOutcome } from "../../src/health/outcomes";
import { keepSnapshot } from "../../src/health/snapshot";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage } from "../helpers/tasks";
import { closeAllRoutes } from "./close";

afterAll(() => closeAllRoutes("sandbox"));

const quote = (t: TestTenant, request: Record<string, unknown>) =>
  call("/v1/quotes", { key: t.api_key, body: { operation: "text_to_image", request } });

describe("quotes and route health", () => {
  it("a model whose routes are all open is refused as the create refuses it; auto quotes another", async () => {
    const t = await newTenant({ credits: "1000" });
    const first = await quote(t, { model: "auto", prompt: "a calm lake" });
    expect(first.status, first.text).toBe(201);
    const model = first.json.resolved_model as string;

    const stub = env.HEALTH.getByName("sandbox");
    const failures: RouteOutcome[] = Array.from({ length: MIN_FAILURES }, (_, i) => ({
      provider: "sandbox",
      upstream_model: model,
      tenant_id: `ten_quote_health_${i % 2}`,
      task_id: `task_quote_health_${i}`,
      kind: "submit_refused",
      fault: "provider",
      code: "model_request_failed",
      at: Date.now(),
    }));
    await stub.report(failures);
    keepSnapshot("sandbox", await stub.snapshot());

    const created = await createImage(t, { model, prompt: "a calm lake" });
    expectError(created, 503, "model_unavailable", "/model");
    const refused = await quote(t, { model, prompt: "a calm lake" });
    expectError(refused, 503, "model_unavailable", "/model");
    expect(refused.json.error.details).toMatchObject({ model, reason: "all_routes_unhealthy" });
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);

    const steered = await quote(t, { model: "auto", prompt: "a calm lake" });
    expect(steered.status, steered.text).toBe(201);
    expect(steered.json.resolved_model).not.toBe(model);
  });
});
