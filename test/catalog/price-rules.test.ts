/**
 * The catalog's rules about prices and freshness: every price names whose it is, a reseller's
 * price on a maker's own route is refused unless it is a stated estimate, a published price
 * change takes effect on its day without dropping a price, token-billed tasks name a default
 * output budget, and cards not checked for 90 days are reported.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildCatalog, type CatalogFiles, catalogWarnings, citedHosts, STALE_AFTER_DAYS } from "../../src/catalog/build";
import { pricedMeters, pricingAt } from "../../src/catalog/pricing";
import type { InterfaceFile } from "../../src/catalog/schema";
import { cardView, modelDetail } from "../../src/catalog/views";
import { tokenPrices } from "../../src/chat/pricing";
import { refusal } from "./refusal";

const files: CatalogFiles = JSON.parse(env.TEST_CATALOG);
const bundle = buildCatalog(files);
const card = (model: string, capability: string) =>
  bundle.models[model]?.interfaces.find((i) => i.capability === capability) as InterfaceFile;

function edited(name: string, edit: (json: any) => void): CatalogFiles {
  const json = JSON.parse(files[`models/${name}.json`] as string);
  edit(json);
  return { ...files, [`models/${name}.json`]: JSON.stringify(json) };
}

describe("whose price it is", () => {
  it("every price names its source_kind", () => {
    const e = refusal(edited("flux-2-max", (m) => delete m.interfaces[0].pricing.source_kind));
    expect(e.file).toBe("models/flux-2-max.json");
    expect(e.field).toBe("/interfaces/0/pricing/source_kind");
  });

  it("refuses a reseller's price on the maker's own route unless it is a stated estimate", () => {
    const e = refusal(edited("flux-2-max", (m) => delete m.interfaces[0].pricing.estimate_reason));
    expect(e.field).toBe("/interfaces/0/pricing/source_kind");
    expect(e.message).toContain("the direct route 'bfl' bills text_to_image at a reseller's price");
    expect(e.message).toContain("estimate_reason");
  });

  it("judges a route's own price where it has one", () => {
    const e = refusal(
      edited("gemini-nano-banana-2.1", (m) => {
        delete m.routes[0].pricing.image_edit.estimate_reason;
      }),
    );
    expect(e.field).toBe("/routes/0/pricing/image_edit/source_kind");
  });

  it("lets a host's route bill a host's price without a reason", () => {
    const pixverse = bundle.models["pixverse-v6"];
    expect(pixverse?.routes.map((r) => r.provider)).toEqual(["fal", "sandbox"]);
    expect(pixverse?.interfaces[0]?.pricing).toMatchObject({ source_kind: "reseller" });
    expect(pixverse?.interfaces[0]?.pricing.estimate_reason).toBeUndefined();
  });
});

describe("a first-party price cites the provider's own page", () => {
  const lunaSource = (m: any) => m.source as string;
  const withoutFile = (name: string): CatalogFiles => {
    const { [name]: _gone, ...rest } = files;
    return rest;
  };

  it("refuses first_party when the source cites only a reseller's page", () => {
    const e = refusal(
      edited("gpt-6-luna", (m) => {
        m.source = lunaSource(m).replace(
          "developers.openai.com/api/docs/models/gpt-6-luna",
          "https://docs.venice.ai/models/gpt-6-luna",
        );
      }),
    );
    expect(e.file).toBe("models/gpt-6-luna.json");
    expect(e.field).toBe("/interfaces/0/pricing/source_kind");
    expect(e.message).toContain("cites no page on openai's own domains (openai.com)");
    expect(e.message).toContain("its source cites docs.venice.ai");
    expect(e.message).toContain("mark the price reseller");
  });

  it("refuses first_party when the source cites no address at all", () => {
    const e = refusal(edited("gpt-6-luna", (m) => (m.source = "OpenAI's model page (prices per 1M tokens).")));
    expect(e.message).toContain("its source cites no address");
  });

  it("counts a subdomain of the provider's own domain, never a look-alike", () => {
    const cite = (url: string) => edited("gpt-6-luna", (m) => (m.source = `Prices from ${url} (checked 2026-12-02).`));
    expect(() => buildCatalog(cite("https://platform.openai.com/docs/pricing"))).not.toThrow();
    expect(refusal(cite("https://openai.com.prices.example/gpt-6-luna")).message).toContain("openai.com.prices.example");
    expect(refusal(cite("https://notopenai.com/gpt-6-luna")).message).toContain("cites no page on openai's own domains");
  });

  it("judges a route's own first_party price by the route's source", () => {
    const firstParty = (source: string) =>
      edited("gemini-nano-banana-2.1", (m) => {
        for (const price of Object.values(m.routes[0].pricing) as any[]) {
          price.source_kind = "first_party";
          delete price.estimate_reason;
        }
        m.routes[0].source = source;
      });
    const e = refusal(firstParty("LiteLLM's day-0 note, https://docs.litellm.ai/blog/nano-banana-2-1"));
    expect(e.field).toBe("/routes/0/pricing/text_to_image/source_kind");
    expect(e.message).toContain("google's own domains");
    expect(() => buildCatalog(firstParty("Google's price page https://ai.google.dev/gemini-api/docs/pricing"))).not.toThrow();
  });

  it("a host's route bills a reseller's price, never first_party", () => {
    const e = refusal(
      edited("flux-2-pro", (m) => {
        const fal = m.routes.findIndex((r: any) => r.provider === "fal");
        m.routes[fal].pricing = {
          text_to_image: { ...m.interfaces[0].pricing, source_kind: "first_party", estimate_reason: undefined },
        };
        m.routes[fal].source = "https://fal.ai/models/fal-ai/flux-2-pro";
      }),
    );
    expect(e.message).toContain("'fal' is a host");
  });

  it("a provider billing a first_party price needs its own domains recorded", () => {
    const e = refusal(withoutFile("providers/openai.json"));
    expect(e.message).toContain("needs that provider's own domains in providers/openai.json");
  });

  it("checks the domains file itself", () => {
    const file = JSON.parse(files["providers/openai.json"] as string);
    const edit = (change: object) => ({ ...files, "providers/openai.json": JSON.stringify({ ...file, ...change }) });
    expect(refusal(edit({ provider: "anthropic" })).field).toBe("/provider");
    expect(refusal(edit({ domains: ["https://openai.com"] })).field).toBe("/domains/0");
    expect(refusal(edit({ checked_at: undefined })).field).toBe("/checked_at");
    expect(
      refusal({ ...files, "providers/midjourney.json": JSON.stringify({ ...file, provider: "midjourney" }) }).message,
    ).toContain("no adapter for provider 'midjourney'");
  });

  it("reads addresses with or without a scheme, and file names are not addresses", () => {
    expect(citedHosts("DeepSeek's page (api-docs.deepseek.com/quick_start/pricing, checked)")).toEqual(["api-docs.deepseek.com"]);
    expect(citedHosts("see https://Docs.BytePlus.com/en/docs/x and notes/models.md §1.4")).toEqual(["docs.byteplus.com"]);
    expect(citedHosts("notes/models.md §6 and provider-protocols.md; $1.50/1M tokens")).toEqual([]);
  });
});

describe("price schedules", () => {
  const step = (options: unknown[], from = "2027-01-01") => ({
    effective_from: from,
    options,
    source: "provider price page",
    source_kind: "first_party",
  });

  it("a scheduled price takes effect at 00:00 UTC on its day, and the estimate and the charge use it", () => {
    const flash = card("gemini-3.8-flash", "chat_completion");
    const before = Date.parse("2026-12-31T23:59:59Z");
    const on = Date.parse("2027-01-01T00:00:00Z");
    expect(pricingAt(flash.pricing, before).options).toBe(flash.pricing.options);
    expect(tokenPrices(flash, 1000, before)).toMatchObject({ input: "0.000075", output: "0.000375" });
    expect(tokenPrices(flash, 1000, on)).toMatchObject({ input: "0.00015", output: "0.00075", cache_read: "0.0000075" });
  });

  it("a chat call admitted before a step's day keeps the earlier price after the day has begun", () => {
    const flash = card("gemini-3.8-flash", "chat_completion");
    const doubled = flash.pricing.options.map((o) => ({ ...o, unit_credits: String(Number(o.unit_credits) * 2) }));
    const stepped = { ...flash, pricing: { ...flash.pricing, schedule: [step(doubled, "2020-01-01")] } } as InterfaceFile;
    const admitted = Date.parse("2019-12-31T23:59:00Z");
    expect(tokenPrices(stepped, 1000, admitted)).toEqual(tokenPrices({ ...stepped, pricing: flash.pricing }, 1000, admitted));
    expect(tokenPrices(stepped, 1000, Date.parse("2020-01-01T00:00:00Z")).input).toBe(
      String(Number(tokenPrices(flash, 1000, admitted).input) * 2),
    );
  });

  it("task meters are priced with the price in force now", () => {
    const base = card("flux-2-max", "text_to_image");
    const doubled = base.pricing.options.map((o) => ({ ...o, unit_credits: String(Number(o.unit_credits) * 2) }));
    const past = { ...base, pricing: { ...base.pricing, schedule: [step(doubled, "2020-01-01")] } } as InterfaceFile;
    const future = { ...base, pricing: { ...base.pricing, schedule: [step(doubled, "2999-01-01")] } } as InterfaceFile;
    const dims = base.pricing.options[0]?.dimensions ?? {};
    const now = pricedMeters(past, dims, "image_count")[0]?.unit_credits;
    expect(now).toBe(doubled[0]?.unit_credits);
    expect(pricedMeters(future, dims, "image_count")[0]?.unit_credits).toBe(base.pricing.options[0]?.unit_credits);
  });

  it("the catalog shows the price in force, whose it is, and the coming steps", () => {
    const ctx = { bundle, providers: new Set(["sandbox"]) };
    const model = bundle.models["gemini-3.8-flash"]!;
    const detail = modelDetail(ctx, model).interfaces[0]!.pricing as Record<string, unknown>;
    expect(detail).toMatchObject({ source_kind: "first_party", unit_credits: "0.0000075" });
    expect(detail.schedule).toEqual([expect.objectContaining({ effective_from: "2027-01-01", source_kind: "reseller" })]);
    const card = cardView(ctx, model, model.interfaces[0]!, "capability").pricing as Record<string, unknown>;
    expect(card.schedule).toBeDefined();
    const seedream = modelDetail(ctx, bundle.models["seedream-4.5"]!).interfaces[0]!.pricing as Record<string, unknown>;
    expect(seedream).toMatchObject({ source_kind: "first_party" });
    expect(seedream.estimate_reason).toBeUndefined();
  });

  it("refuses steps out of date order", () => {
    const e = refusal(
      edited("gemini-3.8-flash", (m) => {
        const s = m.interfaces[0].pricing.schedule[0];
        m.interfaces[0].pricing.schedule = [s, { ...s, effective_from: "2026-12-01" }];
      }),
    );
    expect(e.field).toBe("/interfaces/0/pricing/schedule");
    expect(e.message).toContain("increasing effective_from");
  });

  it("refuses a step that drops a price", () => {
    const e = refusal(
      edited("gemini-3.8-flash", (m) => {
        m.interfaces[0].pricing.schedule[0].options.pop();
      }),
    );
    expect(e.field).toBe("/interfaces/0/pricing/schedule/0/options");
    expect(e.message).toContain("same option dimensions");
  });

  it("holds a scheduled reseller's price on a direct route to the same rule", () => {
    const e = refusal(
      edited("gemini-3.8-flash", (m) => {
        delete m.interfaces[0].pricing.schedule[0].estimate_reason;
      }),
    );
    expect(e.field).toBe("/interfaces/0/pricing/schedule/0/source_kind");
  });
});

describe("long-context prices", () => {
  it("above 272K input tokens GPT-6 Luna bills the whole request at the higher tier", () => {
    const luna = card("gpt-6-luna", "chat_completion");
    expect(tokenPrices(luna, 272_000)).toEqual({
      input: "0.00001",
      cache_read: "0.000001",
      cache_write: "0.0000125",
      output: "0.00005",
      reasoning: "0.00005",
    });
    expect(tokenPrices(luna, 272_001)).toEqual({
      input: "0.00002",
      cache_read: "0.000002",
      cache_write: "0.000025",
      output: "0.000075",
      reasoning: "0.000075",
    });
  });

  it("a task's meters take one price per token type, in the tier its prompt falls in", () => {
    const luna = card("gpt-6-luna", "image_to_text");
    const short = pricedMeters(luna, {}, "input_tokens", 2000);
    expect(short.map((m) => m.meter)).toEqual([
      "input_tokens",
      "cache_read_tokens",
      "cache_creation_tokens",
      "output_tokens",
      "reasoning_tokens",
    ]);
    expect(short.find((m) => m.meter === "output_tokens")?.unit_credits).toBe("0.00005");
    expect(pricedMeters(luna, {}, "input_tokens", 300_000).find((m) => m.meter === "output_tokens")?.unit_credits).toBe(
      "0.000075",
    );
  });
});

describe("output budgets", () => {
  it("a token-billed task names the output budget it reserves", () => {
    const e = refusal(edited("gpt-6-luna", (m) => delete m.interfaces[1].default_output_tokens));
    expect(e.field).toBe("/interfaces/1/default_output_tokens");
    expect(e.message).toContain("not the card's maximum");
  });

  it("the budget stays within the card's maximum", () => {
    const e = refusal(
      edited("gpt-6-luna", (m) => {
        m.interfaces[1].default_output_tokens = m.interfaces[1].max_output_tokens + 1;
      }),
    );
    expect(e.field).toBe("/interfaces/1/default_output_tokens");
  });
});

describe("stale cards", () => {
  const checkedAt = (date: string) => buildCatalog(edited("flux-2-max", (m) => (m.checked_at = date)));
  const now = Date.parse("2027-03-01T12:00:00Z");
  const daysBefore = (n: number) => new Date(now - n * 86_400_000).toISOString().slice(0, 10);

  it(`warns when a card was last checked more than ${STALE_AFTER_DAYS} days ago`, () => {
    const warnings = catalogWarnings(checkedAt(daysBefore(STALE_AFTER_DAYS + 1)), now).filter((w) => w.includes("flux-2-max"));
    expect(warnings).toEqual([expect.stringContaining("catalog-data/models/flux-2-max.json at /checked_at")]);
    expect(warnings[0]).toContain(`${STALE_AFTER_DAYS + 1} days ago`);
  });

  it(`is quiet at ${STALE_AFTER_DAYS} days`, () => {
    const warnings = catalogWarnings(checkedAt(daysBefore(STALE_AFTER_DAYS)), now);
    expect(warnings.filter((w) => w.includes("flux-2-max"))).toEqual([]);
  });
});
