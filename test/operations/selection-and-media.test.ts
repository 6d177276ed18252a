import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { dataUri, mp4, pngInput, wavInput } from "../helpers/media-fixtures";
import { newKey } from "../helpers/tasks";
import { artifactInput, catalogView, held, PATHS } from "./requests";

let t: TestTenant;
let detail: Record<string, any> = {};
let voices: any[];
beforeAll(async () => {
  t = await newTenant({ credits: "100000000" });
  ({ detail, voices } = await catalogView(t.api_key));
});
const post = (cap: string, body: unknown) =>
  call(PATHS[cap] as string, { key: t.api_key, body: held(body), headers: { "Idempotency-Key": newKey() } });

describe("auto selection", () => {
  it("a basic request resolves to the best-ranked live model, persisted in resolved_model", async () => {
    const res = await post("text_to_image", { prompt: "a cat" });
    expect(res.status).toBe(202);
    expect(res.json.model).toBe("auto");
    expect(res.json.resolved_model).toBe(detail.text_to_image.models[0].model);
  });

  it("an explicit control narrows auto to models that support it, best-ranked first", async () => {
    const models = detail.text_to_image.models;
    const has = (m: any, f: string) => m.controls.some((c: any) => c.field === f);
    // A control the best-ranked model lacks but another model has.
    const field = ["seed", "negative_prompt", "reasoning", "enhance_prompt"].find(
      (f) => !has(models[0], f) && models.some((m: any) => has(m, f)),
    );
    expect(field).toBeDefined();
    const value = { seed: 7, negative_prompt: "dogs", reasoning: true, enhance_prompt: true }[field as string];
    const res = await post("text_to_image", { prompt: "a cat", [field as string]: value });
    expect(res.status, res.text).toBe(202);
    expect(res.json.resolved_model).toBe(models.find((m: any) => has(m, field as string)).model);
  });

  it("when no live model can honour the whole request: 422 no_eligible_model, one failure per candidate", async () => {
    const e = expectError(
      await post("text_to_video", { prompt: "a fox", resolution: "16k" }),
      422,
      "no_eligible_model",
      "/resolution",
    );
    const failures = e.details.candidate_failures;
    expect(failures).toHaveLength(detail.text_to_video.models.length);
    expect(new Set(failures.map((f: any) => f.model)).size).toBe(failures.length);
    for (const f of failures) expect(f).toMatchObject({ code: "unsupported_resolution", received: "16k" });
  });

  it("a concrete model is never substituted: an unsupported value is refused even if another model has it", async () => {
    const card = detail.text_to_video.models.find((m: any) => {
      const r = m.controls.find((c: any) => c.field === "resolution");
      return r && !r.allowed_values.includes("1080p");
    });
    if (!card) return;
    const e = expectError(
      await post("text_to_video", { model: card.model, prompt: "x", resolution: "1080p" }),
      422,
      "unsupported_option",
      "/resolution",
    );
    expect(e.details.candidate_failures[0]).toMatchObject({
      model: card.model,
      code: "unsupported_resolution",
      received: "1080p",
    });
    expect(e.details.candidate_failures[0].supported).toEqual(
      card.controls.find((c: any) => c.field === "resolution").allowed_values,
    );
  });

  it("a model of another capability, or an unknown one: 400 unsupported_model", async () => {
    expectError(await post("text_to_image", { model: "suno-v5", prompt: "x" }), 400, "unsupported_model", "/model");
    expectError(await post("text_to_music", { model: "nope", prompt: "x" }), 400, "unsupported_model", "/model");
  });

  it("a prompt longer than the model's limit (in Unicode characters): 422 context_length_exceeded", async () => {
    const card = [...detail.text_to_image.models].sort((a: any, b: any) => a.prompt.limit - b.prompt.limit)[0];
    const limit = card.prompt.limit;
    // Astral characters: one character each, two UTF-16 units.
    const ok = await post("text_to_image", { model: card.model, prompt: "😀".repeat(limit) });
    expect(ok.status, ok.text).toBe(202);
    const e = expectError(
      await post("text_to_image", { model: card.model, prompt: "😀".repeat(limit + 1) }),
      422,
      "context_length_exceeded",
      "/prompt",
    );
    expect(e.details.candidate_failures[0]).toMatchObject({ code: "prompt_too_long", received: limit + 1 });
  });
});

describe("media inputs", () => {
  const i2i = () => detail.image_to_image.models[0].model;

  it("malformed media: 422 invalid_media at the input", async () => {
    const broken = dataUri("image/png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 1]));
    const e = expectError(
      await post("image_to_image", { model: i2i(), prompt: "x", images: [{ type: "data_uri", data_uri: broken }] }),
      422,
      "invalid_media",
    );
    expect(e.param).toMatch(/^\/images\/0/);
  });

  it("bytes that are not media: 422 unsupported_media_type (identified by magic bytes, not the declared type)", async () => {
    const text = dataUri("image/png", new TextEncoder().encode("hello, this is not an image at all"));
    const e = expectError(
      await post("image_to_image", { model: i2i(), prompt: "x", images: [{ type: "data_uri", data_uri: text }] }),
      422,
      "unsupported_media_type",
    );
    expect(e.param).toMatch(/^\/images\/0/);
  });

  it("media of the wrong kind for the field: 422 unsupported_media_type", async () => {
    const e = expectError(
      await post("image_to_image", { model: i2i(), prompt: "x", images: [wavInput(1)] }),
      422,
      "unsupported_media_type",
    );
    expect(e.param).toMatch(/^\/images\/0/);
  });

  it("an artifact that is not the caller's: 404 artifact_not_found", async () => {
    const other = await newTenant();
    const theirs = await artifactInput(other.tenant_id, new Uint8Array(8), "image/png");
    expectError(await post("image_to_image", { model: i2i(), prompt: "x", images: [theirs] }), 404, "artifact_not_found");
    expectError(
      await post("image_to_image", {
        model: i2i(),
        prompt: "x",
        images: [{ type: "artifact", artifact_id: "art_0123456789abcdef0123456789abcdef" }],
      }),
      404,
      "artifact_not_found",
    );
  });

  it("a URL that cannot be fetched: 422 media_fetch_failed, retryable", async () => {
    const e = expectError(
      await post("image_to_image", {
        model: i2i(),
        prompt: "x",
        images: [{ type: "url", url: `${env.RECEIVER_URL}/nothing-here.png` }],
      }),
      422,
      "media_fetch_failed",
    );
    expect(e.retryable).toBe(true);
    expect(e.param).toBe("/images/0/url");
    // A 404 does not go away by retrying: the client must send another URL, as a new request.
    expect(e.details).toEqual({
      status: 404,
      recovery: { action: "change_input", requires_input_change: true, client_request_id: "new" },
    });
    expect(e.message).toMatch(/answered HTTP 404\. Give a URL/);
  });

  it("a private address: refused before any fetch", async () => {
    const e = expectError(
      await post("image_to_image", { model: i2i(), prompt: "x", images: [{ type: "url", url: "https://10.0.0.1/a.png" }] }),
      422,
      "invalid_request",
    );
    expect(e.param).toMatch(/^\/images\/0/);
  });

  it("an image outside the model's edge limits: 422 unsupported_option with the input's pointer", async () => {
    const card = detail.image_to_image.models.find((m: any) => m.inputs[0].hard_constraints.edge_pixels.minimum >= 64);
    const tiny = await pngInput(8, 8);
    const e = expectError(
      await post("image_to_image", { model: card.model, prompt: "x", images: [tiny] }),
      422,
      "unsupported_option",
      "/images/0",
    );
    expect(e.details.candidate_failures[0]).toMatchObject({ code: "unsupported_edge_pixels", received: "8x8" });
  });

  it("more images than the model takes: 422 unsupported_option at the field", async () => {
    const card = detail.image_to_image.models.find((m: any) => m.inputs[0].public_max_count < 4);
    if (!card) return;
    const image = await pngInput(512, 512);
    const images = Array.from({ length: card.inputs[0].public_max_count + 1 }, () => image);
    const e = expectError(
      await post("image_to_image", { model: card.model, prompt: "x", images }),
      422,
      "unsupported_option",
      "/images",
    );
    expect(e.details.candidate_failures[0].code).toBe("unsupported_input_count");
  });

  it("an input modality the model lacks: 422 unsupported_input_modality", async () => {
    const card = detail.text_to_video.models.find((m: any) => !m.inputs.some((i: any) => i.field === "audio"));
    const e = expectError(
      await post("text_to_video", { model: card.model, prompt: "x", audio: wavInput(3) }),
      422,
      "unsupported_input_modality",
      "/audio",
    );
    expect(e.details.candidate_failures[0].code).toBe("unsupported_audio_input");
    const f2v = detail.frames_to_video.models.find((m: any) => !m.inputs.some((i: any) => i.field === "driving_audio"));
    const image = await pngInput(512, 512);
    expectError(
      await post("frames_to_video", { model: f2v.model, first_frame: image, last_frame: image, driving_audio: wavInput(3) }),
      422,
      "unsupported_input_modality",
      "/driving_audio",
    );
  });

  it("driving audio goes only to models that support it; auto finds one", async () => {
    const withAudio = detail.frames_to_video.models.find((m: any) => m.inputs.some((i: any) => i.field === "driving_audio"));
    if (!withAudio) return;
    const image = await pngInput(512, 512);
    const res = await post("frames_to_video", { first_frame: image, last_frame: image, driving_audio: wavInput(3) });
    expect(res.status, res.text).toBe(202);
    expect(withAudio.model).toBe(res.json.resolved_model);
  });

  it("extension: the final duration must exceed the source's", async () => {
    const card = detail.video_extend.models[0];
    const video = await artifactInput(t.tenant_id, mp4(8), "video/mp4");
    expectError(
      await post("video_extend", { model: card.model, video, direction: "after", instruction: "go on", duration: 6 }),
      422,
      "invalid_request",
      "/duration",
    );
  });

  it("edit regions must target an input and stay in the unit square", async () => {
    const image = await pngInput(512, 512);
    const body = { prompt: "x", images: [image] };
    expectError(
      await post("image_edit", { ...body, edit_regions: [{ image_index: 1, x: 0, y: 0, width: 0.5, height: 0.5 }] }),
      422,
      "invalid_request",
      "/edit_regions/0/image_index",
    );
    expectError(
      await post("image_edit", { ...body, edit_regions: [{ image_index: 0, x: 0.8, y: 0, width: 0.5, height: 0.5 }] }),
      422,
      "invalid_request",
      "/edit_regions/0/width",
    );
  });
});

describe("voices", () => {
  it("auto picks a speech model compatible with the voice", async () => {
    for (const v of voices.slice(0, 6)) {
      const res = await post("text_to_speech", { voice: v.voice_id, input: "Hello." });
      expect(res.status, res.text).toBe(202);
      expect(v.compatible_models).toContain(res.json.resolved_model);
    }
  });

  it("a voice that does not resolve on the model: 422 voice_model_incompatible; unknown voice: 404", async () => {
    const models = detail.text_to_speech.models.map((m: any) => m.model);
    const v = voices.find((x) => models.some((m: string) => !x.compatible_models.includes(m)));
    const other = models.find((m: string) => !v.compatible_models.includes(m));
    expectError(
      await post("text_to_speech", { model: other, voice: v.voice_id, input: "Hi" }),
      422,
      "voice_model_incompatible",
      "/voice",
    );
    expectError(await post("text_to_speech", { voice: "no-such-voice", input: "Hi" }), 404, "voice_not_found", "/voice");
  });
});

describe("pricing", () => {
  it("reserves the card's price for the requested options", async () => {
    const card = detail.text_to_video.models.find((m: any) => m.controls.some((c: any) => c.field === "resolution"));
    const res = card.controls.find((c: any) => c.field === "resolution").allowed_values[0];
    const dur = card.controls.find((c: any) => c.field === "duration").allowed_values?.[0] ?? 5;
    const r = await post("text_to_video", { model: card.model, prompt: "x", resolution: res, duration: dur });
    expect(r.status, r.text).toBe(202);
    const options = card.pricing.options.filter((o: any) => o.dimensions.resolution === res);
    const charged = Number(r.json.billing.charged_credits);
    expect(options.some((o: any) => Math.abs(Number(o.unit_credits) * dur - charged) < 1e-9)).toBe(true);
  });

  it("speech reserves per character of input (Unicode characters)", async () => {
    const card = detail.text_to_speech.models[0];
    const voice = voices.find((v) => v.compatible_models.includes(card.model));
    const r = await post("text_to_speech", { model: card.model, voice: voice.voice_id, input: "héllo 😀" });
    expect(r.status, r.text).toBe(202);
    const unit = Number(card.pricing.options[0].unit_credits);
    expect(Number(r.json.billing.charged_credits)).toBeCloseTo(unit * 7, 9);
  });
});

describe("warnings", () => {
  it("prompt enhancement notes that `model` is ignored", async () => {
    const res = await post("video_prompt_enhance", { model: "some-video-model", prompt: "a fox" });
    expect(res.status).toBe(202);
    expect(res.json.warnings.map((w: { code: string }) => w.code).sort()).toEqual(["model_ignored", "simulated_output"]);
    expect(res.json.warnings).toContainEqual(expect.objectContaining({ code: "model_ignored", field: "/model" }));
  });

  it("a target canvas that the model normalises is reported", async () => {
    const card = detail.text_to_image.models.find(
      (m: any) => m.canvas.target.supported && m.canvas.target.normalization_multiple > 1,
    );
    if (!card) return;
    const res = await post("text_to_image", {
      model: card.model,
      prompt: "x",
      canvas: { type: "target", width: 1001, height: 1001 },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.json.warnings[0]).toMatchObject({ code: "canvas_normalized", field: "/canvas" });
  });
});
