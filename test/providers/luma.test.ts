/**
 * The Luma adapter on its own: the body each capability sends, the state table, the reading of
 * Luma's error answers, and a generation's life against the fake Agents API
 * (test/providers/fakes/luma.ts, at env.PROVIDER_LUMA_BASE_URL).
 */

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildCatalog } from "../../src/catalog/build";
import type { ProviderContext } from "../../src/providers/adapter";
import type { JobFor, JobInput, VideoCapability, VideoRequest } from "../../src/providers/jobs";
import { describeLuma, LUMA_BASE_URL } from "../../src/providers/luma/client";
import { generationBody } from "../../src/providers/luma/generations";
import { lumaAdapter } from "../../src/providers/luma/index";
import { pollResult } from "../../src/providers/luma/status";
import { ProviderError } from "../../src/providers/types";
import type { Recorded } from "./fakes/kit";
import { recorded, signedUrl, unitConfig, unitContext, unitJob, videoRequest } from "./unit";

const config = () => unitConfig("luma", LUMA_BASE_URL);

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let n = 0;
const tag = (name: string) => `luma-unit-${name}-${run}-${++n}`;
const signed = signedUrl;

const context = (over: Partial<ProviderContext> = {}) => unitContext(config(), over);

const image = (field: string, key = `k-${field}`): JobInput => ({
  field,
  key,
  kind: "image",
  mime: "image/png",
  width: 512,
  height: 512,
});

function job<C extends VideoCapability>(capability: C, request: Partial<VideoRequest> = {}, inputs: JobInput[] = []): JobFor<C> {
  return unitJob({
    capability,
    model: "luma-ray-3.2",
    upstream_model: "ray-3.2",
    inputs,
    request: videoRequest("A lighthouse at dawn", request) as JobFor<C>["request"],
  });
}

describe("request bodies", () => {
  it("text-to-video: model, type, aspect and the video options", async () => {
    const body = await generationBody(job("text_to_video", { duration: 10, seed: 7 }), context());
    expect(body).toEqual({
      model: "ray-3.2",
      type: "video",
      prompt: "A lighthouse at dawn",
      aspect_ratio: "16:9",
      video: { resolution: "720p", duration: "10s" },
    });
  });

  it("refuses a duration Ray 3.2 does not make", async () => {
    await expect(generationBody(job("text_to_video", { duration: 7 }), context())).rejects.toMatchObject({
      code: "invalid_request",
      accepted: "no",
    });
  });

  it("image-to-video: the image as a signed start_frame URL, 5 s, no aspect", async () => {
    const body = await generationBody(job("image_to_video", {}, [image("image", "in-1")]), context());
    expect(body.aspect_ratio).toBeUndefined();
    expect(body.video).toEqual({ resolution: "720p", duration: "5s", start_frame: { url: signed(image("image", "in-1")) } });
  });

  it("frames-to-video: first and last frames", async () => {
    const body = await generationBody(job("frames_to_video", {}, [image("first_frame"), image("last_frame")]), context());
    const video = body.video as Record<string, any>;
    expect(video.start_frame.url).toContain("/inputs/k-first_frame");
    expect(video.end_frame.url).toContain("/inputs/k-last_frame");
    expect(video.duration).toBe("5s");
  });

  it("extension: refused before anything is sent while the source carries no Luma generation id", async () => {
    const source: JobInput = { field: "video", key: "v", kind: "video", mime: "video/mp4", duration_seconds: 5 };
    const e = await generationBody(job("video_extend", { direction: "after", duration: 10 }, [source]), context()).catch(
      (x) => x,
    );
    expect(e).toBeInstanceOf(ProviderError);
    expect(e).toMatchObject({ code: "invalid_media", accepted: "no", retryable: false });
  });

  it("extension: names the Luma generation that made the source, forward or backward", async () => {
    const source: JobInput = {
      field: "video",
      key: "v",
      kind: "video",
      mime: "video/mp4",
      duration_seconds: 5,
      origin: { provider: "luma", job_id: "gen-123" },
    };
    const after = await generationBody(job("video_extend", { direction: "after", duration: 10 }, [source]), context());
    expect((after.video as Record<string, any>).start_frame).toEqual({ generation_id: "gen-123" });
    const before = await generationBody(job("video_extend", { direction: "before", duration: 10 }, [source]), context());
    expect((before.video as Record<string, any>).end_frame).toEqual({ generation_id: "gen-123" });
    const elsewhere = { ...source, origin: { provider: "fal", job_id: "x" } };
    await expect(generationBody(job("video_extend", { duration: 10 }, [elsewhere]), context())).rejects.toMatchObject({
      code: "invalid_media",
    });
  });
});

describe("states", () => {
  const c = () => config();
  const at = Date.now();
  it("maps every documented state", () => {
    expect(pollResult(c(), { id: "g", state: "queued" }, at + 10_000, at)).toMatchObject({ state: "queued" });
    const running = pollResult(c(), { id: "g", state: "processing" }, at + 30_000, at);
    expect(running.state).toBe("running");
    if (running.state === "running") expect(running.progress.percent).toBeGreaterThan(10);
    expect(pollResult(c(), { id: "g", state: "completed", output: [{ type: "video", url: "https://x/v.mp4" }] }, at, at)).toEqual(
      {
        state: "succeeded",
      },
    );
  });

  it("a completed generation without a video is malformed", () => {
    expect(() => pollResult(c(), { id: "g", state: "completed", output: [] }, at, at)).toThrow(ProviderError);
  });

  it("an unlisted state is still running, never success", () => {
    expect(pollResult(c(), { id: "g", state: "dreaming" }, at, at)).toMatchObject({ state: "running" });
  });

  it.each([
    ["content_moderated", "Prompt violated content guidelines.", "safety_rejected"],
    ["content_moderated", "The generated output was blocked.", "content_filtered"],
    ["budget_exhausted", "", "model_unavailable"],
    ["corrupt_input", "", "invalid_media"],
    ["invalid_request", "", "invalid_request"],
    ["generation_failed", "boom", "model_request_failed"],
    ["something_new", "", "model_request_failed"],
  ])("failure_code %s (%s) → %s", (failure_code, failure_reason, code) => {
    const r = pollResult(c(), { id: "g", state: "failed", failure_code, failure_reason }, at, at);
    expect(r).toMatchObject({ state: "failed", error: { code } });
  });

  it("keeps the wording but never the key or a URL", () => {
    const key = config().apiKey;
    const r = pollResult(
      c(),
      {
        id: "g",
        state: "failed",
        failure_code: "corrupt_input",
        failure_reason: `bad https://gateway.test/inputs/a?sig=1 ${key}`,
      },
      at,
      at,
    );
    if (r.state !== "failed") throw new Error("expected failed");
    expect(r.error.message).toContain("bad [url]");
    expect(r.error.message).not.toContain(key);
  });
});

describe("error answers", () => {
  it("reads detail and recognises refusals", () => {
    expect(describeLuma(400, JSON.stringify({ detail: "prompt must be 1-6000 characters" }))).toEqual({
      message: "prompt must be 1-6000 characters",
    });
    expect(describeLuma(400, JSON.stringify({ detail: "Prompt flagged by content moderation" })).code).toBe("safety_rejected");
    expect(describeLuma(402, JSON.stringify({ detail: "Insufficient balance" }))).toMatchObject({
      code: "model_unavailable",
      retryable: true,
    });
    expect(describeLuma(422, JSON.stringify({ detail: [{ msg: "a" }, { msg: "b" }] })).message).toBe("a; b");
  });
});

describe("against the fake Agents API", () => {
  it("submits, polls through queued and processing, and reads a fresh video URL", async () => {
    const t = tag("life");
    const j = job("text_to_video", { prompt: `A lighthouse #tag:${t}` });
    const handle = await lumaAdapter.submit(j, context());
    expect(handle.job_id).toMatch(/^[0-9a-f-]{36}$/);
    const states: string[] = [];
    for (let i = 0; i < 3; i++) states.push((await lumaAdapter.poll(handle, j, context())).state);
    expect(states).toEqual(["queued", "running", "succeeded"]);
    const result = await lumaAdapter.fetchResult(handle, j, context());
    expect(result.outputs).toHaveLength(1);
    expect(result.outputs[0]).toMatchObject({ kind: "video", index: 0 });
    const url = (result.outputs[0] as { url: string }).url;
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(new TextDecoder().decode((await res.arrayBuffer()).slice(4, 8))).toBe("ftyp");
    const records = await recorded(config().baseUrl, t);
    const submit = records.find((r) => r.kind === "submit") as Recorded<any>;
    expect(submit.authorization).toBe(`Bearer ${config().apiKey}`);
    expect(submit.body).toMatchObject({ model: "ray-3.2", type: "video" });
    expect(submit.body.callback_url).toBeUndefined();
  });

  it("a 429 is a retryable refusal with its Retry-After, not accepted", async () => {
    const e = await lumaAdapter
      .submit(job("text_to_video", { prompt: `x #tag:${tag("429")} #fake:submit_429` }), context())
      .catch((x) => x);
    expect(e).toMatchObject({ code: "model_rate_limited", retryable: true, retryAfterMs: 1000, accepted: "no" });
  });

  it("a moderated prompt fails safety_rejected on the first read", async () => {
    const j = job("text_to_video", { prompt: `x #tag:${tag("mod")} #fake:safety_input` });
    const handle = await lumaAdapter.submit(j, context());
    expect(await lumaAdapter.poll(handle, j, context())).toMatchObject({ state: "failed", error: { code: "safety_rejected" } });
  });

  it("Luma takes 540p, 720p and 1080p only, and the card offers no other resolution", async () => {
    const e = await lumaAdapter
      .submit(job("text_to_video", { prompt: `x #tag:${tag("360")}`, resolution: "360p" }), context())
      .catch((x) => x);
    expect(e).toBeInstanceOf(ProviderError);
    const bundle = buildCatalog(JSON.parse(env.TEST_CATALOG));
    for (const card of bundle.models["luma-ray-3.2"]?.interfaces ?? []) {
      const offered = card.controls.find((c) => c.field === "resolution")?.allowed_values;
      expect(offered, card.capability).toEqual(expect.arrayContaining(["540p", "720p", "1080p"]));
      expect(offered, card.capability).not.toContain("360p");
      expect(card.pricing.options.every((o) => o.dimensions.resolution !== "360p")).toBe(true);
    }
  });

  it("cancel is not offered", async () => {
    const j = job("text_to_video");
    expect(await lumaAdapter.cancel({ job_id: "g", submitted_at: 0 }, j, context())).toBe("not_cancelable");
  });
});
