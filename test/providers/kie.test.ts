/**
 * The Kie (Suno relay) adapter on its own: the generate body in simple and custom mode, the
 * reading of Kie's failure codes (HTTP status or a code in a 200 body), the status table, and a
 * task's life against the fake Kie (test/providers/fakes/kie.ts, at env.PROVIDER_KIE_BASE_URL).
 */

import { describe, expect, it } from "vitest";
import type { ProviderContext } from "../../src/providers/adapter";
import type { JobFor, MusicRequest } from "../../src/providers/jobs";
import { describeKie, KIE_BASE_URL, mapKieCode } from "../../src/providers/kie/client";
import { kieAdapter } from "../../src/providers/kie/index";
import { INERT_CALLBACK_URL, sunoBody } from "../../src/providers/kie/request";
import { pollResultOf, resultOf } from "../../src/providers/kie/status";
import type { ProviderHandle } from "../../src/providers/types";
import type { Recorded } from "./fakes/kit";
import { recorded, rejection, unitConfig, unitContext, unitJob } from "./unit";

const config = () => unitConfig("kie", KIE_BASE_URL);

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let n = 0;
const tag = (name: string) => `kie-unit-${name}-${run}-${++n}`;

const none = async (): Promise<never> => {
  throw new Error("no inputs");
};
const context = (over: Partial<ProviderContext> = {}) => unitContext(config(), { inputs: { url: none, bytes: none }, ...over });

function musicJob(request: Partial<MusicRequest> = {}, upstream_model = "V5"): JobFor<"text_to_music"> {
  return unitJob({
    capability: "text_to_music",
    model: "suno-v5",
    upstream_model,
    request: { prompt: "dreamy synth pop", instrumental: false, tracks: 2, format: "audio/mpeg", ...request },
  });
}

const custom = (extra: Record<string, unknown> = {}) => ({ family_a: { custom_mode: true, ...extra } });

async function requests(t: string): Promise<Recorded<any>[]> {
  return recorded(config().baseUrl, t);
}

describe("generate body", () => {
  it("simple mode sends the prompt alone, with the required callBackUrl", () => {
    const body = sunoBody(musicJob({ title: "ignored" }), context());
    expect(body).toEqual({
      customMode: false,
      instrumental: false,
      model: "V5",
      callBackUrl: INERT_CALLBACK_URL,
      prompt: "dreamy synth pop",
    });
  });

  it("custom mode: prompt → style, lyrics → prompt, title and vocal gender kept", () => {
    const body = sunoBody(
      musicJob({
        lyrics: "[Verse] la la",
        title: "Night Drive",
        model_options: custom({ vocal_gender: "f", negative_tags: "metal", style_weight: 0.654, audio_weight: 0 }),
      }),
      context(),
    );
    expect(body).toMatchObject({
      customMode: true,
      style: "dreamy synth pop",
      prompt: "[Verse] la la",
      title: "Night Drive",
      vocalGender: "f",
      negativeTags: "metal",
      styleWeight: 0.65,
      audioWeight: 0,
    });
    expect(body).not.toHaveProperty("weirdnessConstraint");
  });

  it("custom instrumental needs no lyrics and gets a title when none is given", () => {
    const body = sunoBody(musicJob({ instrumental: true, model_options: custom() }), context());
    expect(body).toMatchObject({ customMode: true, instrumental: true, style: "dreamy synth pop", title: "Untitled" });
    expect(body).not.toHaveProperty("prompt");
  });

  it("refuses what Kie cannot make, before sending anything", () => {
    expect(() => sunoBody(musicJob({ model_options: custom() }), context())).toThrow(/needs lyrics/);
    expect(() => sunoBody(musicJob({ lyrics: "words" }), context())).toThrow(/custom mode/);
    expect(() => sunoBody(musicJob({ tracks: 1 }), context())).toThrow(/2 tracks/);
    expect(() => sunoBody(musicJob({}, "../v1"), context())).toThrow(/not a Suno model/);
  });

  it("uses the webhook URL, else the operator's callback URL", () => {
    expect(sunoBody(musicJob(), context({ webhookUrl: "https://gw.test/webhooks/providers/kie/t1" })).callBackUrl).toBe(
      "https://gw.test/webhooks/providers/kie/t1",
    );
    const c = { ...config(), extra: { ...config().extra, callback_url: "https://ops.test/kie" } };
    expect(sunoBody(musicJob(), context({ config: c })).callBackUrl).toBe("https://ops.test/kie");
  });
});

describe("failure codes", () => {
  it("maps Kie's documented codes", () => {
    expect(mapKieCode(402, "Insufficient credits")).toEqual({ code: "model_unavailable", retryable: true });
    expect(mapKieCode(429, "Rate limited")).toEqual({ code: "model_rate_limited", retryable: true });
    expect(mapKieCode(429, "Insufficient credits")).toEqual({ code: "model_unavailable", retryable: true });
    expect(mapKieCode(430, "too frequent")).toEqual({ code: "model_rate_limited", retryable: true });
    expect(mapKieCode(455, "System maintenance")).toEqual({ code: "model_unavailable", retryable: true });
    expect(mapKieCode(400, "The prompt contains sensitive words")).toEqual({ code: "safety_rejected", retryable: false });
    expect(mapKieCode(422, "title is too long")).toEqual({ code: "model_request_failed", retryable: false });
    expect(mapKieCode(501, "Generation failed")).toEqual({ code: "model_request_failed", retryable: true });
  });

  it("reads the body's code over the HTTP status", () => {
    expect(describeKie(200, JSON.stringify({ code: 402, msg: "credits", data: null }))).toMatchObject({
      code: "model_unavailable",
      message: "credits",
    });
    expect(describeKie(500, "<html>oops</html>")).toMatchObject({ code: "model_request_failed", retryable: true });
  });
});

describe("status table", () => {
  const c = () => config();
  const track = (i: number, audio = true) => ({
    id: `t${i}`,
    audioUrl: audio ? `https://cdn.test/${i}.mp3` : "",
    title: `S${i}`,
  });
  const rec = (status: string, sunoData: unknown[] = [], extra: Record<string, unknown> = {}) => ({
    taskId: "abc",
    status,
    response: { sunoData },
    ...extra,
  });

  it("maps every documented status", () => {
    expect(pollResultOf(c(), rec("PENDING"), 2, 0).state).toBe("queued");
    expect(pollResultOf(c(), rec("TEXT_SUCCESS", [track(0, false)]), 2, 1000)).toMatchObject({ state: "running" });
    expect(pollResultOf(c(), rec("FIRST_SUCCESS", [track(0), track(1, false)]), 2, 1000)).toMatchObject({
      state: "running",
    });
    expect(pollResultOf(c(), rec("SUCCESS", [track(0), track(1)]), 2, 1000)).toEqual({ state: "succeeded" });
    expect(pollResultOf(c(), rec("SENSITIVE_WORD_ERROR"), 2, 0)).toMatchObject({ error: { code: "safety_rejected" } });
    expect(pollResultOf(c(), rec("SENSITIVE_WORD_ERROR", [track(0, false)]), 2, 0)).toMatchObject({
      error: { code: "content_filtered" },
    });
    expect(pollResultOf(c(), rec("CREATE_TASK_FAILED", [], { errorMessage: "bad" }), 2, 0)).toMatchObject({
      error: { code: "model_request_failed" },
    });
    expect(pollResultOf(c(), rec("GENERATE_AUDIO_FAILED", [], { errorCode: 501 }), 2, 0)).toMatchObject({
      error: { code: "model_request_failed" },
    });
    expect(pollResultOf(c(), rec("CALLBACK_EXCEPTION", [track(0), track(1)]), 2, 0)).toEqual({ state: "succeeded" });
    expect(pollResultOf(c(), rec("CALLBACK_EXCEPTION", [track(0)]), 2, 0).state).toBe("failed");
  });

  it("keeps an unlisted status running, and progress moves with time and stage", () => {
    const early = pollResultOf(c(), rec("QUEUING"), 2, 1_000);
    const later = pollResultOf(c(), rec("QUEUING"), 2, 60_000);
    expect(early.state).toBe("running");
    const pct = (r: any) => r.progress.percent as number;
    expect(pct(later)).toBeGreaterThan(pct(early));
    expect(pct(pollResultOf(c(), rec("FIRST_SUCCESS", [track(0)]), 2, 1_000))).toBeGreaterThanOrEqual(60);
  });

  it("never reads SUCCESS without both audio files as success", () => {
    expect(() => pollResultOf(c(), rec("SUCCESS", [track(0)]), 2, 0)).toThrow(/malformed/);
    expect(() => pollResultOf(c(), { taskId: "x" }, 2, 0)).toThrow(/no status/);
  });

  it("returns both tracks as audio URLs, indexes 0 and 1", () => {
    const handle: ProviderHandle = { job_id: "abc", submitted_at: 0 };
    const result = resultOf(c(), handle, rec("SUCCESS", [track(0), track(1)]), 2);
    expect(result.outputs).toEqual([
      { kind: "audio", index: 0, url: "https://cdn.test/0.mp3" },
      { kind: "audio", index: 1, url: "https://cdn.test/1.mp3" },
    ]);
    expect(result.usage).toEqual({ tracks: 2 });
  });
});

describe("against the fake Kie", () => {
  it("submits, polls to SUCCESS and reads two MP3 URLs", async () => {
    const t = tag("life");
    const job = musicJob({ prompt: `calm piano #tag:${t}`, instrumental: true, model_options: custom() });
    const ctx = context();
    const handle = await kieAdapter.submit(job, ctx);
    expect(handle.job_id).toMatch(/^[A-Za-z0-9]+$/);
    const states: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await kieAdapter.poll(handle, job, context());
      states.push(r.state);
      if (r.state === "succeeded") break;
    }
    expect(states).toEqual(["queued", "running", "succeeded"]);
    const result = await kieAdapter.fetchResult(handle, job, context());
    expect(result.outputs).toHaveLength(2);
    const audio = await fetch((result.outputs[0] as { url: string }).url);
    expect(audio.headers.get("content-type")).toBe("audio/mpeg");
    const records = await requests(t);
    const submit = records.find((r) => r.kind === "submit");
    expect(submit?.authorization).toBe(`Bearer ${config().apiKey}`);
    expect(submit?.body).toMatchObject({ customMode: true, style: `calm piano #tag:${t}`, title: "Untitled", model: "V5" });
  });

  it("an out-of-credits code in a 200 body is a refusal another route may serve", async () => {
    const e = await rejection(kieAdapter.submit(musicJob({ prompt: `x #tag:${tag("credits")} #fake:no_credits` }), context()));
    expect(e).toMatchObject({ code: "model_unavailable", retryable: true, accepted: "no" });
    expect(e.message).toContain("Insufficient credits");
    expect(e.message).not.toContain(config().apiKey);
  });

  it("a 429 carries Retry-After; maintenance (455) marks the route unavailable", async () => {
    const limited = await rejection(kieAdapter.submit(musicJob({ prompt: `x #tag:${tag("429")} #fake:submit_429` }), context()));
    expect(limited).toMatchObject({ code: "model_rate_limited", retryAfterMs: 1000, accepted: "no" });
    const down = await rejection(kieAdapter.submit(musicJob({ prompt: `x #tag:${tag("down")} #fake:down` }), context()));
    expect(down).toMatchObject({ code: "model_unavailable", accepted: "no" });
  });

  it("a refused key never reaches the message", async () => {
    const c = { ...config(), apiKey: "wrong-key-abcdef0123456789" };
    const e = await rejection(kieAdapter.submit(musicJob({ prompt: `x #tag:${tag("auth")}` }), context({ config: c })));
    expect(e).toMatchObject({ code: "model_unavailable", accepted: "no" });
    expect(e.message).not.toContain("wrong-key-abcdef0123456789");
  });

  it("input refused on sensitive words ends as safety_rejected", async () => {
    const job = musicJob({ prompt: `x #tag:${tag("safety")} #fake:safety_input` });
    const handle = await kieAdapter.submit(job, context());
    expect(await kieAdapter.poll(handle, job, context())).toMatchObject({
      state: "failed",
      error: { code: "safety_rejected" },
    });
  });

  it("cannot cancel", async () => {
    const job = musicJob();
    expect(await kieAdapter.cancel({ job_id: "x", submitted_at: 0 }, job, context())).toBe("not_cancelable");
  });
});
