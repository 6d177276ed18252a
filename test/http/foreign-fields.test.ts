/** A field another well-known API uses, sent here: 422 whose message names this API's field. */
import { beforeAll, describe, expect, it } from "vitest";
import { FOREIGN_FIELDS } from "../../src/http/foreign-fields";
import { EXAMPLE_IMAGE } from "../../src/operations/examples";
import { call, expectError, newTenant } from "../helpers/api";

let key: string;
let doc: any;
beforeAll(async () => {
  key = (await newTenant()).api_key;
  doc = (await call("/openapi.json")).json;
});

const post = (path: string, body: unknown) => call(path, { key, body, headers: { "Idempotency-Key": crypto.randomUUID() } });

/** Sends `body` and returns the error, which must point at `param` and keep every validation failure. */
async function refused(path: string, body: Record<string, unknown>, param: string) {
  const e = expectError(await post(path, body), 422, "invalid_request", param);
  expect(Array.isArray(e.details.errors)).toBe(true);
  expect(e.details.errors.length).toBeGreaterThan(0);
  return e;
}

describe("misplaced fields of other APIs", () => {
  it("images: n → count, size → canvas, quality → canvas tier, response_format → artifacts", async () => {
    const n = await refused("/v1/images/generations", { prompt: "a fox", n: 2 }, "/n");
    expect(n.message).toContain("'n' is not a field of this API");
    expect(n.message).toContain("`count`");
    expect(n.details.foreign_field).toEqual({ param: "/n", use: "count" });
    // The validation failure itself is still listed as zod found it.
    expect(n.details.errors).toEqual([{ loc: ["body"], reason: "'n' is not a field here", code: "unrecognized_keys" }]);

    const size = await refused("/v1/images/generations", { prompt: "a fox", size: "1024x1024" }, "/size");
    expect(size.message).toContain("`canvas`");
    expect(size.details.foreign_field.use).toBe("canvas");

    const quality = await refused("/v1/images/generations", { prompt: "a fox", quality: "hd" }, "/quality");
    expect(quality.message).toContain("`canvas.tier`");

    const format = await refused("/v1/images/generations", { prompt: "a fox", response_format: "b64_json" }, "/response_format");
    expect(format.message).toContain("artifacts");
    expect(format.message).toContain("`output.images[]`");
    expect(format.details.foreign_field.use).toBeNull();
  });

  it("image inputs: image_url → images, mask → edit_regions; text-to-image points to the image routes", async () => {
    const url = await refused("/v1/images/image-to-image", { prompt: "x", image_url: "https://example.com/a.png" }, "/image_url");
    expect(url.message).toContain("`images`");
    const mask = await refused("/v1/images/edits", { prompt: "x", images: [EXAMPLE_IMAGE], mask: EXAMPLE_IMAGE }, "/mask");
    expect(mask.message).toContain("`edit_regions`");
    const gen = await refused("/v1/images/generations", { prompt: "x", image: EXAMPLE_IMAGE }, "/image");
    expect(gen.message).toContain("POST /v1/images/image-to-image");
    expect(gen.details.foreign_field).toEqual({ param: "/image", use: "images", on: "/v1/images/image-to-image" });
  });

  it("speech: a voice object → the voice id string, response_format → format, text → input", async () => {
    const voice = await refused(
      "/v1/audio/speech",
      { input: "Hello", voice: { name: "English_expressive_narrator", speed: 1.2 } },
      "/voice",
    );
    expect(voice.message).toContain("'voice' has another API's shape");
    expect(voice.message).toContain("voice id string from GET /v1/voices");
    expect(voice.details.errors[0]).toMatchObject({ loc: ["body", "voice"], code: "invalid_type" });

    const format = await refused(
      "/v1/audio/speech",
      { input: "Hello", voice: "English_expressive_narrator", response_format: "mp3" },
      "/response_format",
    );
    expect(format.message).toContain("`format`");
    const text = await refused("/v1/audio/speech", { text: "Hello", voice: "English_expressive_narrator" }, "/text");
    expect(text.message).toContain("`input`");
  });

  it("videos: seconds → duration, size → aspect_ratio and resolution", async () => {
    const seconds = await refused("/v1/videos/text-to-video", { prompt: "waves", seconds: 8 }, "/seconds");
    expect(seconds.message).toContain("`duration`");
    const size = await refused("/v1/videos/text-to-video", { prompt: "waves", size: "1280x720" }, "/size");
    expect(size.message).toContain("`aspect_ratio`");
    expect(size.message).toContain("`resolution`");
  });

  it("the hint wins over another failure in the same body, which stays listed", async () => {
    const e = await refused("/v1/images/generations", { n: 2 }, "/n");
    expect(e.message).toContain("`count`");
    const locs = e.details.errors.map((x: { loc: unknown[] }) => x.loc);
    expect(locs).toContainEqual(["body", "prompt"]);
  });

  it("an unknown field without a hint: the plain message, with param at the field", async () => {
    const e = await refused("/v1/images/generations", { prompt: "x", frobnicate: true }, "/frobnicate");
    expect(e.message).toMatch(/^Request body is invalid at \/frobnicate: /);
    expect(e.details.foreign_field).toBeUndefined();
  });

  it("a field that is this API's own on that route is never hinted (response_format on image understanding)", async () => {
    const res = await post("/v1/images/responses", { prompt: "what is this?", images: [EXAMPLE_IMAGE], response_format: "json" });
    expect(res.status, res.text).toBe(202);
  });

  it("the table names only real fields, and no foreign name is a field of its route", () => {
    const properties = (route: string): Record<string, unknown> => {
      const schema = doc.paths[route]?.post?.requestBody?.content?.["application/json"]?.schema;
      expect(schema, route).toBeDefined();
      return (schema.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema).properties;
    };
    for (const row of FOREIGN_FIELDS) {
      for (const route of row.routes) {
        const own = properties(route);
        if (row.use !== null) expect(Object.keys(properties(row.on ?? route)), `${route}: ${row.use}`).toContain(row.use);
        for (const f of row.fields) {
          if (row.shape === "object") expect(Object.keys(own), `${route}: ${f}`).toContain(f);
          else expect(Object.keys(own), `${route}: ${f}`).not.toContain(f);
        }
      }
    }
  });
});
