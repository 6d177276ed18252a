/**
 * Every output format a card lists, walked through the sandbox with a test-mode key: each one is
 * either produced (the task succeeds and its file probes as that format) or refused at admission
 * (422 unsupported_option at the format field) — never admitted and then failed. What the sandbox
 * can make is the data in src/media/output-formats.ts; refusal must coincide with its absence.
 * (Whenever a card's format is admitted, that format is in the list the sandbox encodes from.)
 */
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { formatMime, SANDBOX_OUTPUT_FORMATS } from "../../src/media/output-formats";
import { probeMedia } from "../../src/media/probe";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { newKey, waitFor } from "../helpers/tasks";
import { catalogView, minimalRequest, PATHS } from "../operations/requests";

let t: TestTenant;
let detail: Record<string, any> = {};
let voices: any[];
beforeAll(async () => {
  t = await newTenant({ mode: "test" });
  ({ detail, voices } = await catalogView(t.api_key));
});

const IMAGE = ["text_to_image", "image_to_image", "image_edit"];
const VIDEO_WITH_FORMAT = ["text_to_video", "image_to_video", "reference_to_video", "video_extend"];
const MUSIC_FORMAT = "model_options.family_b.audio_setting.format";
const WORD: Record<string, string> = { "image/png": "png", "image/jpeg": "jpeg", "image/webp": "webp" };
const producible = new Set<string>(Object.values(SANDBOX_OUTPUT_FORMATS).flat());

const allowed = (card: any, field: string): unknown[] | undefined =>
  card.controls.find((c: any) => c.field === field)?.allowed_values;

interface Ask {
  /** The body with the format field set (or left to the card's default). */
  patch: (body: Record<string, any>) => Record<string, any>;
  param: string;
  mime: string;
}

/** Each format a request to this card can ask for, through the operation's format field. */
function asks(capability: string, card: any): Ask[] {
  const set = (field: string, value: unknown) => (b: Record<string, any>) => ({ ...b, [field]: value });
  if (IMAGE.includes(capability))
    return (card.outputs.formats ?? [card.outputs.format]).map((mime: string) => ({
      patch: set("output_format", WORD[mime] ?? mime),
      param: "/output_format",
      mime,
    }));
  if (capability === "text_to_speech")
    return (allowed(card, "format") ?? []).map((f) => ({
      patch: set("format", f),
      param: "/format",
      mime: formatMime("audio", String(f)),
    }));
  if (capability === "text_to_music") {
    const param = "/model_options/family_b/audio_setting/format";
    const words = allowed(card, MUSIC_FORMAT);
    if (!words) return [{ patch: (b) => b, param, mime: card.outputs.format }];
    return words.map((f) => ({
      patch: (b) => ({ ...b, model_options: { family_b: { audio_setting: { format: f } } } }),
      param,
      mime: formatMime("audio", String(f)),
    }));
  }
  if (VIDEO_WITH_FORMAT.includes(capability))
    return (allowed(card, "output_format") ?? ["mp4"]).map((f) => ({
      patch: set("output_format", f),
      param: "/output_format",
      mime: formatMime("video", String(f)),
    }));
  if (capability === "frames_to_video") return [{ patch: (b) => b, param: "/model", mime: "video/mp4" }];
  return [];
}

/** The least work that still makes a real file: the smallest image preset, the shortest clip. */
function cheap(capability: string, card: any, body: Record<string, any>): Record<string, any> {
  if (card.canvas) {
    let best: [string, string, number] | undefined;
    for (const [tier, byAspect] of Object.entries(card.canvas.presets as Record<string, Record<string, number[]>>))
      for (const [aspect, [w, h]] of Object.entries(byAspect))
        if (card.canvas.preset_tiers.includes(tier) && (!best || (w as number) * (h as number) < best[2]))
          best = [tier, aspect, (w as number) * (h as number)];
    if (best) return { ...body, canvas: { type: "preset", tier: best[0], aspect: best[1] } };
  }
  if (capability.endsWith("_to_video")) {
    const durations = allowed(card, "duration") as number[] | undefined;
    const resolutions = allowed(card, "resolution") as string[] | undefined;
    return {
      ...body,
      ...(durations ? { duration: Math.min(...durations) } : {}),
      ...(resolutions ? { resolution: [...resolutions].sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10))[0] } : {}),
    };
  }
  return body;
}

async function download(url: string): Promise<{ bytes: Uint8Array; type: string | null }> {
  const res = await exports.default.fetch(new Request(url, { headers: { Authorization: `Bearer ${t.api_key}` } }));
  expect(res.status).toBe(200);
  return { bytes: new Uint8Array(await res.arrayBuffer()), type: res.headers.get("content-type") };
}

/**
 * Rendering is what takes time: each format is rendered once per capability (video: once in all),
 * and the other cards asking for it are admitted and held in the sandbox's queue. What the sandbox
 * makes of a format does not depend on the card beyond sizes and durations, which other tests hold.
 */
const rendered = new Set<string>();

describe("every listed output format is produced by the sandbox or refused at admission", () => {
  for (const capability of Object.keys(PATHS)) {
    it(capability, async () => {
      let walked = 0;
      for (const card of detail[capability].models) {
        if (!card.outputs || card.outputs.format.startsWith("text/")) continue;
        const list = asks(capability, card);
        // Every listed format can be asked for, and every format that can be asked for is listed.
        expect(new Set(list.map((a) => a.mime)), card.model).toEqual(new Set(card.outputs.formats ?? [card.outputs.format]));
        const base = cheap(capability, card, await minimalRequest(capability, card, t.tenant_id, voices));
        for (const ask of list) {
          const label = `${card.model} ${capability} ${ask.mime}`;
          const isVideo = capability.endsWith("_to_video") || capability === "video_extend";
          const renderKey = isVideo ? ask.mime : `${capability} ${ask.mime}`;
          const hold = rendered.has(renderKey);
          const body = ask.patch(hold ? { ...base, metadata: { sandbox_fault: "stay_queued" } } : base);
          const res = await call(PATHS[capability] as string, { key: t.api_key, body, headers: { "Idempotency-Key": newKey() } });
          walked++;
          if (!producible.has(ask.mime)) {
            const e = expectError(res, 422, "unsupported_option", ask.param);
            expect(e.details.candidate_failures[0].code, label).toMatch(
              /^(unsupported_output_format|output_format_unavailable)$/,
            );
            continue;
          }
          expect(res.status, `${label}: ${res.text.slice(0, 300)}`).toBe(202);
          if (hold) continue;
          rendered.add(renderKey);
          const done = await waitFor(t, res.json.task_id);
          expect(done.status, `${label}: ${JSON.stringify(done.error)}`).toBe("succeeded");
          const out = done.output.artifacts[0];
          expect(out.content_type, label).toBe(ask.mime);
          const { bytes, type } = await download(out.url);
          expect(type, label).toBe(ask.mime);
          if (ask.mime === "audio/pcm") {
            // Raw samples have no header to probe: 16-bit, as long as the reported duration.
            expect(bytes.length % 2, label).toBe(0);
            expect(bytes.length, label).toBeGreaterThan(0);
            continue;
          }
          const facts = probeMedia(bytes, "/output");
          expect(facts.mime, label).toBe(ask.mime);
          if (out.width) expect([facts.width, facts.height], label).toEqual([out.width, out.height]);
          if (IMAGE.includes(capability)) expect([facts.width, facts.height], label).toEqual(presetOf(card, body.canvas));
          if (facts.kind === "audio") expect(facts.duration_seconds, label).toBeGreaterThan(0.3);
        }
      }
      if (["text_to_image", "text_to_speech", "text_to_music", "text_to_video"].includes(capability))
        expect(walked).toBeGreaterThan(0);
    });
  }
});

function presetOf(card: any, canvas: { tier: string; aspect: string }): number[] {
  return card.canvas.presets[canvas.tier][canvas.aspect];
}

describe("formats at admission", () => {
  const imageBody = (model: string, output_format?: string) => ({
    model,
    prompt: "a lighthouse at dawn",
    canvas: { type: "preset", tier: "1K", aspect: "1:1" },
    ...(output_format ? { output_format } : {}),
  });

  it("refuses an image format the card does not list, at the field, naming what it does list", async () => {
    const card = detail.text_to_image.models.find((m: any) => !(m.outputs.formats ?? []).includes("image/webp"));
    const res = await call("/v1/images/generations", {
      key: t.api_key,
      body: imageBody(card.model, "webp"),
      headers: { "Idempotency-Key": newKey() },
    });
    const e = expectError(res, 422, "unsupported_option", "/output_format");
    expect(e.details.candidate_failures[0]).toMatchObject({
      model: card.model,
      code: "unsupported_output_format",
      received: "image/webp",
      supported: card.outputs.formats,
    });
  });

  it("auto skips the cards without the format, each with its reason, and takes one that has it", async () => {
    const res = await call("/v1/images/generations", {
      key: t.api_key,
      body: { prompt: "a lighthouse at dawn", output_format: "webp" },
      headers: { "Idempotency-Key": newKey() },
    });
    expect(res.status, res.text).toBe(202);
    const chosen = detail.text_to_image.models.find((m: any) => m.model === res.json.resolved_model);
    expect(chosen.outputs.formats).toContain("image/webp");
  });

  it("with auto and a format no card lists, every candidate fails with that reason", async () => {
    const res = await call("/v1/audio/speech", {
      key: t.api_key,
      body: { voice: voices[0].voice_id, input: "Hello there.", format: "opus", model: "auto" },
      headers: { "Idempotency-Key": newKey() },
    });
    // Either a compatible card lists opus (and the sandbox makes it), or auto explains each refusal.
    if (res.status === 202) {
      expect(detail.text_to_speech.models.find((m: any) => m.model === res.json.resolved_model).outputs.formats).toContain(
        "audio/ogg",
      );
      return;
    }
    const e = expectError(res, 422, "no_eligible_model");
    for (const f of e.details.candidate_failures) expect(f.param).toMatch(/^\/(format|voice)$/);
  });

  it("speech in Opus: an Ogg Opus file of the spoken length, decodable, whatever the requested rate", async () => {
    const card = detail.text_to_speech.models.find((m: any) => (allowed(m, "format") ?? []).includes("opus"));
    const voice = voices.find((v) => v.compatible_models.includes(card.model));
    const res = await call("/v1/audio/speech", {
      key: t.api_key,
      body: { model: card.model, voice: voice.voice_id, input: "The quick brown fox jumps over the lazy dog.", format: "opus" },
      headers: { "Idempotency-Key": newKey() },
    });
    expect(res.status, res.text).toBe(202);
    const done = await waitFor(t, res.json.task_id);
    expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
    const out = done.output.artifacts[0];
    expect(out.content_type).toBe("audio/ogg");
    const { bytes } = await download(out.url);
    const facts = probeMedia(bytes, "/output");
    expect(facts).toMatchObject({ kind: "audio", mime: "audio/ogg", channels: 1 });
    // 44 characters at about 15 a second, exactly as the envelope reports it.
    expect(out.duration_seconds).toBeCloseTo(44 / 15, 2);
    expect(facts.duration_seconds).toBeCloseTo(out.duration_seconds, 3);
  });

  it("a WebP image at the exact canvas, reported as image/webp", async () => {
    const card = detail.text_to_image.models.find(
      (m: any) => (m.outputs.formats ?? []).includes("image/webp") && m.canvas.presets["1K"]?.["1:1"],
    );
    const res = await call("/v1/images/generations", {
      key: t.api_key,
      body: { ...imageBody(card.model, "webp"), count: 1 },
      headers: { "Idempotency-Key": newKey() },
    });
    expect(res.status, res.text).toBe(202);
    const done = await waitFor(t, res.json.task_id);
    expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
    const image = done.output.images[0];
    expect(image).toMatchObject({ content_type: "image/webp", width: card.canvas.presets["1K"]["1:1"][0] });
    const facts = probeMedia((await download(image.url)).bytes, "/output");
    expect(facts).toMatchObject({ mime: "image/webp", width: image.width, height: image.height });
  });

  it("refuses an output_format outside the API's values at validation", async () => {
    const res = await call("/v1/images/generations", {
      key: t.api_key,
      body: imageBody("auto", "gif"),
      headers: { "Idempotency-Key": newKey() },
    });
    expectError(res, 422, "invalid_request", "/output_format");
  });
});
