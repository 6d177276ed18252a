/**
 * Deprecations keep the catalog true: a deprecated card names a replacement that exists, the
 * catalog refuses to build once a shutdown date has passed (until the card is updated), the model
 * is not live from that day, auto prefers other models, and responses carry RFC 9745/8594 headers.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildCatalog, type CatalogFiles } from "../../src/catalog/build";
import { deprecationHeaders, deprecationWarning, isShutDown } from "../../src/catalog/deprecation";
import { interfacesOf, isOffered } from "../../src/catalog/views";
import { refusal } from "./refusal";

const files: CatalogFiles = JSON.parse(env.TEST_CATALOG);
const MODEL = "models/flux-2-max.json";

function withDeprecation(deprecation: Record<string, unknown>, status = "deprecated"): CatalogFiles {
  const json = JSON.parse(files[MODEL] as string);
  json.status = status;
  json.deprecation = deprecation;
  return { ...files, [MODEL]: JSON.stringify(json) };
}

const announced = { announced_at: "2026-10-01", note: "superseded", source: "provider changelog" };

describe("deprecations in the catalog", () => {
  it("accepts a deprecated card with a future shutdown and an existing replacement", () => {
    const bundle = buildCatalog(
      withDeprecation({ ...announced, shutdown_at: "2027-03-01", replacement: "flux-2-pro" }),
      "2026-11-22T00:00:00Z",
    );
    expect(bundle.models["flux-2-max"]?.deprecation?.replacement).toBe("flux-2-pro");
  });

  it("refuses a deprecation on a card that does not say deprecated", () => {
    expect(refusal(withDeprecation(announced, "live")).field).toBe("/status");
  });

  it("refuses a replacement the catalog does not have", () => {
    expect(refusal(withDeprecation({ ...announced, replacement: "flux-9" })).field).toBe("/deprecation/replacement");
  });

  it("refuses a replacement that does not serve every operation of the model it replaces", () => {
    // gemini-3.6-flash serves chat and understanding, not image generation: a warning naming it
    // on an image request would send the caller to a model that refuses them.
    const e = refusal(withDeprecation({ ...announced, replacement: "gemini-3.6-flash" }));
    expect(e.field).toBe("/deprecation/replacement");
    expect(e.message).toContain("'gemini-3.6-flash' does not serve text_to_image as a live model");
  });

  it("refuses a replacement that is itself deprecated", () => {
    const f = withDeprecation({ ...announced, replacement: "flux-2-pro" });
    const pro = JSON.parse(f["models/flux-2-pro.json"] as string);
    pro.status = "deprecated";
    pro.deprecation = announced;
    const e = refusal({ ...f, "models/flux-2-pro.json": JSON.stringify(pro) });
    expect(e.file).toBe(MODEL);
    expect(e.field).toBe("/deprecation/replacement");
  });

  it("a deprecated card with a shutdown date sends Sunset (gpt-4o-mini-tts, shut down by OpenAI on 2027-01-06)", () => {
    const tts = buildCatalog(files).models["gpt-4o-mini-tts"]!;
    expect(tts.status).toBe("deprecated");
    expect(deprecationHeaders(tts).Sunset).toBe("Wed, 06 Jan 2027 00:00:00 GMT");
    expect(deprecationWarning(tts)[0]?.message).toContain("shuts down on 2027-01-06");
  });

  it("refuses a card marked deprecated without its deprecation (its responses could not say when it goes)", () => {
    const json = JSON.parse(files[MODEL] as string);
    json.status = "deprecated";
    const e = refusal({ ...files, [MODEL]: JSON.stringify(json) });
    expect(e.field).toBe("/deprecation");
    expect(e.message).toContain("Sunset");
  });

  it("the catalog's deprecated models name replacements serving all their operations", () => {
    const bundle = buildCatalog(files);
    for (const model of Object.values(bundle.models)) {
      const replacement = model.deprecation?.replacement;
      if (!replacement) continue;
      const serves = bundle.models[replacement]?.interfaces.map((i) => i.capability) ?? [];
      for (const card of model.interfaces) expect(serves, `${model.model} → ${replacement}`).toContain(card.capability);
    }
  });

  it("refuses to build once the shutdown date has passed, until the card is retired", () => {
    const past = withDeprecation({ ...announced, shutdown_at: "2026-11-01" });
    const e = refusal(past, "2026-11-22T00:00:00Z");
    expect(e.field).toBe("/deprecation/shutdown_at");
    expect(e.message).toContain("has passed");
    // The same card built before the date is fine; retired after it is fine.
    expect(() => buildCatalog(past, "2026-10-15T00:00:00Z")).not.toThrow();
    expect(() =>
      buildCatalog(withDeprecation({ ...announced, shutdown_at: "2026-11-01" }, "retired"), "2026-11-22T00:00:00Z"),
    ).not.toThrow();
  });

  it("is not live from the shutdown date, and auto tries deprecated cards last", () => {
    const bundle = buildCatalog(withDeprecation({ ...announced, shutdown_at: "2027-03-01" }), "2026-11-22T00:00:00Z");
    const model = bundle.models["flux-2-max"]!;
    const card = model.interfaces[0]!;
    expect(isShutDown(model, Date.parse("2027-02-28T23:59:59Z"))).toBe(false);
    expect(isShutDown(model, Date.parse("2027-03-01T00:00:00Z"))).toBe(true);
    expect(isOffered(model, card)).toBe(true);
    const order = interfacesOf({ bundle, providers: new Set(["sandbox"]) }, "text_to_image").map((c) => c.model.model);
    expect(order.at(-1)).toBe("flux-2-max");
  });

  it("says so in headers (RFC 9745 Deprecation, RFC 8594 Sunset, successor link) and in a warning", () => {
    const bundle = buildCatalog(
      withDeprecation({ ...announced, shutdown_at: "2027-03-01", replacement: "flux-2-pro" }),
      "2026-11-22T00:00:00Z",
    );
    const model = bundle.models["flux-2-max"]!;
    expect(deprecationHeaders(model)).toEqual({
      Deprecation: `@${Date.parse("2026-10-01T00:00:00Z") / 1000}`,
      Sunset: "Mon, 01 Mar 2027 00:00:00 GMT",
      Link: '</v1/catalog/models/flux-2-pro>; rel="successor-version"',
    });
    expect(deprecationWarning(model)[0]).toMatchObject({ code: "model_deprecated", field: "/model" });
    expect(deprecationWarning(model)[0]?.message).toContain("2027-03-01");
    expect(deprecationHeaders(bundle.models["flux-2-pro"]!)).toEqual({});
  });
});
