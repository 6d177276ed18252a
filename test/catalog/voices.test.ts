import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";

let t: TestTenant;
let all: any[];
beforeAll(async () => {
  t = await newTenant();
  all = (await call("/v1/voices", { key: t.api_key })).json.data;
});
const get = (path: string) => call(path, { key: t.api_key });

describe("voices", () => {
  it("lists at least 20 voices in at least 5 languages, preset and cloned", async () => {
    const res = await get("/v1/voices");
    expect(res.status).toBe(200);
    expect(res.json.object).toBe("list");
    expect(all.length).toBeGreaterThanOrEqual(20);
    expect(new Set(all.map((v) => v.language.split("-")[0])).size).toBeGreaterThanOrEqual(5);
    expect(new Set(all.map((v) => v.category))).toEqual(new Set(["preset", "cloned"]));
    for (const v of all) {
      for (const f of [
        "voice_id",
        "display_name",
        "category",
        "language",
        "gender",
        "age",
        "accent",
        "preview_url",
        "status",
        "created_at",
      ]) {
        expect(typeof v[f], `${v.voice_id}.${f}`).toBe("string");
      }
      for (const f of ["languages_supported", "use_case", "compatible_models"]) expect(Array.isArray(v[f])).toBe(true);
      expect(v.source).toBeUndefined();
    }
  });

  it("every compatible model is a speech model of the catalog", async () => {
    const speech = (await get("/v1/catalog/capabilities/text_to_speech")).json.models.map((m: { model: string }) => m.model);
    for (const v of all) for (const m of v.compatible_models) expect(speech).toContain(m);
  });

  it("filters by language: a primary subtag matches every region, a full tag only itself", async () => {
    const en = (await get("/v1/voices?language=en")).json.data;
    expect(en.length).toBeGreaterThan(0);
    expect(en.length).toBeLessThan(all.length);
    for (const v of en) expect([v.language, ...v.languages_supported].some((l: string) => /^en(-|$)/i.test(l))).toBe(true);
    const tag = en.find((v: { language: string }) => v.language.includes("-"))?.language as string;
    const exact = (await get(`/v1/voices?language=${tag}`)).json.data;
    expect(exact.length).toBeGreaterThan(0);
    for (const v of exact)
      expect([v.language, ...v.languages_supported].map((l: string) => l.toLowerCase())).toContain(tag.toLowerCase());
    expect((await get(`/v1/voices?language=${tag.toUpperCase()}`)).json.data).toEqual(exact);
  });

  it("filters by gender, category and name search, and combines filters", async () => {
    const female = (await get("/v1/voices?gender=female")).json.data;
    expect(female.length).toBeGreaterThan(0);
    expect(female.every((v: { gender: string }) => v.gender === "female")).toBe(true);
    const cloned = (await get("/v1/voices?category=cloned")).json.data;
    expect(cloned.length).toBeGreaterThan(0);
    expect(cloned.every((v: { category: string }) => v.category === "cloned")).toBe(true);
    const sample = all[0];
    const word = sample.display_name.split(/\s+/)[0].toLowerCase();
    const found = (await get(`/v1/voices?q=${encodeURIComponent(word)}`)).json.data;
    expect(found.map((v: { voice_id: string }) => v.voice_id)).toContain(sample.voice_id);
    expect(found.every((v: { display_name: string }) => v.display_name.toLowerCase().includes(word))).toBe(true);
    const both = (await get("/v1/voices?gender=female&category=preset")).json.data;
    expect(both.every((v: { gender: string; category: string }) => v.gender === "female" && v.category === "preset")).toBe(true);
    expect((await get("/v1/voices?q=zzzz-no-such-voice")).json.data).toEqual([]);
  });

  it("refuses malformed filters", async () => {
    expectError(await get("/v1/voices?category=robot"), 422, "invalid_request", "/category");
    expectError(await get("/v1/voices?language=english!"), 422, "invalid_request", "/language");
  });

  it("reads one voice, and 404 voice_not_found for an unknown one", async () => {
    const v = all[0];
    const res = await get(`/v1/voices/${encodeURIComponent(v.voice_id)}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual(v);
    expectError(await get("/v1/voices/no-such-voice"), 404, "voice_not_found");
  });
});
