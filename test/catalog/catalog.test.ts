import { beforeAll, describe, expect, it } from "vitest";
import { CAPABILITIES } from "../../src/catalog/schema";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant();
});
const get = (path: string) => call(path, { key: t.api_key });

describe("model lists", () => {
  it.each(["/v1/models", "/v1/catalog/models"])("%s has the chat-compatible list shape", async (path) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.json.object).toBe("list");
    expect(res.json.data.length).toBeGreaterThan(30);
    for (const m of res.json.data) {
      expect(m).toMatchObject({ object: "model" });
      expect(typeof m.id).toBe("string");
      expect(Number.isInteger(m.created)).toBe(true);
      expect(typeof m.owned_by).toBe("string");
      expect(m.available).toBe(true);
    }
    const ids = res.json.data.map((m: { id: string }) => m.id);
    expect(ids).toEqual([...ids].sort());
  });

  it("both lists are the same", async () => {
    expect((await get("/v1/models")).json).toEqual((await get("/v1/catalog/models")).json);
  });
});

describe("capabilities", () => {
  it("lists all 14 capabilities", async () => {
    const res = await get("/v1/catalog/capabilities");
    expect(res.status).toBe(200);
    expect(res.json.data.map((c: { capability: string }) => c.capability).sort()).toEqual([...CAPABILITIES].sort());
    const chat = res.json.data.find((c: { capability: string }) => c.capability === "chat_completion");
    expect(chat).toMatchObject({ lifecycle: "ga", visibility: "internal", endpoint: "POST /v1/chat/completions" });
    for (const c of res.json.data.filter((x: { capability: string }) => x.capability !== "chat_completion")) {
      expect(c).toMatchObject({ lifecycle: "preview", visibility: "public", execution_mode: "async", status: "available" });
      expect(c.starting_credits).toMatch(/^\d+(\.\d+)?$/);
    }
  });

  const minimums: Record<string, number> = {
    text_to_image: 11,
    text_to_video: 9,
    frames_to_video: 5,
    video_extend: 7,
    text_to_music: 2,
    text_to_speech: 2,
    video_to_text: 1,
    image_to_text: 1,
    video_prompt_enhance: 1,
    chat_completion: 3,
  };

  it.each(CAPABILITIES)("detail of %s has auto, typed cards and figures", async (capability) => {
    const res = await get(`/v1/catalog/capabilities/${capability}`);
    expect(res.status).toBe(200);
    const d = res.json;
    expect(d.capability).toBe(capability);
    expect(d.auto).toMatchObject({ default_model: "auto", persisted_selection_field: "resolved_model" });
    expect(typeof d.auto.basic_request_preference).toBe("string");
    expect(typeof d.auto.request_dependent).toBe("boolean");
    expect(d.models.length).toBeGreaterThanOrEqual(minimums[capability] ?? 1);
    expect(d.starting_credits).toMatch(/^\d+(\.\d+)?$/);
    for (const card of d.models) {
      expect(card.capability).toBe(capability);
      expect(card.schema_version).toMatch(/-interface\.v\d+$/);
      for (const field of ["model", "display_name", "owned_by", "status", "quality_tier"])
        expect(typeof card[field]).toBe("string");
      expect(Array.isArray(card.controls)).toBe(true);
      expect(Array.isArray(card.rules)).toBe(true);
      expect(card.pricing).toMatchObject({
        meter: expect.any(String),
        unit: expect.any(String),
        billing_basis: expect.any(String),
      });
      expect(card.pricing.options.length).toBeGreaterThan(0);
      expect(card.auto).toEqual(d.auto);
      const sandbox = card.routes.find((r: { provider: string }) => r.provider === "sandbox");
      // The sandbox serves a card locally only where no configured real route does.
      const realLive = card.routes.some((r: { provider: string; live: boolean }) => r.provider !== "sandbox" && r.live);
      expect(sandbox).toMatchObject({ live: !realLive, simulated: true });
      expect(card.available).toBe(true);
      expect(card.available).toBe(true);
      // Internal ranking never leaves the service.
      expect(card.auto_rank).toBeUndefined();
    }
    if (d.detail_variant === "image") {
      expect(d.max_output_images).toBeGreaterThanOrEqual(1);
      expect(d.max_output_images).toBeLessThanOrEqual(4);
      expect(d.max_canvas_pixels).toBeGreaterThan(1_000_000);
      for (const card of d.models) {
        expect(card.canvas.preset_tiers).toContain("2K");
        expect(card.canvas.presets["2K"]["16:9"]).toHaveLength(2);
      }
    }
  });

  it("spec's exact model counts for image generation, text-to-video, frames-to-video, extension, music, speech and video understanding", async () => {
    const count = async (c: string) => (await get(`/v1/catalog/capabilities/${c}`)).json.models.length;
    expect(await count("text_to_image")).toBe(11);
    expect(await count("text_to_video")).toBe(9);
    expect(await count("frames_to_video")).toBe(5);
    expect(await count("video_extend")).toBe(7);
    expect(await count("text_to_music")).toBe(2);
    expect(await count("text_to_speech")).toBe(2);
    expect(await count("video_to_text")).toBe(1);
  });

  it("unknown capability: 404 envelope", async () => {
    expectError(await get("/v1/catalog/capabilities/text_to_smell"), 404, "not_found");
  });
});

describe("model detail", () => {
  it("every listed model has a detail with interfaces whose pricing has unit_credits", async () => {
    const list = (await get("/v1/models")).json.data;
    for (const m of list) {
      const res = await get(`/v1/catalog/models/${encodeURIComponent(m.id)}`);
      expect(res.status, m.id).toBe(200);
      expect(res.json).toMatchObject({ model: m.id, display_name: m.display_name, owned_by: m.owned_by });
      expect(typeof res.json.description).toBe("string");
      expect(res.json.interfaces.map((i: { capability: string }) => i.capability)).toEqual(m.capabilities);
      for (const card of res.json.interfaces) {
        expect(card.pricing.unit_credits).toMatch(/^\d+(\.\d+)?$/);
        expect(typeof card.pricing.unit).toBe("string");
        expect(typeof card.pricing.billing_basis).toBe("string");
      }
    }
  });

  it("unknown model: 404 envelope", async () => {
    expectError(await get("/v1/catalog/models/no-such-model"), 404, "not_found");
    expectError(await get("/v1/catalog/models/__proto__"), 404, "not_found");
  });
});
