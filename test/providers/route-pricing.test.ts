/**
 * Prices per route: seedance-2.5's BytePlus route has BytePlus's own price, below the card's
 * (a reseller's): the estimate, the capture and the catalog all use the price of the route that
 * serves. A route that does not serve a capability is not used for it.
 */
import { describe, expect, it } from "vitest";
import type { ModelFile } from "../../src/catalog/schema";
import { routesFor } from "../../src/providers/routing";
import { call, newTenant } from "../helpers/api";
import { ledger, newKey } from "../helpers/tasks";
import { follow, newTag } from "./harness";

describe("prices per route", () => {
  it("estimates, captures and shows seedance-2.5 at its BytePlus route's price", async () => {
    const t = await newTenant({ credits: "1000" });
    const tag = newTag("route-price");
    const res = await call("/v1/videos/text-to-video", {
      key: t.api_key,
      body: { model: "seedance-2.5", prompt: `waves at dusk #tag:${tag}`, duration: 5, resolution: "720p" },
      headers: { "Idempotency-Key": newKey() },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.json.provider.name).toBe("byteplus");
    // BytePlus: 23.1 credits per second at 720p (the card's own, reseller price is 29).
    expect(res.json.billing.charged_credits).toBe("115.5");
    const { task } = await follow(t, res.json.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.usage.lines[0]).toMatchObject({
      meter: "output_video_seconds",
      quantity: String(task.usage.output_video_seconds),
    });
    expect(task.usage.credits).toBe((23.1 * task.usage.output_video_seconds).toFixed(1).replace(/\.0$/, ""));
    expect(((await ledger(t.tenant_id)) as any).totals.captured).toBe(task.usage.credits);

    const card = (await call("/v1/catalog/capabilities/text_to_video", { key: t.api_key })).json.models.find(
      (m: { model: string }) => m.model === "seedance-2.5",
    );
    const option = card.pricing.options.find(
      (o: { dimensions: Record<string, string> }) => o.dimensions.resolution === "720p" && o.dimensions.generate_audio === "true",
    );
    expect(option.unit_credits).toBe("23.1");
    expect(card.routes.find((r: { provider: string }) => r.provider === "byteplus")).toMatchObject({ live: true });
  });

  it("does not use a route for a capability it does not serve", () => {
    const model = {
      routes: [
        { provider: "byteplus", upstream_model: "x", capabilities: ["text_to_video"] },
        { provider: "sandbox", upstream_model: "x" },
      ],
    } as unknown as ModelFile;
    const providers = new Set(["byteplus", "sandbox"]);
    expect(routesFor(model, "text_to_video", providers).map((r) => r.provider)).toEqual(["byteplus"]);
    expect(routesFor(model, "image_to_video", providers).map((r) => r.provider)).toEqual(["sandbox"]);
  });
});
