/**
 * The fal adapter on its own: status words, the input each endpoint family gets, the reading of
 * fal's error answers, a request's life against the fake queue, and webhook signatures.
 * The fake fal (test/providers/fakes/fal.ts) is at env.PROVIDER_FAL_BASE_URL.
 */
import { env } from "cloudflare:workers";
import { decode } from "fast-png";
import { describe, expect, it } from "vitest";
import type { InterfaceFile } from "../../src/catalog/schema";
import type { ProviderContext } from "../../src/providers/adapter";
import { type ProviderConfig, providerConfig } from "../../src/providers/config";
import { describeFal, FAL_QUEUE_URL } from "../../src/providers/fal/client";
import { falAdapter } from "../../src/providers/fal/index";
import { falInput } from "../../src/providers/fal/inputs";
import { readStatusAnswer } from "../../src/providers/fal/status";
import type { ImageRequest, JobInput, VideoRequest } from "../../src/providers/jobs";
import { ProviderError, type ProviderHandle, type ProviderJob } from "../../src/providers/types";
import { imageRequest, unitJob, videoRequest } from "./unit";

function config(): ProviderConfig {
  const c = providerConfig(env, "fal", FAL_QUEUE_URL);
  if (!c) throw new Error("the providers project configures PROVIDER_FAL_API_KEY");
  return c;
}

const signed = (i: JobInput) => `https://gateway.test/v1/inputs/${i.key}?exp=1&sig=abc`;

function context(webhookUrl: string | null = null): ProviderContext {
  return {
    env,
    now: Date.now(),
    config: config(),
    inputs: { url: async (i) => signed(i), bytes: async () => new Uint8Array() },
    webhookUrl,
  };
}

const card = (format: string) => ({ outputs: { format } }) as unknown as InterfaceFile;

function image(field: string, key: string, width = 640, height = 480): JobInput {
  return { field, key, kind: "image", mime: "image/png", width, height };
}

function imageJob(
  capability: "text_to_image" | "image_to_image" | "image_edit",
  upstream_model: string,
  request: Partial<ImageRequest>,
  inputs: JobInput[] = [],
  format = "image/jpeg",
): ProviderJob {
  return unitJob({
    task_id: "task_test",
    capability,
    model: "m",
    upstream_model,
    card: card(format),
    inputs,
    request: imageRequest("a lighthouse", { canvas: { type: "preset", tier: "1K", aspect: "1:1" }, ...request }),
  });
}

function videoJob(
  capability: "text_to_video" | "image_to_video" | "frames_to_video" | "video_extend",
  upstream_model: string,
  request: Partial<VideoRequest>,
  inputs: JobInput[] = [],
): ProviderJob {
  return unitJob({
    task_id: "task_test",
    capability,
    model: "m",
    upstream_model,
    card: card("video/mp4"),
    inputs,
    request: videoRequest("waves at dusk", request),
  });
}

describe("fal status words", () => {
  const ctx = { elapsedMs: 3_000, typicalMs: 20_000, secrets: ["secret-key-1234"] };

  it("maps every documented status, and an unknown one to running", () => {
    const queued = readStatusAnswer({ status: "IN_QUEUE", queue_position: 2 }, ctx);
    expect(queued).toMatchObject({ next: "wait", result: { state: "queued", progress: { stage: "queued" } } });
    expect(queued.next === "wait" && queued.result.progress.message).toContain("2 requests ahead");
    expect(readStatusAnswer({ status: "IN_QUEUE", queue_position: 0 }, ctx)).toMatchObject({
      result: { progress: { message: expect.stringContaining("next in line") } },
    });

    const running = readStatusAnswer(
      { status: "IN_PROGRESS", logs: [{ message: "Loading" }, { message: "Generating: 40% key secret-key-1234" }] },
      ctx,
    );
    expect(running).toMatchObject({ next: "wait", result: { state: "running", progress: { stage: "generating" } } });
    if (running.next !== "wait") throw new Error("running");
    expect(running.result.progress.percent).toBeGreaterThanOrEqual(39);
    expect(running.result.progress.message).not.toContain("secret-key-1234");

    expect(readStatusAnswer({ status: "COMPLETED", metrics: { inference_time: 1 } }, ctx)).toEqual({
      next: "result",
      failed: false,
      error: undefined,
      errorType: undefined,
    });
    expect(readStatusAnswer({ status: "COMPLETED", error: "boom", error_type: "runner_disconnected" }, ctx)).toMatchObject({
      next: "result",
      failed: true,
      errorType: "runner_disconnected",
    });
    expect(readStatusAnswer({ status: "FAILED" }, ctx)).toMatchObject({ next: "result", failed: true });
    expect(readStatusAnswer({ status: "CANCELED" }, ctx)).toEqual({ next: "canceled" });

    const unknown = readStatusAnswer({ status: "PENDING_RUNNER" }, ctx);
    expect(unknown).toMatchObject({ next: "wait", result: { state: "running" } });
    expect(readStatusAnswer({ status: "SUCCEEDED" }, ctx)).toMatchObject({ next: "wait", result: { state: "running" } });
  });

  it("moves progress on with elapsed time when fal prints none", () => {
    const at = (elapsedMs: number) => {
      const r = readStatusAnswer({ status: "IN_PROGRESS", logs: [] }, { ...ctx, elapsedMs });
      return r.next === "wait" ? r.result.progress.percent : -1;
    };
    expect(at(1_000)).toBeLessThan(at(10_000));
    expect(at(10_000)).toBeLessThan(at(60_000));
    expect(at(10_000_000)).toBeLessThanOrEqual(90);
  });
});

describe("fal inputs per endpoint family", () => {
  it("FLUX.2: exact image_size, output format from the card, palette in the prompt", async () => {
    const job = imageJob("text_to_image", "fal-ai/flux-2-pro", {
      dimensions: { width: 1344, height: 768 },
      seed: 7,
      enhance_prompt: true,
      palette: [
        { color: "#112233", weight: 0.2 },
        { color: "#AABBCC", weight: 0.5 },
        { color: "#445566", weight: 0.3 },
      ],
    });
    const { endpoint, input } = await falInput(job, context());
    expect(endpoint).toBe("fal-ai/flux-2-pro");
    expect(input).toEqual({
      prompt: "a lighthouse\n\nColor palette: #aabbcc, #445566, #112233",
      image_size: { width: 1344, height: 768 },
      output_format: "jpeg",
      seed: 7,
    });
  });

  it("FLUX.2 edit: every image as a signed URL of this service, in order", async () => {
    const inputs = [image("images", "in/a"), image("images", "in/b")];
    const { input } = await falInput(imageJob("image_edit", "fal-ai/flux-2-pro/edit", {}, inputs), context());
    expect(input.image_urls).toEqual([signed(inputs[0] as JobInput), signed(inputs[1] as JobInput)]);
    expect(input.image_size).toEqual({ width: 1024, height: 1024 });
  });

  it("Kontext: aspect_ratio and num_images; enhance_prompt only when set; an edit keeps the source shape", async () => {
    const t2i = await falInput(
      imageJob("text_to_image", "fal-ai/flux-pro/kontext/text-to-image", { enhance_prompt: false }, [], "image/png"),
      context(),
    );
    expect(t2i.input).toEqual({
      prompt: "a lighthouse",
      num_images: 1,
      output_format: "png",
      aspect_ratio: "1:1",
      enhance_prompt: false,
    });
    const edit = await falInput(
      imageJob(
        "image_edit",
        "fal-ai/flux-pro/kontext",
        { canvas: { type: "preset", tier: "1K", aspect: "source" }, enhance_prompt: null },
        [image("images", "in/base")],
      ),
      context(),
    );
    expect(edit.input).not.toHaveProperty("aspect_ratio");
    expect(edit.input).not.toHaveProperty("enhance_prompt");
    expect(edit.input.image_url).toBe(signed(image("images", "in/base")));
  });

  it("FLUX ultra: a target canvas gets the nearest listed aspect ratio; an input image is the image prompt", async () => {
    const { input } = await falInput(
      imageJob(
        "image_to_image",
        "fal-ai/flux-pro/v1.1-ultra",
        { canvas: { type: "target", width: 3000, height: 1400 }, dimensions: { width: 3008, height: 1392 } },
        [image("images", "in/ref")],
      ),
      context(),
    );
    expect(input).toMatchObject({ aspect_ratio: "21:9", num_images: 1, image_url: signed(image("images", "in/ref")) });
  });

  it("GPT Image edit: image_urls, count, and edit regions as a mask the size of the base image", async () => {
    const base = image("images", "in/base", 200, 100);
    const job = imageJob(
      "image_edit",
      "openai/gpt-image-2/edit",
      { count: 2, edit_regions: [{ image_index: 0, x: 0.5, y: 0, width: 0.5, height: 0.5 }] },
      [base, image("images", "in/ref")],
      "image/png",
    );
    const { input } = await falInput(job, context());
    expect(input).toMatchObject({ num_images: 2, output_format: "png", image_size: { width: 1024, height: 1024 } });
    expect(input.image_urls).toHaveLength(2);
    const uri = String(input.mask_url);
    expect(uri.startsWith("data:image/png;base64,")).toBe(true);
    const png = decode(Uint8Array.from(atob(uri.split(",")[1] as string), (c) => c.charCodeAt(0)));
    expect([png.width, png.height, png.channels]).toEqual([200, 100, 4]);
    const px = (x: number, y: number) => [...png.data.slice((y * 200 + x) * 4, (y * 200 + x) * 4 + 4)];
    expect(px(150, 10)).toEqual([255, 255, 255, 0]); // inside: white and transparent
    expect(px(10, 10)).toEqual([0, 0, 0, 255]); // outside: black and opaque
    expect(px(150, 80)).toEqual([0, 0, 0, 255]);
  });

  it("Kling: duration as a string; aspect ratio only from text; start and end frames", async () => {
    const t2v = await falInput(
      videoJob("text_to_video", "fal-ai/kling-video/v4/text-to-video", { generate_audio: true }),
      context(),
    );
    expect(t2v.input).toEqual({
      prompt: "waves at dusk",
      duration: "5",
      aspect_ratio: "16:9",
      resolution: "720p",
      generate_audio: true,
    });
    const frames = [image("first_frame", "in/first"), image("last_frame", "in/last")];
    const f2v = await falInput(videoJob("frames_to_video", "fal-ai/kling-video/v4/image-to-video", {}, frames), context());
    expect(f2v.input).toMatchObject({
      start_image_url: signed(frames[0] as JobInput),
      end_image_url: signed(frames[1] as JobInput),
    });
    expect(f2v.input).not.toHaveProperty("aspect_ratio");
  });

  it("PixVerse: whole seconds, generate_audio_switch, and an extension's own length", async () => {
    const i2v = await falInput(
      videoJob("image_to_video", "fal-ai/pixverse/v6/image-to-video", { seed: 3, negative_prompt: "blur" }, [
        image("image", "in/img"),
      ]),
      context(),
    );
    expect(i2v.input).toEqual({
      prompt: "waves at dusk",
      duration: 5,
      resolution: "720p",
      generate_audio_switch: false,
      negative_prompt: "blur",
      seed: 3,
      image_url: signed(image("image", "in/img")),
    });
    const source: JobInput = { field: "video", key: "in/vid", kind: "video", mime: "video/mp4", duration_seconds: 2.5 };
    const ext = await falInput(
      videoJob("video_extend", "fal-ai/pixverse/v6/extend", { duration: 12, source_duration: 2.5, direction: "after" }, [source]),
      context(),
    );
    expect(ext.input).toMatchObject({ video_url: signed(source), duration: 10 });
    expect(ext.input).not.toHaveProperty("aspect_ratio");
  });
});

describe("fal error answers", () => {
  const h = (init: Record<string, string> = {}) => new Headers(init);

  it("reads a content-policy detail as a safety refusal", () => {
    const body = JSON.stringify({
      detail: [{ loc: ["body", "prompt"], msg: "flagged by a content checker", type: "content_policy_violation" }],
    });
    expect(describeFal(422, body, h())).toEqual({
      message: "prompt: flagged by a content checker",
      code: "safety_rejected",
      retryable: false,
    });
    expect(describeFal(400, JSON.stringify({ detail: "Content policy violation detected" }), h())).toMatchObject({
      code: "safety_rejected",
    });
    // A validation error about a safety *field* is not a refusal.
    expect(
      describeFal(422, JSON.stringify({ detail: [{ loc: ["body", "safety_tolerance"], msg: "bad", type: "one_of" }] }), h()).code,
    ).toBe(undefined);
  });

  it("follows X-Fal-Retryable and the request error types", () => {
    const internal = JSON.stringify({ detail: [{ loc: ["body"], msg: "Internal server error", type: "internal_server_error" }] });
    expect(describeFal(500, internal, h({ "X-Fal-Retryable": "false" }))).toEqual({
      message: "Internal server error",
      retryable: false,
    });
    expect(describeFal(500, internal, h({ "X-Fal-Retryable": "true" }))).toEqual({
      message: "Internal server error",
      retryable: true,
    });
    expect(describeFal(503, JSON.stringify({ detail: "No runner", error_type: "runner_scheduling_failure" }), h())).toMatchObject(
      {
        code: "model_unavailable",
        retryable: true,
      },
    );
    expect(describeFal(504, JSON.stringify({ detail: "Timed out" }), h({ "X-Fal-Error-Type": "request_timeout" }))).toMatchObject(
      {
        code: "model_timeout",
      },
    );
    expect(describeFal(504, "{}", h({ "X-Fal-Request-Timeout-Type": "user" }))).toMatchObject({
      code: "model_timeout",
      retryable: false,
    });
  });

  it("submission refusals: 429 with Retry-After, 5xx, a route that is down; all not accepted", async () => {
    const ctx = context();
    const job = (text: string) => imageJob("text_to_image", "fal-ai/flux-2-pro", { prompt: text });
    const refused = async (text: string) => {
      const e = await falAdapter.submit(job(text), ctx).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(ProviderError);
      return e as ProviderError;
    };
    const limited = await refused("x #tag:fal-unit-429 #fake:submit_429");
    expect([limited.code, limited.retryable, limited.retryAfterMs, limited.accepted, limited.upstreamStatus]).toEqual([
      "model_rate_limited",
      true,
      1000,
      "no",
      429,
    ]);
    await expect(falAdapter.submit(job("x #tag:fal-unit-429 #fake:submit_429"), ctx)).resolves.toMatchObject({
      job_id: expect.any(String),
    });
    const broken = await refused("x #tag:fal-unit-5xx #fake:submit_5xx");
    expect([broken.code, broken.retryable, broken.accepted]).toEqual(["model_request_failed", true, "no"]);
    const down = await refused("x #tag:fal-unit-down #fake:down");
    expect([down.code, down.retryable, down.accepted]).toEqual(["model_unavailable", true, "no"]);
  });
});

describe("a request's life against the fake fal", () => {
  const log = async (tag: string) =>
    (await (await fetch(`${env.PROVIDER_FAL_BASE_URL}/_fake/requests?tag=${tag}`)).json()) as { kind: string; path: string }[];

  async function run(text: string, reads: number, job?: ProviderJob) {
    const ctx = context();
    const j = job ?? imageJob("text_to_image", "fal-ai/flux-2-pro", { prompt: text, dimensions: { width: 96, height: 64 } });
    const handle = await falAdapter.submit(j, ctx);
    const polls = [];
    for (let i = 0; i < reads; i++) polls.push(await falAdapter.poll(handle, j, { ...ctx, now: ctx.now + (i + 1) * 2000 }));
    return { ctx, job: j, handle, polls };
  }

  it("queued, running, done; the result's files as URLs to download; the webhook URL on submission", async () => {
    const ctx = context("https://gateway.test/webhooks/providers/fal/task_1");
    const job = imageJob("text_to_image", "fal-ai/flux-2-pro", {
      prompt: "x #tag:fal-unit-ok",
      dimensions: { width: 96, height: 64 },
    });
    const handle = await falAdapter.submit(job, ctx);
    expect(handle.data).toMatchObject({
      endpoint: "fal-ai/flux-2-pro",
      status_url: expect.stringContaining("/fal-ai/flux-2-pro/requests/"),
    });
    const states = [];
    for (let i = 0; i < 3; i++)
      states.push((await falAdapter.poll(handle, job, { ...ctx, now: ctx.now + 1000 * (i + 1) })).state);
    expect(states).toEqual(["queued", "running", "succeeded"]);
    const result = await falAdapter.fetchResult(handle, job, ctx);
    expect(result.outputs).toHaveLength(1);
    expect(result.outputs[0]).toMatchObject({ kind: "image", width: 96, height: 64, content_type: "image/png", index: 0 });
    expect("url" in (result.outputs[0] as object)).toBe(true);
    expect(result.metadata).toMatchObject({ request_id: handle.job_id, seed: 1234567 });
    const seen = await log("fal-unit-ok");
    expect(seen[0]?.path).toBe(
      `/fal-ai/flux-2-pro?fal_webhook=${encodeURIComponent("https://gateway.test/webhooks/providers/fal/task_1")}`,
    );
    expect(seen.filter((r) => r.kind === "status").every((r) => r.path.includes("logs=1"))).toBe(true);
  });

  it("follow-ups use the app root when fal's own URLs are missing", async () => {
    const { job, handle, ctx } = await run(
      "x #tag:fal-unit-root",
      0,
      imageJob("image_edit", "fal-ai/flux-2-pro/edit", { prompt: "x #tag:fal-unit-root" }, [image("images", "in/a")]),
    );
    const bare: ProviderHandle = { ...handle, data: { endpoint: "fal-ai/flux-2-pro/edit" } };
    expect((await falAdapter.poll(bare, job, ctx)).state).toBe("queued");
    expect((await log("fal-unit-root")).at(-1)?.path).toMatch(/^\/fal-ai\/flux-2-pro\/requests\/[^/]+\/status\?logs=1$/);
  });

  it("a refused prompt and a flagged output end as safety failures", async () => {
    const refused = await run("x #tag:fal-unit-safe-in #fake:safety_input", 1);
    expect(refused.polls[0]).toMatchObject({ state: "failed", error: { code: "safety_rejected" } });
    const flagged = await run("x #tag:fal-unit-safe-out #fake:safety_output", 3);
    expect(flagged.polls[2]).toMatchObject({ state: "failed", error: { code: "content_filtered" } });
  });

  it("an unlisted status is running, never success; a malformed result fails the read", async () => {
    const odd = await run("x #tag:fal-unit-odd #fake:unknown_status", 5);
    expect(odd.polls.map((p) => p.state)).toEqual(["running", "running", "queued", "running", "succeeded"]);
    const bad = await run("x #tag:fal-unit-bad #fake:malformed", 3);
    expect(bad.polls[2]?.state).toBe("succeeded");
    const e = await falAdapter.fetchResult(bad.handle, bad.job, bad.ctx).catch((err: unknown) => err);
    expect(e).toMatchObject({ code: "model_request_failed", retryable: true });
    expect(String((e as Error).message)).toContain("malformed");
  });

  it("cancels a queued request; a finished one is not cancelable", async () => {
    const slow = await run("x #tag:fal-unit-slow #fake:slow", 2);
    expect(slow.polls.map((p) => p.state)).toEqual(["queued", "queued"]);
    expect(await falAdapter.cancel(slow.handle, slow.job, slow.ctx)).toBe("canceled");
    const done = await run("x #tag:fal-unit-done", 3);
    expect(await falAdapter.cancel(done.handle, done.job, done.ctx)).toBe("not_cancelable");
  });

  it("a video request: the clip as a URL, and an extension reports the seconds it asked for", async () => {
    const source: JobInput = { field: "video", key: "in/vid", kind: "video", mime: "video/mp4", duration_seconds: 2.5 };
    const job = videoJob(
      "video_extend",
      "fal-ai/pixverse/v6/extend",
      { prompt: "x #tag:fal-unit-ext", duration: 8, source_duration: 2.5, direction: "after" },
      [source],
    );
    const { handle, polls, ctx } = await run("", 3, job);
    expect(polls.map((p) => p.state)).toEqual(["queued", "running", "succeeded"]);
    const result = await falAdapter.fetchResult(handle, job, ctx);
    expect(result.outputs[0]).toMatchObject({ kind: "video", content_type: "video/mp4" });
    expect(result.usage).toEqual({ generated_video_seconds: 6 });
  });
});

describe("fal webhooks", () => {
  const body = JSON.stringify({ request_id: "req-123", gateway_request_id: "req-123", status: "OK", payload: { images: [] } });

  async function signedHeaders(payload: string, query = ""): Promise<Record<string, string>> {
    const res = await fetch(`${env.PROVIDER_FAL_BASE_URL}/_fake/sign-webhook${query}`, { method: "POST", body: payload });
    return ((await res.json()) as { headers: Record<string, string> }).headers;
  }

  const verify = (headers: Record<string, string>, payload: string) =>
    falAdapter.verifyWebhook!(
      new Request("https://gateway.test/webhooks/providers/fal/task_1", { method: "POST", headers, body: payload }),
      new TextEncoder().encode(payload),
      config(),
    );

  it("accepts fal's signature and names the queue request", async () => {
    expect(await verify(await signedHeaders(body), body)).toEqual({ job_id: "req-123" });
  });

  it("refuses a tampered body, a key fal does not publish, a stale timestamp and missing headers", async () => {
    const headers = await signedHeaders(body);
    expect(await verify(headers, body.replace("OK", "ERROR"))).toBeNull();

    const keys = (await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"])) as CryptoKeyPair;
    const t = headers["X-Fal-Webhook-Timestamp"] as string;
    const hash = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    const forged = new Uint8Array(
      await crypto.subtle.sign(
        { name: "Ed25519" },
        keys.privateKey,
        new TextEncoder().encode(`req-123\nfake-user\n${t}\n${hash}`),
      ),
    );
    const hex = [...forged].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(await verify({ ...headers, "X-Fal-Webhook-Signature": hex }, body)).toBeNull();

    const old = Math.floor(Date.now() / 1000) - 600;
    expect(await verify(await signedHeaders(body, `?timestamp=${old}`), body)).toBeNull();

    const { "X-Fal-Webhook-User-Id": _, ...missing } = headers;
    expect(await verify(missing, body)).toBeNull();
  });
});
