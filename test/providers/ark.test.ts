/**
 * The Ark adapter on its own: what it sends for each capability, how it reads Ark's statuses and
 * error codes, when it cancels, and the whole life of a Seedance task and a Seedream call against
 * the fake Ark (test/providers/fakes/ark/server.ts), started as `byteplus` and as `volcengine`.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ProviderContext } from "../../src/providers/adapter";
import { arkAdapter, BYTEPLUS_BASE_URL, VOLCENGINE_BASE_URL } from "../../src/providers/ark";
import { codeForArkError, describeArk, safetyCode } from "../../src/providers/ark/client";
import { imageBody, imageResult, verdictOf } from "../../src/providers/ark/images";
import { pollResult } from "../../src/providers/ark/status";
import { type ArkTask, extensionPrompt, taskBody, taskResult } from "../../src/providers/ark/tasks";
import { providerConfig } from "../../src/providers/config";
import type { ImageCapability, ImageRequest, JobFor, JobInput, VideoCapability, VideoRequest } from "../../src/providers/jobs";
import { ProviderError, type ProviderHandle } from "../../src/providers/types";
import { fakeKey, type Recorded } from "./fakes/kit";
import { cardOf, imageRequest, recorded, rejection, unitJob, videoRequest } from "./unit";

const volcengine = arkAdapter("volcengine", VOLCENGINE_BASE_URL);
const byteplus = arkAdapter("byteplus", BYTEPLUS_BASE_URL);
const volcConfig = providerConfig(env, "volcengine", VOLCENGINE_BASE_URL)!;
const bpConfig = providerConfig(env, "byteplus", BYTEPLUS_BASE_URL)!;

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let n = 0;
const tag = (name: string) => `${name}-${run}-${++n}`;

function ctx(config = volcConfig, over: Partial<ProviderContext> = {}): ProviderContext {
  return {
    env,
    now: Date.now(),
    config,
    inputs: {
      url: async (input: JobInput) => `https://gateway.test/inputs/${encodeURIComponent(input.key)}?expires=9999999999&sig=ab`,
      bytes: async () => new Uint8Array(),
    },
    webhookUrl: null,
    ...over,
  };
}

const input = (field: string, kind: JobInput["kind"], key = `${field}-${++n}`, role?: string): JobInput => ({
  field,
  key,
  kind,
  mime: kind === "image" ? "image/png" : kind === "video" ? "video/mp4" : "audio/mpeg",
  ...(role ? { role } : {}),
});

function videoJob<C extends VideoCapability>(
  capability: C,
  prompt: string,
  request: Partial<VideoRequest> = {},
  inputs: JobInput[] = [],
): JobFor<C> {
  return unitJob({
    capability,
    model: "seedance-2.0",
    upstream_model: "doubao-seedance-2-0-260128",
    card: cardOf("seedance-2.0", capability),
    inputs,
    request: videoRequest(prompt, { generate_audio: true, ...request }) as JobFor<C>["request"],
  });
}

function imageJob<C extends ImageCapability>(
  capability: C,
  prompt: string,
  request: Partial<ImageRequest> = {},
  inputs: JobInput[] = [],
  model = "seedream-4.5",
): JobFor<C> {
  return unitJob({
    capability,
    model,
    upstream_model: model === "seedream-4.5" ? "seedream-4-5-251128" : "seedream-4-0-250828",
    card: cardOf(model, capability),
    inputs,
    request: imageRequest(prompt, { dimensions: { width: 2048, height: 2048 }, ...request }) as JobFor<C>["request"],
  });
}

async function requests(config: typeof volcConfig, t: string): Promise<Recorded<any>[]> {
  return recorded(config.baseUrl, t);
}

const body = (error: Record<string, string>) => JSON.stringify({ error: { ...error, param: "", type: "BadRequest" } });

describe("error codes", () => {
  const rows: [string, ReturnType<typeof safetyCode>][] = [
    ["InputTextSensitiveContentDetected", "safety_rejected"],
    ["InputImageSensitiveContentDetected.PrivacyInformation", "safety_rejected"],
    ["InputVideoSensitiveContentDetected.PolicyViolation", "safety_rejected"],
    ["InputAudioSensitiveContentDetected", "safety_rejected"],
    ["InputTextRiskDetection", "safety_rejected"],
    ["SensitiveContentDetected.Violence", "safety_rejected"],
    ["OutputVideoSensitiveContentDetected", "content_filtered"],
    ["OutputVideoSensitiveContentDetected.PolicyViolation", "content_filtered"],
    ["OutputImageSensitiveContentDetected", "content_filtered"],
    ["OutputImageRiskDetection", "content_filtered"],
    ["ContentSecurityDetectionError", null],
    ["InvalidParameter", null],
    ["InputTextSensitiveContentDetectedX", null],
  ];
  for (const [code, expected] of rows) it(`${code} → ${expected}`, () => expect(safetyCode({ code })).toBe(expected));

  it("falls back on the documented sentence when the code is missing", () => {
    expect(safetyCode({ message: "The request failed because the input image may contain real person." })).toBe(
      "safety_rejected",
    );
    expect(safetyCode({ message: "The request failed because the output video may contain sensitive information." })).toBe(
      "content_filtered",
    );
    expect(safetyCode({ message: "Something else entirely." })).toBeNull();
  });

  it("reads error answers: safety never retried, route-level refusals retryable elsewhere", () => {
    expect(describeArk(400, body({ code: "InputTextSensitiveContentDetected", message: "The request failed." }))).toEqual({
      message: "InputTextSensitiveContentDetected: The request failed.",
      code: "safety_rejected",
      retryable: false,
    });
    expect(describeArk(400, body({ code: "OutputImageSensitiveContentDetected", message: "x" }))).toMatchObject({
      code: "content_filtered",
      retryable: false,
    });
    for (const code of [
      "ModelNotOpen",
      "AccountOverdueError",
      "QuotaExceeded",
      "SetLimitExceeded",
      "InvalidEndpointOrModel.NotFound",
    ]) {
      expect(
        describeArk(code === "QuotaExceeded" || code === "SetLimitExceeded" ? 429 : 404, body({ code, message: "x" })),
      ).toMatchObject({
        code: "model_unavailable",
        retryable: true,
      });
    }
    // Plain throttling and plain bad requests keep the status's meaning (the shared client maps them).
    expect(describeArk(429, body({ code: "RateLimitExceeded.EndpointRPMExceeded", message: "slow down" }))).toEqual({
      message: "RateLimitExceeded.EndpointRPMExceeded: slow down",
    });
    expect(describeArk(400, body({ code: "InvalidParameter", message: "bad ratio" })).code).toBeUndefined();
    expect(codeForArkError({ code: "ContentSecurityDetectionError" })).toEqual({ code: "model_request_failed", retryable: true });
    // Quoted URLs (our signed inputs) never reach the client.
    expect(
      describeArk(400, body({ code: "InvalidParameter", message: "cannot fetch https://gateway.test/inputs/k?sig=1" })).message,
    ).toBe("InvalidParameter: cannot fetch [url]");
    expect(describeArk(502, "<html>bad gateway</html>").message).toBe("<html>bad gateway</html>");
  });
});

describe("task status mapping", () => {
  const now = 1_800_000_000_000;
  const base = { id: "cgt-1", created_at: now / 1000 - 30, updated_at: now / 1000 - 10 };
  const rows: [string, Partial<ArkTask>, string, string?][] = [
    ["queued", { status: "queued" }, "queued"],
    ["running", { status: "running" }, "running"],
    ["succeeded", { status: "succeeded", content: { video_url: "https://tos.example/v.mp4" } }, "succeeded"],
    [
      "failed, plain",
      { status: "failed", error: { code: "InternalServiceError", message: "boom" } },
      "failed",
      "model_request_failed",
    ],
    [
      "failed, input refused",
      { status: "failed", error: { code: "InputImageSensitiveContentDetected.PrivacyInformation", message: "real person" } },
      "failed",
      "safety_rejected",
    ],
    [
      "failed, output filtered",
      { status: "failed", error: { code: "OutputVideoSensitiveContentDetected", message: "sensitive" } },
      "failed",
      "content_filtered",
    ],
    ["failed, no error", { status: "failed", error: null }, "failed", "model_request_failed"],
    ["failed, quota", { status: "failed", error: { code: "QuotaExceeded", message: "q" } }, "failed", "model_request_failed"],
    ["cancelled", { status: "cancelled" }, "failed", "model_request_failed"],
    ["expired", { status: "expired" }, "failed", "model_timeout"],
    ["unlisted", { status: "pending" }, "running"],
  ];
  for (const [name, fields, state, code] of rows) {
    it(`${name} → ${state}${code ? ` (${code})` : ""}`, () => {
      const result = pollResult(volcConfig, { ...base, ...fields } as ArkTask, now, now - 30_000);
      expect(result.state).toBe(state);
      if (code) expect(result.state === "failed" && result.error.code).toBe(code);
      if (result.state === "queued" || result.state === "running") {
        expect(result.progress.percent).toBeGreaterThanOrEqual(0);
        expect(result.progress.percent).toBeLessThanOrEqual(95);
      }
    });
  }

  it("a succeeded task without its video is a malformed answer, not a success", () => {
    const e = (() => {
      try {
        pollResult(volcConfig, { ...base, status: "succeeded", content: {} } as ArkTask, now, now);
      } catch (err) {
        return err as ProviderError;
      }
      return null;
    })();
    expect(e?.malformed).toBe(true);
  });

  it("progress moves: the queue creeps, a run follows the time since it started, an unlisted status stays low", () => {
    const q1 = pollResult(volcConfig, { ...base, status: "queued", created_at: now / 1000 - 5 } as ArkTask, now, now);
    const q2 = pollResult(volcConfig, { ...base, status: "queued", created_at: now / 1000 - 40 } as ArkTask, now, now);
    const r1 = pollResult(volcConfig, { ...base, status: "running", updated_at: now / 1000 - 5 } as ArkTask, now, now);
    const r2 = pollResult(volcConfig, { ...base, status: "running", updated_at: now / 1000 - 120 } as ArkTask, now, now);
    const p = (r: ReturnType<typeof pollResult>) => (r.state === "queued" || r.state === "running" ? r.progress.percent : -1);
    expect(p(q1)).toBeLessThan(p(q2));
    expect(p(q2)).toBeLessThan(10);
    expect(p(r1)).toBeGreaterThanOrEqual(10);
    expect(p(r1)).toBeLessThan(p(r2));
    expect(p(r2)).toBeLessThanOrEqual(95);
    const unknown = pollResult(volcConfig, { ...base, status: "pending" } as ArkTask, now, now);
    expect(unknown.state === "running" && unknown.progress.percent).toBeLessThan(10);
  });

  it("a succeeded task's outputs: the video, the last frame when asked, and Ark's tokens", () => {
    const result = taskResult(volcConfig, {
      id: "cgt-1",
      status: "succeeded",
      content: { video_url: "https://tos.example/v.mp4?X-Tos-Signature=x", last_frame_url: "https://tos.example/f.png" },
      usage: { completion_tokens: 108900, total_tokens: 108900 },
      seed: 10,
      resolution: "720p",
      ratio: "16:9",
      duration: 5,
      framespersecond: 24,
    });
    expect(result.outputs).toEqual([
      { kind: "video", url: "https://tos.example/v.mp4?X-Tos-Signature=x", index: 0 },
      { kind: "image", url: "https://tos.example/f.png", index: 1 },
    ]);
    expect(result.usage).toEqual({ output_tokens: 108900 });
    expect(result.metadata).toMatchObject({ seed: 10, resolution: "720p", duration: 5 });
    // The key is never sent to the storage host that serves the outputs.
    expect(result.outputs.every((o) => !("headers" in o))).toBe(true);
  });
});

describe("video request mapping", () => {
  it("text to video: the prompt as text content and the card's controls as top-level parameters", async () => {
    const job = videoJob("text_to_video", "A fox in the snow", {
      seed: 7,
      aspect_ratio: "9:16",
      resolution: "1080p",
      duration: 8,
    });
    expect(await taskBody(job, ctx())).toEqual({
      model: "doubao-seedance-2-0-260128",
      content: [{ type: "text", text: "A fox in the snow" }],
      resolution: "1080p",
      ratio: "9:16",
      duration: 8,
      seed: 7,
      watermark: false,
      generate_audio: true,
    });
  });

  it("image to video: the opening image as first_frame, the ratio adaptive (the card has no aspect control)", async () => {
    const job = videoJob("image_to_video", "", { generate_audio: false, return_last_frame: true }, [
      input("image", "image", "img"),
    ]);
    const b = await taskBody(job, ctx());
    expect(b.content).toEqual([
      { type: "image_url", image_url: { url: "https://gateway.test/inputs/img?expires=9999999999&sig=ab" }, role: "first_frame" },
    ]);
    expect(b).toMatchObject({ ratio: "adaptive", generate_audio: false, return_last_frame: true });
  });

  it("frames to video: first_frame then last_frame, whatever the input order", async () => {
    const job = videoJob("frames_to_video", "bloom", {}, [input("last_frame", "image", "b"), input("first_frame", "image", "a")]);
    const content = (await taskBody(job, ctx())).content as any[];
    expect(content.map((c) => [c.type, c.role, c.image_url?.url.split("?")[0]])).toEqual([
      ["text", undefined, undefined],
      ["image_url", "first_frame", "https://gateway.test/inputs/a"],
      ["image_url", "last_frame", "https://gateway.test/inputs/b"],
    ]);
  });

  it("reference to video: every reference by its kind, in the client's order, web search as a tool", async () => {
    const job = videoJob("reference_to_video", "Refer to <Image 1>", { web_search: true }, [
      input("references", "image", "i1", "subject"),
      input("references", "video", "v1", "motion"),
      input("references", "audio", "a1", "music"),
      input("references", "image", "i2", "style"),
    ]);
    const b = await taskBody(job, ctx());
    expect((b.content as any[]).slice(1).map((c) => [c.type, c.role])).toEqual([
      ["image_url", "reference_image"],
      ["video_url", "reference_video"],
      ["audio_url", "reference_audio"],
      ["image_url", "reference_image"],
    ]);
    expect(b.tools).toEqual([{ type: "web_search" }]);
    expect(b.ratio).toBe("16:9");
  });

  it("video extend: the source is <Video 1>, the prompt says which way", async () => {
    const job = videoJob("video_extend", "the fox runs off", { direction: "after", duration: 13, source_duration: 5.04 }, [
      input("references", "video", "ref"),
      input("video", "video", "src"),
    ]);
    const b = await taskBody(job, ctx());
    const content = b.content as any[];
    expect(content[0]).toEqual({ type: "text", text: "Extend <Video 1> forward: the fox runs off" });
    // The card's duration is the final length; Ark is asked for the continuation only.
    expect(b).toMatchObject({ duration: 8, ratio: "adaptive" });
    expect(content.slice(1).map((c) => c.video_url.url.split("?")[0])).toEqual([
      "https://gateway.test/inputs/src",
      "https://gateway.test/inputs/ref",
    ]);
    expect(extensionPrompt("", "before")).toBe("Extend <Video 1> backward, generating what happens before it.");
  });
});

describe("image request mapping", () => {
  it("one image: exact size, single mode, URLs for outputs, no watermark", () => {
    const job = imageJob("text_to_image", "A lighthouse", { seed: 3, dimensions: { width: 2560, height: 1440 } });
    expect(imageBody(job, [])).toEqual({
      model: "seedream-4-5-251128",
      prompt: "A lighthouse",
      size: "2560x1440",
      sequential_image_generation: "disabled",
      response_format: "url",
      stream: false,
      watermark: false,
      seed: 3,
    });
  });

  it("a set: auto mode capped at the count, the count asked for in the prompt; references as a list", () => {
    const job = imageJob("image_to_image", "Four seasons", { count: 4, output_relationship: "sequence" });
    const b = imageBody(job, ["https://gateway.test/inputs/1", "https://gateway.test/inputs/2"]);
    expect(b).toMatchObject({
      prompt: "Four seasons\n\nGenerate a set of 4 images.",
      sequential_image_generation: "auto",
      sequential_image_generation_options: { max_images: 4 },
      image: ["https://gateway.test/inputs/1", "https://gateway.test/inputs/2"],
    });
    expect(imageBody(imageJob("image_edit", "x"), ["https://gateway.test/inputs/1"]).image).toBe("https://gateway.test/inputs/1");
  });

  it("refuses independent counts above one (Seedream makes one image per independent request)", () => {
    expect(() => imageBody(imageJob("text_to_image", "x", { count: 2 }), [])).toThrow(ProviderError);
  });

  it("reads answers: images in order, filtered entries left out and counted, failures decided before download", () => {
    const answer = (data: unknown[]) =>
      new TextEncoder().encode(JSON.stringify({ model: "m", created: 1, data, usage: { output_tokens: 32768 } }));
    const blocked = { error: { code: "OutputImageSensitiveContentDetected", message: "sensitive" } };
    const mixed = answer([{ url: "https://tos.example/1.jpeg", size: "2048x2048" }, blocked]);
    expect(verdictOf(bpConfig, mixed)).toBeUndefined();
    const result = imageResult(bpConfig, mixed);
    expect(result.outputs).toEqual([{ kind: "image", url: "https://tos.example/1.jpeg", index: 0 }]);
    expect(result.usage).toEqual({ output_tokens: 32768 });
    expect(result.metadata).toMatchObject({ failed_images: ["content_filtered"], sizes: ["2048x2048"] });
    expect(verdictOf(bpConfig, answer([blocked, blocked]))).toMatchObject({ outcome: "content_filtered" });
    expect(verdictOf(bpConfig, answer([{ error: { code: "InternalServiceError", message: "x" } }]))).toMatchObject({
      outcome: "model_request_failed",
    });
    expect(verdictOf(bpConfig, new TextEncoder().encode("<html>"))).toBeUndefined();
    expect(() => imageResult(bpConfig, new TextEncoder().encode("<html>"))).toThrow(/not JSON/);
    expect(() => imageResult(bpConfig, answer([]))).toThrow(/no image/);
  });
});

describe("a Seedance task against the fake", () => {
  async function drive(handle: ProviderHandle, job: JobFor<VideoCapability>) {
    const states: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await volcengine.poll(handle, job, ctx());
      states.push(r.state);
      if (r.state === "succeeded" || r.state === "failed") return { states, last: r };
    }
    return { states, last: null };
  }

  it("submits once with the key, is queued, runs, succeeds, and yields its video", async () => {
    const t = tag("life");
    const job = videoJob("image_to_video", `A lighthouse #tag:${t}`, { return_last_frame: true }, [input("image", "image")]);
    const handle = await volcengine.submit(job, ctx());
    expect(handle.job_id).toMatch(/^cgt-/);
    const { states } = await drive(handle, job);
    expect(states).toEqual(["queued", "running", "succeeded"]);
    const result = await volcengine.fetchResult(handle, job, ctx());
    expect(result.outputs.map((o) => o.kind)).toEqual(["video", "image"]);
    expect(result.usage.output_tokens).toBeGreaterThan(0);
    const recorded = await requests(volcConfig, t);
    const submits = recorded.filter((r) => r.kind === "submit");
    expect(submits).toHaveLength(1);
    expect(submits[0]?.authorization).toBe(`Bearer ${fakeKey("volcengine")}`);
    expect(submits[0]?.body).toMatchObject({ model: "doubao-seedance-2-0-260128", ratio: "adaptive", return_last_frame: true });
  });

  it("every video capability's body passes Ark's documented checks (roles, exclusive modes, ranges)", async () => {
    const jobs = [
      videoJob("text_to_video", `t #tag:${tag("caps")}`),
      videoJob("image_to_video", `i #tag:${tag("caps")}`, {}, [input("image", "image")]),
      videoJob("frames_to_video", `f #tag:${tag("caps")}`, {}, [input("first_frame", "image"), input("last_frame", "image")]),
      videoJob("reference_to_video", `r #tag:${tag("caps")}`, {}, [
        input("references", "image"),
        input("references", "video"),
        input("references", "audio"),
      ]),
      videoJob("video_extend", `e #tag:${tag("caps")}`, { direction: "after", duration: 15, source_duration: 5 }, [
        input("video", "video"),
        input("references", "image"),
      ]),
    ];
    for (const job of jobs)
      await expect(volcengine.submit(job, ctx()), job.capability).resolves.toMatchObject({ job_id: /^cgt-/ });
  });

  it("a filtered output fails content_filtered; a refused prompt is refused at submission, never retried", async () => {
    const t = tag("out");
    const job = videoJob("text_to_video", `x #tag:${t} #fake:safety_output`);
    const { last } = await drive(await volcengine.submit(job, ctx()), job);
    expect(last).toMatchObject({ state: "failed", error: { code: "content_filtered" } });
    const e = await rejection(volcengine.submit(videoJob("text_to_video", `x #tag:${tag("in")} #fake:safety_input`), ctx()));
    expect(e).toMatchObject({ code: "safety_rejected", retryable: false, accepted: "no" });
    expect(e.message).not.toContain(fakeKey("volcengine"));
  });

  it("a throttled submission carries Retry-After and was not accepted", async () => {
    const e = await rejection(volcengine.submit(videoJob("text_to_video", `x #tag:${tag("429")} #fake:submit_429`), ctx()));
    expect(e).toMatchObject({ code: "model_rate_limited", retryable: true, accepted: "no", retryAfterMs: 1000 });
    expect(e.message).toContain("RateLimitExceeded.EndpointRPMExceeded");
  });

  it("a task Ark no longer has fails instead of being polled forever", async () => {
    const job = videoJob("text_to_video", "x");
    const r = await volcengine.poll(
      { job_id: "cgt-20260101000000-gone0", submitted_at: Date.now(), data: { kind: "task" } },
      job,
      ctx(),
    );
    expect(r).toMatchObject({ state: "failed", error: { code: "model_request_failed" } });
  });
});

describe("cancel rules", () => {
  it("a queued task is cancelled with DELETE", async () => {
    const t = tag("cancel-queued");
    const job = videoJob("text_to_video", `x #tag:${t} #fake:slow`);
    const handle = await volcengine.submit(job, ctx());
    expect((await volcengine.poll(handle, job, ctx())).state).toBe("queued");
    expect(await volcengine.cancel(handle, job, ctx())).toBe("canceled");
    const recorded = await requests(volcConfig, t);
    expect(recorded.filter((r) => r.kind === "cancel").map((r) => r.method)).toEqual(["DELETE"]);
    expect(await volcengine.poll(handle, job, ctx())).toMatchObject({ state: "failed" });
  });

  it("a running task is not cancelable, and no DELETE is sent", async () => {
    const t = tag("cancel-running");
    const job = videoJob("text_to_video", `x #tag:${t}`);
    const handle = await volcengine.submit(job, ctx());
    await volcengine.poll(handle, job, ctx()); // queued
    // The cancel's own read moves the fake to running.
    expect(await volcengine.cancel(handle, job, ctx())).toBe("not_cancelable");
    expect((await requests(volcConfig, t)).filter((r) => r.kind === "cancel")).toEqual([]);
  });

  it("a finished task is never deleted (DELETE would remove its record and output)", async () => {
    const t = tag("cancel-done");
    const job = videoJob("text_to_video", `x #tag:${t}`);
    const handle = await volcengine.submit(job, ctx());
    for (let i = 0; i < 3; i++) await volcengine.poll(handle, job, ctx());
    expect(await volcengine.cancel(handle, job, ctx())).toBe("not_cancelable");
    expect((await requests(volcConfig, t)).filter((r) => r.kind === "cancel")).toEqual([]);
    expect((await volcengine.fetchResult(handle, job, ctx())).outputs).toHaveLength(1);
  });

  it("a synchronous image call has nothing to cancel", async () => {
    const job = imageJob("text_to_image", "x");
    expect(
      await byteplus.cancel({ job_id: "i", submitted_at: 0, data: { kind: "images", staging_key: "k" } }, job, ctx(bpConfig)),
    ).toBe("not_cancelable");
  });
});

describe("a Seedream call against the fake", () => {
  it("calls once, keeps the answer, succeeds, and serves its URLs; a repeat or reconcile reuses the kept answer", async () => {
    const t = tag("img");
    const job = imageJob("image_edit", `Make it night #tag:${t}`, {}, [input("images", "image", "base")], "seedream-4.0");
    const handle = await byteplus.submit(job, ctx(bpConfig));
    expect(handle.data).toMatchObject({ kind: "images" });
    expect(await byteplus.poll(handle, job, ctx(bpConfig))).toEqual({ state: "succeeded" });
    const result = await byteplus.fetchResult(handle, job, ctx(bpConfig));
    expect(result.outputs).toHaveLength(1);
    expect(result.outputs[0]).toMatchObject({ kind: "image" });
    const again = await byteplus.submit(job, ctx(bpConfig));
    expect(again.data?.staging_key).toBe(handle.data?.staging_key);
    expect((await byteplus.reconcile!(job, ctx(bpConfig), 0))?.data?.staging_key).toBe(handle.data?.staging_key);
    // Another platform's adapter does not adopt it.
    expect(await volcengine.reconcile!(job, ctx(), 0)).toBeNull();
    const submits = (await requests(bpConfig, t)).filter((r) => r.kind === "submit");
    expect(submits).toHaveLength(1);
    expect(submits[0]?.body).toMatchObject({
      model: "seedream-4-0-250828",
      size: "2048x2048",
      image: "https://gateway.test/inputs/base?expires=9999999999&sig=ab",
      watermark: false,
      response_format: "url",
    });
  });

  it("a single filtered output is refused at submission (content_filtered); a filtered set fails at poll", async () => {
    const single = await rejection(
      byteplus.submit(imageJob("text_to_image", `x #tag:${tag("f1")} #fake:safety_output`), ctx(bpConfig)),
    );
    expect(single).toMatchObject({ code: "content_filtered", retryable: false });
    const job = imageJob("text_to_image", `x #tag:${tag("f2")} #fake:safety_output`, {
      count: 2,
      output_relationship: "sequence",
    });
    const handle = await byteplus.submit(job, ctx(bpConfig));
    expect(await byteplus.poll(handle, job, ctx(bpConfig))).toMatchObject({
      state: "failed",
      error: { code: "content_filtered" },
    });
  });

  it("a video task is never reconciled (Ark echoes no tag of ours)", async () => {
    expect(await volcengine.reconcile!(videoJob("text_to_video", "x"), ctx(), 0)).toBeNull();
  });
});
