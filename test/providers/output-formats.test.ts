/**
 * Output formats against real routes (live keys, adapters against the fake upstreams): a format
 * the card lists but no route that would serve the request can deliver is refused at admission,
 * and a route that cannot deliver it is left out of the order instead of failing the task later.
 */
import { describe, expect, it } from "vitest";
import { PROVIDERS } from "../../src/providers/names";
import { outputKind, PROVIDERS_WITH_OUTPUT_FORMATS, routeOutputFormats } from "../../src/providers/output-formats";
import { call, expectError, newTenant } from "../helpers/api";
import { newKey } from "../helpers/tasks";
import { fakeRequests, follow, newTag } from "./harness";

const body = (model: string, tag: string, output_format?: string, tier = "1K") => ({
  model,
  prompt: `A lighthouse at dawn #tag:${tag}`,
  canvas: { type: "preset", tier, aspect: "1:1" },
  ...(output_format ? { output_format } : {}),
});

describe("output formats on real routes", () => {
  it("declares what every media provider's adapter delivers, for each kind of output it serves", () => {
    for (const [name, serves] of Object.entries(PROVIDERS)) {
      for (const capability of serves.media) {
        if (!outputKind(capability)) continue;
        expect(PROVIDERS_WITH_OUTPUT_FORMATS, name).toContain(name);
        expect(routeOutputFormats(name, capability, "any").length, `${name} ${capability}`).toBeGreaterThan(0);
      }
    }
    // fal's GPT Image endpoints take webp; its FLUX endpoints do not.
    expect(routeOutputFormats("fal", "text_to_image", "openai/gpt-image-2")).toContain("image/webp");
    expect(routeOutputFormats("fal", "text_to_image", "fal-ai/flux-2-pro")).not.toContain("image/webp");
    expect(routeOutputFormats("sandbox", "text_to_speech", "x")).toContain("audio/ogg");
  });

  it("refuses webp at admission when the card lists it but none of its live routes (BFL, fal FLUX) makes it", async () => {
    const t = await newTenant({ credits: "1000" });
    const res = await call("/v1/images/generations", {
      key: t.api_key,
      body: body("flux-pro-1.1-ultra", newTag("ultra-webp"), "webp", "2K"),
      headers: { "Idempotency-Key": newKey() },
    });
    const e = expectError(res, 422, "unsupported_option", "/output_format");
    expect(e.details.candidate_failures[0]).toMatchObject({
      model: "flux-pro-1.1-ultra",
      code: "output_format_unavailable",
      received: "image/webp",
      supported: ["image/jpeg", "image/png"],
    });
    expect(e.message).toMatch(/bfl, fal/);
    // Nothing was reserved.
    expect((await call("/v1/tasks?limit=5", { key: t.api_key })).json.data).toHaveLength(0);
  });

  it("serves webp from the route that makes it (Replicate), passing over those that cannot, and sends the format", async () => {
    const t = await newTenant({ credits: "1000" });
    const tag = newTag("flux2-webp");
    const res = await call("/v1/images/generations", {
      key: t.api_key,
      body: body("flux-2-pro", tag, "webp"),
      headers: { "Idempotency-Key": newKey() },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.json.provider.name).toBe("replicate");
    const { task } = await follow(t, res.json.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    const sent = (await fakeRequests("replicate", tag)).find((r) => r.method === "POST");
    expect(sent?.body.input.output_format).toBe("webp");
    expect(await fakeRequests("bfl", tag)).toHaveLength(0);
  });

  it("keeps the card's default format on the first route when none is asked for", async () => {
    const t = await newTenant({ credits: "1000" });
    const res = await call("/v1/images/generations", {
      key: t.api_key,
      body: body("flux-2-pro", newTag("flux2-default")),
      headers: { "Idempotency-Key": newKey() },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.json.provider.name).toBe("bfl");
  });
});
