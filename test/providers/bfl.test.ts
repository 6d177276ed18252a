/**
 * The Black Forest Labs adapter on its own: the status table, the body each endpoint family gets,
 * the reading of BFL's error answers, which polling URLs may carry the key, and a task's life
 * against the fake BFL (test/providers/fakes/bfl.ts, at env.PROVIDER_BFL_BASE_URL).
 */

import { decode } from "fast-png";
import { describe, expect, it } from "vitest";
import type { InterfaceFile } from "../../src/catalog/schema";
import type { ProviderContext } from "../../src/providers/adapter";
import { BFL_BASE_URL, describeBfl, trustedUrl } from "../../src/providers/bfl/client";
import { bflAdapter } from "../../src/providers/bfl/index";
import { aspectRatio, base64, bflRequest, familyOf } from "../../src/providers/bfl/inputs";
import { resultOf } from "../../src/providers/bfl/outputs";
import { bflPercent, pollResultOf, runningPercent } from "../../src/providers/bfl/status";
import { pollingUrlOf, submitTask } from "../../src/providers/bfl/tasks";
import type { ImageCapability, ImageRequest, JobFor, JobInput } from "../../src/providers/jobs";
import { ProviderError, type ProviderHandle } from "../../src/providers/types";
import type { Recorded } from "./fakes/kit";
import { imageRequest, recorded, signedUrl, unitConfig, unitContext, unitJob } from "./unit";

const config = () => unitConfig("bfl", BFL_BASE_URL);

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let n = 0;
const tag = (name: string) => `bfl-unit-${name}-${run}-${++n}`;

const signed = signedUrl;
const INPUT_BYTES = Uint8Array.from({ length: 40 }, (_, i) => (i * 37) & 255);

const context = (over: Partial<ProviderContext> = {}) =>
  unitContext(config(), { inputs: { url: async (i) => signedUrl(i), bytes: async () => INPUT_BYTES }, ...over });

const png = (key: string, width = 512, height = 512): JobInput => ({
  field: "images",
  key,
  kind: "image",
  mime: "image/png",
  width,
  height,
});

function imageJob<C extends ImageCapability>(
  capability: C,
  upstream_model: string,
  request: Partial<ImageRequest> = {},
  inputs: JobInput[] = [],
  format = "image/jpeg",
): JobFor<C> {
  return unitJob({
    capability,
    model: upstream_model,
    card: { outputs: { format } } as unknown as InterfaceFile,
    inputs,
    request: imageRequest("a lighthouse at dawn", {
      canvas: { type: "preset", tier: "1K", aspect: "1:1" },
      ...request,
    }) as JobFor<C>["request"],
  });
}

async function requests(t: string): Promise<Recorded<any>[]> {
  return recorded(config().baseUrl, t);
}

describe("bfl status table", () => {
  const c = config();
  const at = (status: unknown, extra: Record<string, unknown> = {}, elapsed = 3_000) =>
    pollResultOf(c, { id: "t1", status, ...extra }, elapsed);

  it("maps every documented status", () => {
    expect(at("Pending")).toMatchObject({ state: "running", progress: { stage: "generating" } });
    expect(at("Ready", { result: { sample: "https://delivery-eu1.bfl.ai/results/x/sample.jpeg?se=1&sig=abc" } })).toEqual({
      state: "succeeded",
    });
    expect(at("Request Moderated", { details: { "Moderation Reasons": ["Content"] } })).toMatchObject({
      state: "failed",
      error: { code: "safety_rejected", message: expect.stringContaining("Moderation Reasons: Content") },
    });
    expect(at("Content Moderated")).toMatchObject({ state: "failed", error: { code: "content_filtered" } });
    expect(at("Error", { details: "out of memory" })).toMatchObject({
      state: "failed",
      error: { code: "model_request_failed", message: expect.stringContaining("out of memory") },
    });
    expect(at("Error", { error: "content_policy_violation", message: "The prompt violated content policy" })).toMatchObject({
      state: "failed",
      error: { code: "safety_rejected", message: expect.stringContaining("content policy") },
    });
    expect(at("Error", { error: "invalid_image", message: "bad image" })).toMatchObject({ error: { code: "invalid_media" } });
    expect(at("Error", { error: "generation_timeout" })).toMatchObject({ error: { code: "model_timeout" } });
    expect(at("Error", { error: "internal_error" })).toMatchObject({ error: { code: "model_request_failed" } });
    expect(at("Task not found")).toMatchObject({
      state: "failed",
      error: { code: "model_request_failed", message: expect.stringContaining("Task not found") },
    });
  });

  it("an unlisted status is still running, never success or failure", () => {
    for (const word of ["Processing", "Queued", "Failed", "", "ready"]) {
      const r = at(word);
      expect(r.state, word).toBe("running");
      if (r.state === "running") expect(r.progress.message).toContain("still waiting");
    }
  });

  it("an answer without a status, or a Ready without its image, is malformed", () => {
    for (const bad of [null, [], "Ready", { id: "t1" }, { status: 3 }]) {
      expect(() => pollResultOf(c, bad, 1000)).toThrow(expect.objectContaining({ malformed: true }));
    }
    for (const result of [null, {}, { sample: 42 }, { sample: "ftp://x/y.png" }]) {
      expect(() => at("Ready", { result })).toThrow(expect.objectContaining({ malformed: true, code: "model_request_failed" }));
    }
  });

  it("progress moves with time, follows BFL's fraction when it sends one, and stays below the end", () => {
    expect(bflPercent(0.4)).toBeCloseTo(40);
    expect(bflPercent(55)).toBe(55);
    expect(bflPercent(null)).toBeUndefined();
    expect(bflPercent(-1)).toBeUndefined();
    const byTime = [0, 2_000, 8_000, 30_000, 600_000].map((ms) => runningPercent(ms, null));
    expect(byTime).toEqual([...byTime].sort((a, b) => a - b));
    expect(byTime[0]).toBe(5);
    expect(Math.max(...byTime)).toBeLessThanOrEqual(90);
    expect(runningPercent(1_000, 0.8)).toBeGreaterThan(runningPercent(1_000, null));
    const pending = at("Pending", { progress: 0.5 });
    expect(pending.state === "running" && pending.progress.message).toContain("50%");
    expect(pending.state === "running" && pending.poll_after_ms).toBeGreaterThanOrEqual(750);
  });

  it("keeps the key out of BFL's words", () => {
    const r = at("Error", { details: { reason: `bad key ${c.apiKey}` } });
    expect(r.state === "failed" && r.error.message).not.toContain(c.apiKey);
  });
});

describe("bfl bodies per endpoint family", () => {
  it("knows the families by endpoint", () => {
    expect(["flux-2-pro", "flux-2-max", "flux-kontext-pro", "flux-pro-1.1-ultra", "flux-dev"].map(familyOf)).toEqual([
      "flux2",
      "flux2",
      "kontext",
      "ultra",
      null,
    ]);
  });

  it("FLUX.2 text-to-image: exact size, card format, palette in the prompt, prompt_upsampling only when set", async () => {
    const job = imageJob("text_to_image", "flux-2-pro", {
      dimensions: { width: 1344, height: 768 },
      seed: 7,
      palette: [
        { color: "#00FF00", weight: 0.2 },
        { color: "#FF0000", weight: 0.5 },
        { color: "#0000ff", weight: 0.3 },
      ],
    });
    const { endpoint, body } = await bflRequest(job, context());
    expect(endpoint).toBe("flux-2-pro");
    expect(body).toEqual({
      prompt: "a lighthouse at dawn\n\nUse the colour palette #ff0000, #0000ff, #00ff00.",
      width: 1344,
      height: 768,
      seed: 7,
      output_format: "jpeg",
    });
    const enhanced = await bflRequest(imageJob("text_to_image", "flux-2-max", { enhance_prompt: false }), context());
    expect(enhanced.body.prompt_upsampling).toBe(false);
    const webp = await bflRequest(imageJob("text_to_image", "flux-2-max", {}, [], "image/webp"), context());
    expect(webp.body.output_format).toBeUndefined();
  });

  it("FLUX.2 edits and image-to-image: every image as a signed URL of this service, in order", async () => {
    const inputs = [png("inputs/a"), png("inputs/b"), png("inputs/c")];
    const { body } = await bflRequest(imageJob("image_edit", "flux-2-pro", {}, inputs), context());
    expect([body.input_image, body.input_image_2, body.input_image_3]).toEqual(inputs.map(signed));
    expect(body.input_image_4).toBeUndefined();
    const i2i = await bflRequest(imageJob("image_to_image", "flux-2-max", {}, inputs.slice(0, 1)), context());
    expect(i2i.body.input_image).toBe(signed(inputs[0] as JobInput));
    // A text-to-image job never sends images, whatever it carries.
    const t2i = await bflRequest(imageJob("text_to_image", "flux-2-pro", {}, inputs), context());
    expect(t2i.body.input_image).toBeUndefined();
  });

  it("refuses what BFL cannot make exactly, before anything is sent", async () => {
    const refused = async (job: JobFor<ImageCapability>) => {
      const e = await bflRequest(job, context()).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(ProviderError);
      expect((e as ProviderError).accepted).toBe("no");
      return (e as ProviderError).code;
    };
    expect(await refused(imageJob("text_to_image", "flux-2-pro", { dimensions: { width: 1000, height: 1000 } }))).toBe(
      "unsupported_option",
    );
    expect(await refused(imageJob("text_to_image", "flux-2-pro", { dimensions: { width: 2064, height: 2048 } }))).toBe(
      "unsupported_option",
    );
    expect(await refused(imageJob("text_to_image", "flux-2-pro", { count: 2 }))).toBe("unsupported_option");
    const nine = Array.from({ length: 9 }, (_, i) => png(`inputs/${i}`));
    expect(await refused(imageJob("image_edit", "flux-2-pro", {}, nine))).toBe("unsupported_option");
    expect(await refused(imageJob("text_to_image", "flux-dev"))).toBe("unsupported_capability");
    expect(
      await refused(
        imageJob("text_to_image", "flux-kontext-pro", {
          canvas: { type: "target", width: 3000, height: 1000 },
          dimensions: { width: 3008, height: 1008 },
        }),
      ),
    ).toBe("unsupported_option");
  });

  it("Kontext: the canvas's aspect ratio, the format always named, an edit keeps its source shape", async () => {
    const t2i = await bflRequest(
      imageJob("text_to_image", "flux-kontext-pro", {
        canvas: { type: "preset", tier: "1K", aspect: "16:9" },
        dimensions: { width: 1392, height: 752 },
        enhance_prompt: true,
      }),
      context(),
    );
    expect(t2i).toEqual({
      endpoint: "flux-kontext-pro",
      body: { prompt: "a lighthouse at dawn", aspect_ratio: "16:9", prompt_upsampling: true, output_format: "jpeg" },
    });
    const edit = await bflRequest(
      imageJob(
        "image_edit",
        "flux-kontext-pro",
        { canvas: { type: "preset", tier: "1K", aspect: "source" }, dimensions: { width: 1248, height: 832 } },
        [png("inputs/base", 768, 512)],
        "image/png",
      ),
      context(),
    );
    expect(edit.body).toEqual({ prompt: "a lighthouse at dawn", output_format: "png", input_image: signed(png("inputs/base")) });
  });

  it("Ultra: a target canvas as its ratio in lowest terms; the remix image as base64", async () => {
    expect(aspectRatio({ dimensions: { width: 2752, height: 1536 } } as ImageRequest, false)).toBe("43:24");
    const { body } = await bflRequest(
      imageJob(
        "image_to_image",
        "flux-pro-1.1-ultra",
        { canvas: { type: "target", width: 2048, height: 2048 }, dimensions: { width: 2048, height: 2048 } },
        [png("inputs/remix")],
      ),
      context(),
    );
    expect(body).toEqual({
      prompt: "a lighthouse at dawn",
      aspect_ratio: "1:1",
      output_format: "jpeg",
      image_prompt: base64(INPUT_BYTES),
    });
    expect(Uint8Array.from(atob(body.image_prompt as string), (ch) => ch.charCodeAt(0))).toEqual(INPUT_BYTES);
  });
});

describe("bfl error answers and hosts", () => {
  it("reads validation lists, BFL's error codes, and content refusals", () => {
    const validation = describeBfl(
      422,
      JSON.stringify({
        detail: [{ loc: ["body", "safety_tolerance"], msg: "Input should be less than or equal to 6", type: "x" }],
      }),
    );
    expect(validation).toEqual({ message: "safety_tolerance: Input should be less than or equal to 6" });
    expect(
      describeBfl(402, JSON.stringify({ error: "insufficient_credits", message: "Your account does not have enough credits" })),
    ).toEqual({
      message: "Your account does not have enough credits (insufficient_credits)",
      code: "model_unavailable",
      retryable: true,
    });
    expect(
      describeBfl(400, JSON.stringify({ error: "content_policy_violation", message: "The prompt violated content policy" })),
    ).toMatchObject({
      code: "safety_rejected",
      retryable: false,
    });
    expect(describeBfl(400, JSON.stringify({ detail: "Request Moderated: prompt flagged" })).code).toBe("safety_rejected");
    expect(describeBfl(403, JSON.stringify({ detail: "Not authenticated" }))).toEqual({ message: "Not authenticated" });
    expect(describeBfl(500, "<html>oops</html>")).toEqual({ message: "<html>oops</html>" });
  });

  it("keeps a polling URL only on BFL's API hosts over https, or on the configured host", () => {
    const c = config();
    const ok = [
      `${c.baseUrl}/v1/get_result?id=1`,
      "https://api.bfl.ai/v1/get_result?id=1",
      "https://api.eu2.bfl.ai/v1/get_result?id=1",
    ];
    for (const u of ok) expect(trustedUrl(c, u), u).toBe(new URL(u).toString());
    const refused = [
      "http://api.bfl.ai/v1/get_result?id=1",
      "https://api.bfl.ai.evil.example/v1/get_result?id=1",
      "https://evil.example/v1/get_result?id=1",
      "https://delivery-eu1.bfl.ai/results/x.jpeg",
      "https://user:pw@api.bfl.ai/v1/get_result?id=1",
      "https://api.bfl.ai:8443/v1/get_result?id=1",
      "not a url",
      42,
    ];
    for (const u of refused) expect(trustedUrl(c, u), String(u)).toBeUndefined();
    const handle: ProviderHandle = { job_id: "a b", submitted_at: 0, data: { polling_url: "https://evil.example/poll" } };
    expect(pollingUrlOf(c, handle)).toBe(`${c.baseUrl}/v1/get_result?id=a%20b`);
  });
});

describe("a task's life against the fake BFL", () => {
  async function started(name: string, markers = "", model = "flux-2-pro") {
    const t = tag(name);
    const ctx = context();
    const job = imageJob("text_to_image", model, { prompt: `x #tag:${t} ${markers}`, dimensions: { width: 96, height: 64 } });
    const handle = await bflAdapter.submit(job, ctx);
    const poll = (i: number) => bflAdapter.poll(handle, job, { ...ctx, now: ctx.now + 1000 * (i + 1) });
    return { t, ctx, job, handle, poll };
  }

  it("submits with x-key, polls the returned URL until Ready, and hands the image over as a URL", async () => {
    const { t, ctx, job, handle, poll } = await started("ok");
    expect(handle.data).toEqual({
      endpoint: "flux-2-pro",
      polling_url: `${ctx.config.baseUrl}/v1/get_result?id=${handle.job_id}`,
    });
    const states = [];
    for (let i = 0; i < 3; i++) states.push((await poll(i)).state);
    expect(states).toEqual(["running", "running", "succeeded"]);
    const result = await bflAdapter.fetchResult(handle, job, ctx);
    expect(result.outputs).toHaveLength(1);
    const out = result.outputs[0] as { kind: string; index: number; url: string; headers?: unknown };
    expect(out).toMatchObject({ kind: "image", index: 0 });
    expect(out.headers).toBeUndefined();
    expect(result.metadata).toEqual({ bfl_id: handle.job_id, seed: 424242 });
    const image = decode(new Uint8Array(await (await fetch(out.url)).arrayBuffer()));
    expect([image.width, image.height]).toEqual([96, 64]);
    const seen = await requests(t);
    expect(seen.map((r) => r.kind)).toEqual(["submit", "status", "status", "status", "status", "download"]);
    expect(seen[0]).toMatchObject({ method: "POST", path: "/v1/flux-2-pro" });
    expect(seen[0]?.body).toMatchObject({ width: 96, height: 64, output_format: "jpeg" });
    // The key goes to the API only; the image is fetched without it.
    expect(seen.filter((r) => r.kind !== "download").every((r) => r.headers["x-key"] === ctx.config.apiKey)).toBe(true);
  });

  it("submission refusals: 429 with Retry-After, 5xx, down, no credits, invalid input; none accepted", async () => {
    const ctx = context();
    const refused = async (text: string) => {
      const e = await bflAdapter
        .submit(imageJob("text_to_image", "flux-2-pro", { prompt: text }), ctx)
        .catch((err: unknown) => err);
      expect(e).toBeInstanceOf(ProviderError);
      expect((e as ProviderError).accepted).toBe("no");
      return e as ProviderError;
    };
    const t429 = tag("429");
    const limited = await refused(`x #tag:${t429} #fake:submit_429`);
    expect([limited.code, limited.retryable, limited.retryAfterMs, limited.upstreamStatus]).toEqual([
      "model_rate_limited",
      true,
      1000,
      429,
    ]);
    expect(limited.message).toContain("Too many concurrent requests");
    await expect(
      bflAdapter.submit(imageJob("text_to_image", "flux-2-pro", { prompt: `x #tag:${t429} #fake:submit_429` }), ctx),
    ).resolves.toMatchObject({ job_id: expect.any(String) });
    const broken = await refused(`x #tag:${tag("5xx")} #fake:submit_5xx`);
    expect([broken.code, broken.retryable]).toEqual(["model_request_failed", true]);
    const down = await refused(`x #tag:${tag("down")} #fake:down`);
    expect([down.code, down.retryable]).toEqual(["model_unavailable", true]);
    const broke = await refused(`x #tag:${tag("credits")} #fake:no_credits`);
    expect([broke.code, broke.retryable, broke.upstreamStatus]).toEqual(["model_unavailable", true, 402]);
    expect(broke.message).toContain("insufficient_credits");
    const invalid = await submitTask(ctx.config, "flux-2-pro", { prompt: "x", width: 100 }, ctx.now).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ code: "model_request_failed", retryable: false, accepted: "no", upstreamStatus: 422 });
    expect((invalid as Error).message).toContain("width: Must be a multiple of 16");
  });

  it("a key BFL refuses is this deployment's problem, and never shown", async () => {
    const c = { ...config(), apiKey: "wrong-bfl-key-0123456789" };
    const e = await submitTask(c, "flux-2-pro", { prompt: `x #tag:${tag("key")}` }, Date.now()).catch((err: unknown) => err);
    expect(e).toMatchObject({ code: "model_unavailable", retryable: true, accepted: "no", upstreamStatus: 401 });
    expect((e as Error).message).not.toContain(c.apiKey);
  });

  it("moderation ends the task: the input before processing, the output after", async () => {
    const input = await started("safe-in", "#fake:safety_input");
    expect(await input.poll(0)).toMatchObject({ state: "failed", error: { code: "safety_rejected" } });
    const output = await started("safe-out", "#fake:safety_output");
    const polls = [await output.poll(0), await output.poll(1), await output.poll(2)];
    expect(polls.map((p) => p.state)).toEqual(["running", "running", "failed"]);
    expect(polls[2]).toMatchObject({ error: { code: "content_filtered" } });
    const e = await bflAdapter.fetchResult(output.handle, output.job, output.ctx).catch((err: unknown) => err);
    expect(e).toMatchObject({ code: "content_filtered" });
  });

  it("a task ending Error with content_policy_violation is a content refusal; other reasons are failures", async () => {
    const refused = await started("policy", "#fake:task_error_content_policy_violation");
    expect(await refused.poll(0)).toMatchObject({
      state: "failed",
      error: { code: "safety_rejected", message: expect.stringContaining("content_policy_violation") },
    });
    const broken = await started("internal", "#fake:task_error_internal_error");
    expect(await broken.poll(0)).toMatchObject({ state: "failed", error: { code: "model_request_failed" } });
  });

  it("an unlisted status is running; a Ready without its image is malformed; an unknown id is not found", async () => {
    const odd = await started("odd", "#fake:unknown_status");
    const states = [];
    for (let i = 0; i < 5; i++) states.push((await odd.poll(i)).state);
    expect(states).toEqual(["running", "running", "running", "running", "succeeded"]);
    const bad = await started("bad", "#fake:malformed");
    await bad.poll(0);
    await bad.poll(1);
    await expect(bad.poll(2)).rejects.toMatchObject({ malformed: true });
    await expect(bflAdapter.fetchResult(bad.handle, bad.job, bad.ctx)).rejects.toMatchObject({ malformed: true });
    const lost: ProviderHandle = { job_id: "no-such-task", submitted_at: Date.now(), data: { endpoint: "flux-2-pro" } };
    expect(await bflAdapter.poll(lost, bad.job, bad.ctx)).toMatchObject({
      state: "failed",
      error: { code: "model_request_failed" },
    });
  });

  it("the image URL answers once: the service must copy it at once", async () => {
    const { handle, job, ctx, poll } = await started("expiring", "#fake:expiring_output");
    for (let i = 0; i < 3; i++) await poll(i);
    const out = (await bflAdapter.fetchResult(handle, job, ctx)).outputs[0] as { url: string };
    expect((await fetch(out.url)).status).toBe(200);
    expect((await fetch(out.url)).status).toBe(404);
  });

  it("Kontext edit and Ultra remix reach the fake in its documented shapes", async () => {
    const ctx = context();
    const t = tag("kontext");
    const edit = imageJob("image_edit", "flux-kontext-pro", { prompt: `x #tag:${t}` }, [png("inputs/k")]);
    const handle = await bflAdapter.submit(edit, ctx);
    expect(handle.job_id).toBeTruthy();
    const u = tag("ultra");
    const remix = imageJob(
      "image_to_image",
      "flux-pro-1.1-ultra",
      {
        prompt: `x #tag:${u}`,
        canvas: { type: "preset", tier: "2K", aspect: "16:9" },
        dimensions: { width: 2752, height: 1536 },
      },
      [png("inputs/u")],
    );
    await bflAdapter.submit(remix, ctx);
    expect((await requests(t))[0]?.body).toMatchObject({ input_image: signed(png("inputs/k")), aspect_ratio: "1:1" });
    expect((await requests(u))[0]?.body).toMatchObject({ aspect_ratio: "16:9", image_prompt: base64(INPUT_BYTES) });
  });

  it("cannot cancel: BFL documents no cancel, and nothing is sent", async () => {
    const { t, handle, job, ctx } = await started("cancel", "#fake:slow");
    expect(await bflAdapter.cancel(handle, job, ctx)).toBe("not_cancelable");
    expect((await requests(t)).map((r) => r.kind)).toEqual(["submit"]);
  });

  it("fetchResult reads the answer as it stands: no result before Ready", async () => {
    const c = config();
    const handle: ProviderHandle = { job_id: "x", submitted_at: 0 };
    expect(() => resultOf(c, handle, { status: "Pending" })).toThrow(expect.objectContaining({ retryable: true }));
    expect(() => resultOf(c, handle, { status: "Request Moderated" })).toThrow(
      expect.objectContaining({ code: "safety_rejected" }),
    );
  });
});
