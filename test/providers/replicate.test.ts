/**
 * The Replicate adapter on its own: status mapping, input mapping, error reading, webhook
 * signatures, and reconciliation and the whole job life against the fake Replicate
 * (test/providers/fakes/replicate.ts), whose URL and webhook secret the providers project binds.
 */
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { InterfaceFile } from "../../src/catalog/schema";
import type { ProviderContext } from "../../src/providers/adapter";
import { providerConfig } from "../../src/providers/config";
import type { ImageCapability, ImageRequest, JobFor, JobInput } from "../../src/providers/jobs";
import { replicateAdapter } from "../../src/providers/replicate";
import {
  describe as describeError,
  describeFor,
  REPLICATE_BASE_URL,
  safetyCode,
  throttleWaitMs,
} from "../../src/providers/replicate/client";
import { markerSeed, predictionInput, promptWithPalette } from "../../src/providers/replicate/inputs";
import { resultOf } from "../../src/providers/replicate/outputs";
import { createPrediction, type Prediction } from "../../src/providers/replicate/predictions";
import { sameInput } from "../../src/providers/replicate/reconcile";
import { logPercent, pollResult } from "../../src/providers/replicate/status";
import type { ProviderHandle } from "../../src/providers/types";
import type { Recorded } from "./fakes/kit";
import { imageRequest, recorded, rejection, unitJob } from "./unit";

const MODEL = "black-forest-labs/flux-2-pro";
const FLAGGED = "The input or output was flagged as sensitive. Please try again with different inputs. (E005)";
const NSFW = "NSFW content detected. Try running it again, or try a different prompt.";

const config = providerConfig(env, "replicate", REPLICATE_BASE_URL)!;
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let n = 0;
const tag = (name: string) => `${name}-${run}-${++n}`;

function ctx(over: Partial<ProviderContext> = {}): ProviderContext {
  return {
    env,
    now: Date.now(),
    config,
    inputs: {
      url: async (input: JobInput) =>
        `https://gateway.test/inputs/${encodeURIComponent(input.key)}?expires=9999999999&sig=${"ab".repeat(32)}`,
      bytes: async () => new Uint8Array(),
    },
    webhookUrl: null,
    ...over,
  };
}

function imageJob<C extends ImageCapability>(
  capability: C,
  prompt: string,
  request: Partial<ImageRequest> = {},
  inputs: JobInput[] = [],
): JobFor<C> {
  return unitJob({
    capability,
    model: "flux-2-pro",
    upstream_model: MODEL,
    card: { outputs: { format: "image/jpeg" } } as unknown as InterfaceFile,
    inputs,
    request: imageRequest(prompt, request) as JobFor<C>["request"],
  });
}

const pngInput = (key: string): JobInput => ({ field: "images", key, kind: "image", mime: "image/png", width: 512, height: 512 });

async function requests(t: string): Promise<Recorded<any>[]> {
  return recorded(config.baseUrl, t);
}

describe("status mapping", () => {
  const now = Date.parse("2026-01-01T00:01:00Z");
  const at = (s: number) => new Date(now - s * 1000).toISOString();
  const base = { id: "p1", created_at: at(30) };
  const rows: [string, Partial<Prediction>, string, string?][] = [
    ["starting", { status: "starting" }, "queued"],
    ["processing", { status: "processing", started_at: at(5) }, "running"],
    ["succeeded", { status: "succeeded", output: "https://replicate.delivery/x.jpg" }, "succeeded"],
    ["failed, plain", { status: "failed", started_at: at(5), error: "CUDA out of memory" }, "failed", "model_request_failed"],
    ["failed, E005", { status: "failed", started_at: at(5), error: FLAGGED }, "failed", "safety_rejected"],
    ["failed, E005 before start", { status: "failed", error: FLAGGED }, "failed", "safety_rejected"],
    ["failed, NSFW output", { status: "failed", started_at: at(5), error: NSFW }, "failed", "content_filtered"],
    ["failed, NSFW before start", { status: "failed", error: NSFW }, "failed", "safety_rejected"],
    ["failed, no error text", { status: "failed" }, "failed", "model_request_failed"],
    ["canceled", { status: "canceled" }, "failed", "model_request_failed"],
    ["aborted", { status: "aborted" }, "failed", "model_timeout"],
    ["unlisted status", { status: "booting" }, "running"],
  ];
  for (const [name, fields, state, code] of rows) {
    it(`${name} → ${state}${code ? ` (${code})` : ""}`, () => {
      const result = pollResult(config, { ...base, ...fields } as Prediction, now, now - 30_000);
      expect(result.state).toBe(state);
      if (code) expect(result.state === "failed" && result.error.code).toBe(code);
      if (result.state === "queued" || result.state === "running") {
        expect(result.progress.percent).toBeGreaterThanOrEqual(0);
        expect(result.progress.percent).toBeLessThanOrEqual(95);
      }
    });
  }

  it("progress moves: queued stays below running, running grows with time and with the logs", () => {
    const queued = pollResult(config, { ...base, status: "starting" } as Prediction, now, now);
    const early = pollResult(config, { ...base, status: "processing", started_at: at(1) } as Prediction, now, now);
    const later = pollResult(config, { ...base, status: "processing", started_at: at(20) } as Prediction, now, now);
    const logged = pollResult(
      config,
      { ...base, status: "processing", started_at: at(1), logs: "step\n 75%|███████▌  | 21/28" } as Prediction,
      now,
      now,
    );
    const pct = (r: typeof queued) => (r.state === "queued" || r.state === "running" ? r.progress.percent : -1);
    const unlisted = pollResult(config, { ...base, status: "booting" } as Prediction, now, now);
    expect(pct(queued)).toBeLessThan(10);
    // An unlisted status before the start does not run ahead of the queued curve.
    expect(pct(unlisted)).toBe(pct(queued));
    expect(pct(early)).toBeGreaterThanOrEqual(10);
    expect(pct(later)).toBeGreaterThan(pct(early));
    expect(pct(logged)).toBeGreaterThanOrEqual(73);
    expect(logPercent("Using seed: 42\n 30%|███ | 9/28\n 60%|██████ | 17/28")).toBe(60);
    expect(logPercent("Generating image...")).toBeNull();
  });

  it("keeps Replicate's wording but never a URL or the token", () => {
    const result = pollResult(
      config,
      {
        ...base,
        status: "failed",
        started_at: at(3),
        error: `could not fetch https://gateway.test/inputs/abc?expires=1&sig=deadbeef with Bearer ${config.apiKey}`,
      } as Prediction,
      now,
      now,
    );
    expect(result.state).toBe("failed");
    const message = result.state === "failed" ? result.error.message : "";
    expect(message).toContain("could not fetch");
    expect(message).not.toContain("sig=");
    expect(message).not.toContain("gateway.test");
    expect(message).not.toContain(config.apiKey);
  });
});

describe("input mapping", () => {
  it("maps a typed edit job to flux-2-pro's input: exact size, signed input URLs in order, seed, palette, format", async () => {
    const job = imageJob(
      "image_edit",
      "make it autumn",
      {
        dimensions: { width: 1344, height: 768 },
        seed: 7,
        palette: [
          { color: "#00ff00", weight: 0.2 },
          { color: "#ff0000", weight: 0.5 },
          { color: "#0000ff", weight: 0.3 },
        ],
        enhance_prompt: true,
      },
      [pngInput("inputs/t/base.png"), pngInput("inputs/t/ref.png")],
    );
    const input = await predictionInput(job, ctx());
    expect(input).toEqual({
      prompt: "make it autumn\n\nColour palette, most to least prominent: #FF0000, #0000FF, #00FF00.",
      aspect_ratio: "custom",
      width: 1344,
      height: 768,
      input_images: [
        `https://gateway.test/inputs/${encodeURIComponent("inputs/t/base.png")}?expires=9999999999&sig=${"ab".repeat(32)}`,
        `https://gateway.test/inputs/${encodeURIComponent("inputs/t/ref.png")}?expires=9999999999&sig=${"ab".repeat(32)}`,
      ],
      seed: 7,
      output_format: "jpg",
    });
  });

  it("sends no input_images for text-to-image, leaves the prompt alone without a palette, and seeds by the task", async () => {
    const job = imageJob("text_to_image", "a lighthouse");
    const input = await predictionInput(job, ctx());
    expect(input).toEqual({
      prompt: "a lighthouse",
      aspect_ratio: "custom",
      width: 1024,
      height: 1024,
      seed: markerSeed(job.task_id),
      output_format: "jpg",
    });
    expect(promptWithPalette("x", [])).toBe("x");
    // The task's own seed: stable for the task, different between tasks, a non-negative 31-bit integer.
    expect(markerSeed("task_a")).toBe(markerSeed("task_a"));
    expect(markerSeed("task_a")).not.toBe(markerSeed("task_b"));
    for (const id of ["task_a", "task_b", "x"]) {
      expect(Number.isInteger(markerSeed(id)) && markerSeed(id) >= 0 && markerSeed(id) < 2 ** 31).toBe(true);
    }
  });

  it("refuses sizes Replicate would not make exactly, before anything is sent", async () => {
    for (const dimensions of [
      { width: 128, height: 512 },
      { width: 4096, height: 1024 },
      { width: 1000, height: 1000 },
    ]) {
      const e = await rejection(predictionInput(imageJob("text_to_image", "x", { dimensions }), ctx()));
      expect(e.code).toBe("unsupported_option");
      expect(e.accepted).toBe("no");
    }
  });
});

describe("error bodies", () => {
  it("reads the 429 throttle body and its announced wait", () => {
    const said = describeError(429, '{"detail":"Request was throttled. Expected available in 1 second."}');
    expect(said.message).toBe("Request was throttled. Expected available in 1 second.");
    expect(said.code).toBeUndefined();
    expect(throttleWaitMs(said.message)).toBe(1000);
    expect(throttleWaitMs("Request was throttled. Your rate limit resets in ~30s.")).toBe(30_000);
    expect(throttleWaitMs("nothing here")).toBeUndefined();
  });

  it("reads problem+json, 422 invalid_fields, and route-level refusals", () => {
    expect(describeError(500, '{"title":"Internal Server Error","detail":"Try again.","status":500}').message).toBe(
      "Internal Server Error: Try again.",
    );
    const invalid = describeFor("create")(
      422,
      JSON.stringify({
        title: "Input validation failed",
        detail: "- input.input_images.0: could not download https://gateway.test/inputs/x?expires=1&sig=ab\n",
        status: 422,
        invalid_fields: [{ type: "format", field: "input.input_images.0", description: "could not download" }],
      }),
    );
    expect(invalid.code).toBeUndefined();
    expect(invalid.message).toContain("Input validation failed");
    expect(invalid.message).not.toContain("sig=");
    expect(describeFor("create")(404, '{"title":"Not found","detail":"Model not found","status":404}')).toMatchObject({
      code: "model_unavailable",
      retryable: true,
    });
    expect(describeError(404, '{"detail":"Not found."}').code).toBeUndefined();
    expect(describeError(402, '{"title":"Insufficient credit","detail":"You have insufficient credit.","status":402}').code).toBe(
      "model_unavailable",
    );
  });

  it("treats safety wording in a refusal as safety_rejected", () => {
    expect(describeFor("create")(422, JSON.stringify({ title: "Input flagged", detail: FLAGGED, status: 422 }))).toMatchObject({
      code: "safety_rejected",
      retryable: false,
    });
    expect(safetyCode(FLAGGED)).toBe("safety_rejected");
    expect(safetyCode(NSFW, true)).toBe("content_filtered");
    expect(safetyCode("input.safety_tolerance: Must be less than or equal to 5")).toBeNull();
  });
});

describe("webhooks", () => {
  const secret = env.PROVIDER_REPLICATE_WEBHOOK_SECRET!;
  const body = JSON.stringify({
    id: "ufawqhfynnddngldkgtslldrkq",
    status: "succeeded",
    output: "https://replicate.delivery/x.jpg",
  });

  function signed(payload: string, opts: { secret?: string; at?: Date; sentBody?: string } = {}) {
    const at = opts.at ?? new Date();
    const signature = new Webhook(opts.secret ?? secret).sign("msg_2K4", at, payload);
    const request = new Request("https://gateway.test/webhooks/providers/replicate/task_1", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": "msg_2K4",
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": signature,
      },
      body: opts.sentBody ?? payload,
    });
    return { request, bytes: new TextEncoder().encode(opts.sentBody ?? payload) };
  }

  it("accepts an authentic webhook and names the prediction", async () => {
    expect(secret.startsWith("whsec_")).toBe(true);
    const { request, bytes } = signed(body);
    expect(await replicateAdapter.verifyWebhook!(request, bytes, config)).toEqual({ job_id: "ufawqhfynnddngldkgtslldrkq" });
  });

  it("refuses a tampered body, another secret, a stale timestamp, missing headers and an unconfigured secret", async () => {
    const tampered = signed(body, { sentBody: body.replace("succeeded", "failed") });
    expect(await replicateAdapter.verifyWebhook!(tampered.request, tampered.bytes, config)).toBeNull();
    const other = signed(body, { secret: `whsec_${btoa("another-secret-thirty-two-bytes!")}` });
    expect(await replicateAdapter.verifyWebhook!(other.request, other.bytes, config)).toBeNull();
    const stale = signed(body, { at: new Date(Date.now() - 10 * 60_000) });
    expect(await replicateAdapter.verifyWebhook!(stale.request, stale.bytes, config)).toBeNull();
    const bare = new Request("https://gateway.test/webhooks/providers/replicate/task_1", { method: "POST", body });
    expect(await replicateAdapter.verifyWebhook!(bare, new TextEncoder().encode(body), config)).toBeNull();
    const fresh = signed(body);
    expect(await replicateAdapter.verifyWebhook!(fresh.request, fresh.bytes, { ...config, webhookSecret: undefined })).toBeNull();
  });
});

describe("against the fake Replicate", () => {
  it("runs a job: starting, processing with progress, succeeded, and a real PNG of the requested size", async () => {
    const t = tag("ok");
    const job = imageJob("text_to_image", `a lighthouse #tag:${t}`);
    const handle = await replicateAdapter.submit(job, ctx());
    const polls = [];
    for (let i = 0; i < 3; i++) polls.push(await replicateAdapter.poll(handle, job, ctx()));
    expect(polls.map((p) => p.state)).toEqual(["queued", "running", "succeeded"]);
    const [queued, running] = polls;
    expect(running?.state === "running" && queued?.state === "queued" && running.progress.percent > queued.progress.percent).toBe(
      true,
    );
    const result = await replicateAdapter.fetchResult(handle, job, ctx());
    expect(result.usage).toEqual({});
    expect(result.outputs).toHaveLength(1);
    const out = result.outputs[0]!;
    expect("url" in out).toBe(true);
    const res = await fetch((out as { url: string }).url);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const view = new DataView(bytes.buffer);
    expect([...bytes.subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
    expect([view.getUint32(16), view.getUint32(20)]).toEqual([1024, 1024]);

    const log = await requests(t);
    expect(log.map((r) => r.kind)).toEqual(["submit", "status", "status", "status", "result", "download"]);
    const submit = log[0]!;
    expect(submit.method).toBe("POST");
    expect(submit.path).toBe(`/models/black-forest-labs/flux-2-pro/predictions`);
    expect(submit.authorization).toBe(`Bearer ${config.apiKey}`);
    expect(submit.body).toEqual({
      input: {
        prompt: `a lighthouse #tag:${t}`,
        aspect_ratio: "custom",
        width: 1024,
        height: 1024,
        seed: markerSeed(job.task_id),
        output_format: "jpg",
      },
    });
  });

  it("answers with the documented prediction fields and asks for the completed webhook when there is a URL", async () => {
    const t = tag("hook");
    const webhookUrl = `https://gateway.test/webhooks/providers/replicate/task_${t}`;
    await replicateAdapter.submit(imageJob("text_to_image", `x #tag:${t}`), ctx({ webhookUrl }));
    const [submit] = await requests(t);
    expect(submit?.body.webhook).toBe(webhookUrl);
    expect(submit?.body.webhook_events_filter).toEqual(["completed"]);
    const p = await createPrediction(config, MODEL, { input: { prompt: `y #tag:${t}` }, webhook: webhookUrl });
    for (const field of [
      "id",
      "model",
      "version",
      "input",
      "output",
      "error",
      "logs",
      "status",
      "created_at",
      "started_at",
      "completed_at",
      "urls",
      "metrics",
    ]) {
      expect(p).toHaveProperty(field);
    }
    // Replicate's prediction object does not carry the webhook it was created with.
    expect(p).not.toHaveProperty("webhook");
    expect(p.status).toBe("starting");
    expect(p.urls?.get).toContain(`/predictions/${p.id}`);
  });

  it("sends the token only to Replicate's own host when reading outputs", () => {
    const own = resultOf({ id: "p", status: "succeeded", output: `${config.baseUrl}/files/x.png` }, config);
    const delivery = resultOf({ id: "p", status: "succeeded", output: ["https://replicate.delivery/a/out-0.jpg"] }, config);
    expect(own.outputs[0]).toMatchObject({ headers: { Authorization: `Bearer ${config.apiKey}` } });
    expect(delivery.outputs[0]).not.toHaveProperty("headers");
    expect(() => resultOf({ id: "p", status: "succeeded", output: null, data_removed: true }, config)).toThrow(/one hour/);
  });

  it("reports a first 429 with its Retry-After as retryable and not accepted, then submits", async () => {
    const t = tag("throttled");
    const job = imageJob("text_to_image", `x #tag:${t} #fake:submit_429`);
    const e = await rejection(replicateAdapter.submit(job, ctx()));
    expect(e).toMatchObject({
      code: "model_rate_limited",
      retryable: true,
      retryAfterMs: 1000,
      accepted: "no",
      upstreamStatus: 429,
    });
    expect(e.message).toContain("Request was throttled");
    expect((await replicateAdapter.submit(job, ctx())).job_id).toMatch(/^[a-z0-9]+$/);
  });

  it("reports a 5xx as retryable and not accepted, and a route that is down as unavailable", async () => {
    const t = tag("fivexx");
    const job = imageJob("text_to_image", `x #tag:${t} #fake:submit_5xx`);
    expect(await rejection(replicateAdapter.submit(job, ctx()))).toMatchObject({
      code: "model_request_failed",
      retryable: true,
      accepted: "no",
      upstreamStatus: 500,
    });
    expect((await replicateAdapter.submit(job, ctx())).job_id).toBeTruthy();
    const down = await rejection(replicateAdapter.submit(imageJob("text_to_image", `x #tag:${tag("down")} #fake:down`), ctx()));
    expect(down).toMatchObject({ code: "model_unavailable", retryable: true, accepted: "no", upstreamStatus: 503 });
  });

  it("does not leak the token when the credential is refused", async () => {
    const wrong = { ...config, apiKey: "r8_wrongwrongwrongwrong0123" };
    const e = await rejection(
      replicateAdapter.submit(imageJob("text_to_image", `x #tag:${tag("auth")}`), ctx({ config: wrong })),
    );
    expect(e).toMatchObject({ code: "model_unavailable", accepted: "no", upstreamStatus: 401 });
    expect(e.message).toContain("Unauthenticated");
    expect(e.message).not.toContain("wrongwrong");
  });

  it("maps a flagged input to safety_rejected and an NSFW output to content_filtered", async () => {
    const input = imageJob("text_to_image", `x #tag:${tag("safe-in")} #fake:safety_input`);
    const inHandle = await replicateAdapter.submit(input, ctx());
    expect(await replicateAdapter.poll(inHandle, input, ctx())).toMatchObject({
      state: "failed",
      error: { code: "safety_rejected" },
    });

    const output = imageJob("text_to_image", `x #tag:${tag("safe-out")} #fake:safety_output`);
    const outHandle = await replicateAdapter.submit(output, ctx());
    let last = await replicateAdapter.poll(outHandle, output, ctx());
    for (let i = 0; i < 3 && last.state !== "failed"; i++) last = await replicateAdapter.poll(outHandle, output, ctx());
    expect(last).toMatchObject({ state: "failed", error: { code: "content_filtered" } });
  });

  it("keeps an unlisted status running, then goes on", async () => {
    const job = imageJob("text_to_image", `x #tag:${tag("unknown")} #fake:unknown_status`);
    const handle = await replicateAdapter.submit(job, ctx());
    const states = [];
    for (let i = 0; i < 5; i++) states.push((await replicateAdapter.poll(handle, job, ctx())).state);
    expect(states).toEqual(["running", "running", "queued", "running", "succeeded"]);
  });

  it("throws a retryable error on malformed status answers", async () => {
    const job = imageJob("text_to_image", `x #tag:${tag("malformed")} #fake:malformed`);
    const handle = await replicateAdapter.submit(job, ctx());
    for (let i = 0; i < 2; i++) {
      expect(await rejection(replicateAdapter.poll(handle, job, ctx()))).toMatchObject({
        code: "model_request_failed",
        retryable: true,
      });
    }
  });

  it("cancels a running prediction, and says not_cancelable once it has finished", async () => {
    const slow = imageJob("text_to_image", `x #tag:${tag("slow")} #fake:slow`);
    const handle = await replicateAdapter.submit(slow, ctx());
    expect((await replicateAdapter.poll(handle, slow, ctx())).state).toBe("queued");
    expect(await replicateAdapter.cancel(handle, slow, ctx())).toBe("canceled");
    expect(await replicateAdapter.poll(handle, slow, ctx())).toMatchObject({
      state: "failed",
      error: { code: "model_request_failed" },
    });

    const quick = imageJob("text_to_image", `x #tag:${tag("done")}`);
    const done = await replicateAdapter.submit(quick, ctx());
    for (let i = 0; i < 3; i++) await replicateAdapter.poll(done, quick, ctx());
    expect(await replicateAdapter.cancel(done, quick, ctx())).toBe("not_cancelable");
    expect(await replicateAdapter.cancel({ job_id: "doesnotexist", submitted_at: 0 } as ProviderHandle, quick, ctx())).toBe(
      "not_cancelable",
    );
  });
});

describe("reconcile", () => {
  it("finds the task's prediction by model, creation time and input, following the list's cursor pages", async () => {
    const since = Date.now() - 1000;
    const target = tag("rec-target");
    const filler = tag("rec-filler");
    const job = imageJob("text_to_image", `a harbour #tag:${target}`);
    const c = ctx({ webhookUrl: `https://gateway.test/webhooks/providers/replicate/${job.task_id}` });
    // The task's submission went out; its answer was lost.
    const created = await createPrediction(config, MODEL, { input: await predictionInput(job, c) });
    // The same prompt from another task (its own seed), and more than a page (100) of newer predictions.
    const other = imageJob("text_to_image", `a harbour #tag:${target}`);
    await createPrediction(config, MODEL, { input: await predictionInput(other, c) });
    for (let i = 0; i < 101; i++) await createPrediction(config, MODEL, { input: { prompt: `y #tag:${filler}` } });
    const handle = await replicateAdapter.reconcile!(job, c, since);
    expect(handle).toMatchObject({ job_id: created.id, data: { model: MODEL } });
    const lists = (await requests(target)).filter((r) => r.kind === "list");
    expect(lists).toHaveLength(1);
    expect(lists[0]!.path).toContain("cursor=");
    expect(lists[0]!.path).toContain("created_after=");
    expect((await requests(filler)).some((r) => r.kind === "list")).toBe(true);
  });

  it("matches input images by their stored input, whatever their signature; a webhook URL is not needed", async () => {
    const since = Date.now() - 1000;
    const t = tag("rec-images");
    const job = imageJob("image_edit", `autumn #tag:${t}`, { seed: 11 }, [pngInput(`inputs/${t}/a.png`)]);
    const signedAt = (sig: string) =>
      ctx({
        inputs: {
          url: async (i) => `https://gateway.test/inputs/${encodeURIComponent(i.key)}?expires=1&sig=${sig}`,
          bytes: async () => new Uint8Array(),
        },
      });
    const created = await createPrediction(config, MODEL, { input: await predictionInput(job, signedAt("aa")) });
    expect(await replicateAdapter.reconcile!(job, signedAt("bb"), since)).toMatchObject({ job_id: created.id });
    // Another stored image is another request.
    const elsewhere = imageJob("image_edit", `autumn #tag:${t}`, { seed: 11 }, [pngInput(`inputs/${t}/b.png`)]);
    expect(await replicateAdapter.reconcile!(elsewhere, signedAt("bb"), since)).toBeNull();
  });

  it("answers null when nothing was created, or only before the window", async () => {
    const job = imageJob("text_to_image", `lost #tag:${tag("rec-none")}`);
    expect(await replicateAdapter.reconcile!(job, ctx(), Date.now())).toBeNull();
    const early = imageJob("text_to_image", `early #tag:${tag("rec-early")}`);
    await createPrediction(config, MODEL, { input: await predictionInput(early, ctx()) });
    expect(await replicateAdapter.reconcile!(early, ctx(), Date.now() + 10 * 60_000)).toBeNull();
  });

  it("compares inputs field by field: every sent field with its value; URLs without their query", () => {
    const ours = { prompt: "p", seed: 3, input_images: ["https://g.test/inputs/k?expires=1&sig=a"] };
    expect(sameInput({ ...ours, input_images: ["https://g.test/inputs/k?expires=2&sig=b"], safety_tolerance: 2 }, ours)).toBe(
      true,
    );
    expect(sameInput({ ...ours, seed: 4 }, ours)).toBe(false);
    expect(sameInput({ ...ours, input_images: ["https://g.test/inputs/other?expires=1&sig=a"] }, ours)).toBe(false);
    expect(sameInput({ prompt: "p", seed: 3 }, ours)).toBe(false);
    expect(sameInput(null, ours)).toBe(false);
  });
});
