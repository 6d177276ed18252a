/**
 * The MiniMax adapter on its own: what it sends for speech, music and video, how it reads MiniMax's
 * HTTP-200 errors (`base_resp.status_code`), and the whole life of a Hailuo video task (which no
 * card routes yet, so the conformance suite cannot reach it) against the fake MiniMax
 * (test/providers/fakes/minimax.ts).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ProviderContext } from "../../src/providers/adapter";
import { providerConfig } from "../../src/providers/config";
import type { JobFor, JobInput, MusicRequest, SpeechRequest, VideoCapability, VideoRequest } from "../../src/providers/jobs";
import { codeForStatusCode, describeMiniMax, fromHex } from "../../src/providers/minimax/client";
import { MINIMAX_BASE_URL, minimaxAdapter } from "../../src/providers/minimax/index";
import { musicBody } from "../../src/providers/minimax/music";
import { languageBoost, pitchOf, speechBody } from "../../src/providers/minimax/speech";
import { audioOutput } from "../../src/providers/minimax/sync";
import { pollVideo } from "../../src/providers/minimax/video";
import { type PollResult, ProviderError, type ProviderHandle } from "../../src/providers/types";
import { newTenant } from "../helpers/api";
import { fakeKey, type Recorded } from "./fakes/kit";
import { count, create, expectRefunded, fakeRequests, follow, newTag } from "./harness";
import { subjects } from "./subjects/minimax";
import { recorded, rejection, unitJob, videoRequest } from "./unit";

const config = providerConfig(env, "minimax", MINIMAX_BASE_URL)!;
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let n = 0;
const tag = (name: string) => `${name}-${run}-${++n}`;

function ctx(over: Partial<ProviderContext> = {}): ProviderContext {
  return {
    env,
    now: Date.now(),
    config,
    inputs: {
      url: async (input: JobInput) => `https://gateway.test/inputs/${encodeURIComponent(input.key)}?expires=9999999999&sig=ab`,
      bytes: async () => new Uint8Array(),
    },
    webhookUrl: "https://gateway.test/webhooks/providers/minimax/t1",
    ...over,
  };
}

function speechJob(request: Partial<SpeechRequest> = {}): JobFor<"text_to_speech"> {
  return unitJob({
    capability: "text_to_speech",
    model: "speech-2.8-hd",
    request: { input: "Hello there", voice: "English_radiant_girl", format: "mp3", speed: 1, volume: 1, pitch: 0, ...request },
  });
}

function musicJob(request: Partial<MusicRequest> = {}): JobFor<"text_to_music"> {
  return unitJob({
    capability: "text_to_music",
    model: "music-2.6",
    request: { prompt: "calm piano", instrumental: false, tracks: 1, format: "audio/mpeg", ...request },
  });
}

function videoJob<C extends VideoCapability>(
  capability: C,
  prompt: string,
  inputs: JobInput[] = [],
  request: Partial<VideoRequest> = {},
) {
  return unitJob({
    capability,
    model: "hailuo-2.3",
    upstream_model: "MiniMax-Hailuo-2.3",
    inputs,
    request: videoRequest(prompt, { duration: 6, resolution: "768p", ...request }) as JobFor<C>["request"],
  });
}

const image = (field: string): JobInput => ({ field, key: `${field}-${++n}`, kind: "image", mime: "image/png" });

async function requests(t: string): Promise<Recorded<any>[]> {
  return recorded(config.baseUrl, t);
}

describe("minimax: request bodies", () => {
  it("maps speech controls to T2A v2 (pitch to integer semitones, language to language_boost)", () => {
    const body = speechBody(
      speechJob({ pitch: 0.5, speed: 1.5, volume: 2, emotion: "happy", sample_rate: 24000, language: "zh-HK", format: "flac" }),
      "minimax",
    );
    expect(body).toEqual({
      model: "speech-2.8-hd",
      text: "Hello there",
      stream: false,
      voice_setting: { voice_id: "English_radiant_girl", speed: 1.5, vol: 2, pitch: 6, emotion: "happy" },
      audio_setting: { sample_rate: 24000, format: "flac", channel: 1 },
      output_format: "hex",
      language_boost: "Chinese,Yue",
    });
    expect([pitchOf(-1), pitchOf(1), pitchOf(0), pitchOf(0.04)]).toEqual([-12, 12, 0, 0]);
    expect([languageBoost("en-GB"), languageBoost("pt-BR"), languageBoost(undefined), languageBoost("xx")]).toEqual([
      "English",
      "Portuguese",
      undefined,
      undefined,
    ]);
  });

  it("refuses the catalog's demonstration clone voices before calling", async () => {
    const t = tag("clone");
    const e = await rejection(
      minimaxAdapter.submit(speechJob({ voice: "clone_demo_fr_animateur", input: `hi #tag:${t}` }), ctx()),
    );
    expect(e.code).toBe("voice_model_incompatible");
    expect(e.retryable).toBe(false);
    expect(await requests(t)).toEqual([]);
  });

  it("sends music settings from model_options.family_b and asks for a URL", () => {
    const body = musicBody(
      musicJob({
        lyrics: "[verse]\nla la la",
        model_options: {
          family_b: { lyrics_optimizer: false, aigc_watermark: true, audio_setting: { format: "wav", sample_rate: 32000 } },
        },
      }),
    );
    expect(body).toEqual({
      model: "music-2.6",
      prompt: "calm piano",
      lyrics: "[verse]\nla la la",
      is_instrumental: false,
      lyrics_optimizer: false,
      aigc_watermark: true,
      audio_setting: { sample_rate: 32000, format: "wav" },
      output_format: "url",
    });
    // A song without lyrics: MiniMax writes them; an instrumental needs none.
    expect(musicBody(musicJob()).lyrics_optimizer).toBe(true);
    const instrumental = musicBody(musicJob({ instrumental: true }));
    expect(instrumental).toMatchObject({ is_instrumental: true, lyrics_optimizer: false, audio_setting: { bitrate: 256000 } });
    expect(instrumental.lyrics).toBeUndefined();
  });
});

describe("minimax: errors", () => {
  it("maps base_resp status codes", () => {
    expect(codeForStatusCode(1002)).toEqual({ code: "model_rate_limited", retryable: true });
    expect(codeForStatusCode(1004)).toEqual({ code: "model_unavailable", retryable: true });
    expect(codeForStatusCode(1008)).toEqual({ code: "model_unavailable", retryable: true });
    expect(codeForStatusCode(1026)).toEqual({ code: "safety_rejected", retryable: false });
    expect(codeForStatusCode(1027)).toEqual({ code: "content_filtered", retryable: false });
    for (const c of [1000, 1001, 1024]) expect(codeForStatusCode(c).retryable).toBe(true);
    expect(codeForStatusCode(2013)).toEqual({ code: "model_request_failed", retryable: false });
    // Quota exhausted (1028/1030), the plan's window used up (2056), the model not on the plan
    // (2061): this account cannot serve, another route may.
    for (const c of [1028, 1030, 2056, 2061])
      expect(codeForStatusCode(c), String(c)).toEqual({ code: "model_unavailable", retryable: true });
    // Token, connection and growth rate limits: retried with backoff, like 1002.
    for (const c of [1039, 1041, 2045])
      expect(codeForStatusCode(c), String(c)).toEqual({ code: "model_rate_limited", retryable: true });
    expect(codeForStatusCode(1033)).toEqual({ code: "model_request_failed", retryable: true });
    expect(describeMiniMax(429, '{"base_resp":{"status_code":1002,"status_msg":"rate limit"}}')).toMatchObject({
      code: "model_rate_limited",
    });
    expect(describeMiniMax(503, "<html>down</html>").code).toBeUndefined();
    expect(fromHex("49443303")).toEqual(new Uint8Array([0x49, 0x44, 0x33, 0x03]));
    expect(fromHex("xyz")).toBeNull();
  });

  it("reads an HTTP 200 refusal as accepted 'no', without the key", async () => {
    const wrong = { ...config, apiKey: "wrong-key-0123456789" };
    const e = await rejection(minimaxAdapter.submit(speechJob({ input: `hi #tag:${tag("auth")}` }), ctx({ config: wrong })));
    expect(e).toMatchObject({ code: "model_unavailable", retryable: true, accepted: "no" });
    expect(e.message).toContain("login fail");
    expect(e.message).not.toContain(fakeKey("minimax"));
    const safety = await rejection(minimaxAdapter.submit(musicJob({ prompt: `x #tag:${tag("s")} #fake:safety_input` }), ctx()));
    expect(safety).toMatchObject({ code: "safety_rejected", retryable: false, accepted: "no" });
    const limited = await rejection(minimaxAdapter.submit(speechJob({ input: `x #tag:${tag("rl")} #fake:submit_429` }), ctx()));
    expect(limited).toMatchObject({ code: "model_rate_limited", retryable: true, retryAfterMs: 1000 });
  });
});

describe("minimax: error codes at submission", () => {
  it("refusals with 1028, 1030 and 2061 leave the route; 1039 and 1041 are rate limits", async () => {
    for (const code of [1028, 1030, 2061]) {
      const e = await rejection(
        minimaxAdapter.submit(musicJob({ prompt: `x #tag:${tag(`q${code}`)} #fake:code_${code}` }), ctx()),
      );
      expect(e, String(code)).toMatchObject({ code: "model_unavailable", retryable: true, accepted: "no" });
      expect(e.message).toContain(`status_code ${code}`);
    }
    for (const code of [1039, 1041]) {
      const e = await rejection(
        minimaxAdapter.submit(speechJob({ input: `x #tag:${tag(`r${code}`)} #fake:code_${code}` }), ctx()),
      );
      expect(e, String(code)).toMatchObject({ code: "model_rate_limited", retryable: true, accepted: "no" });
    }
  });
});

describe("minimax: music answers", () => {
  const mp3Header = (bytes: Uint8Array) => bytes[0] === 0xff && (bytes[1] as number) >= 0xe0;

  it("a URL in data.audio_url (where the official CLI reads it) is the track", async () => {
    const t = tag("audio-url");
    const job = musicJob({ prompt: `calm piano #tag:${t} #fake:audio_url` });
    const c = ctx();
    const handle = await minimaxAdapter.submit(job, c);
    const result = await minimaxAdapter.fetchResult(handle, job, c);
    const out = result.outputs[0] as { kind: string; url: string };
    expect(out).toMatchObject({ kind: "audio", index: 0 });
    expect(out.url).toMatch(/\/_files\//);
    expect(mp3Header(new Uint8Array(await (await fetch(out.url)).arrayBuffer()))).toBe(true);
    expect(result.metadata).toMatchObject({ music_duration_ms: 1045 });
  });

  it("reads the URL from data.audio_url or data.audio, and hex from data.audio", () => {
    const url = "https://cdn.minimax.example/music/a.mp3?Expires=1&Signature=x";
    const from = (data: Record<string, unknown>) => audioOutput(config, { data }, "audio/mpeg");
    expect(from({ audio_url: url, status: 2 })).toEqual({ kind: "audio", url, index: 0 });
    expect(from({ audio: url, status: 2 })).toEqual({ kind: "audio", url, index: 0 });
    expect(from({ audio: "", audio_url: url })).toEqual({ kind: "audio", url, index: 0 });
    expect(from({ audio: "fffb9064" })).toEqual({
      kind: "audio",
      bytes: new Uint8Array([0xff, 0xfb, 0x90, 0x64]),
      content_type: "audio/mpeg",
      index: 0,
    });
    for (const data of [{}, { audio: "not hex" }, { audio_url: "ftp://x/y.mp3" }]) {
      expect(() => from(data)).toThrow(expect.objectContaining({ code: "model_output_invalid" }));
    }
  });
});

describe("minimax: error codes on a task", () => {
  const music = subjects.find((s) => s.model === "music-2.6")!;

  it("a rate limit (1041) is retried on the route and the task succeeds", async () => {
    const t = await newTenant({ credits: "1000" });
    const tg = newTag("minimax-1041");
    const created = await create(t, music, tg, ["#fake:code_1041_once"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.provider.failed_attempts.map((f: { code: string }) => f.code)).toEqual(["model_rate_limited"]);
    expect(count(await fakeRequests("minimax", tg), "submit")).toBe(2);
  });

  it("an exhausted quota (1028) leaves the route; with no other route the task fails, refunded", async () => {
    const t = await newTenant({ credits: "1000" });
    const tg = newTag("minimax-1028");
    const created = await create(t, music, tg, ["#fake:code_1028"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status).toBe("failed");
    expect(task.error).toMatchObject({ code: "model_unavailable", retryable: true });
    expect(task.error.message).toContain("status_code 1028");
    // The route's attempts (as for any refusal that may pass), then no next route is left.
    expect(count(await fakeRequests("minimax", tg), "submit")).toBe(3);
    await expectRefunded(t, task, "1000");
  });

  it("a URL answer in data.audio_url is stored as the task's output, never model_output_invalid", async () => {
    const t = await newTenant({ credits: "1000" });
    const tg = newTag("minimax-audio-url");
    const created = await create(t, music, tg, ["#fake:audio_url"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.output.artifacts).toHaveLength(1);
    expect(count(await fakeRequests("minimax", tg), "download")).toBe(1);
  });
});

describe("minimax: synchronous speech", () => {
  it("keeps the answer at submit, returns the hex audio as bytes with usage characters, and reconciles", async () => {
    const t = tag("speech");
    const job = speechJob({ input: `Good morning #tag:${t}` });
    const c = ctx();
    const handle = await minimaxAdapter.submit(job, c);
    expect(handle.data?.staging_key).toBeTruthy();
    expect(await minimaxAdapter.poll(handle, job, c)).toEqual({ state: "succeeded" });
    const result = await minimaxAdapter.fetchResult(handle, job, c);
    const out = result.outputs[0] as { bytes: Uint8Array; content_type: string };
    expect(out.content_type).toBe("audio/mpeg");
    expect([out.bytes[0], out.bytes[1]]).toEqual([0xff, 0xfb]);
    expect(result.usage.characters).toBe([...job.request.input].length);
    expect(await minimaxAdapter.cancel(handle, job, c)).toBe("not_cancelable");
    const found = await minimaxAdapter.reconcile!(job, c, 0);
    expect(found?.data?.staging_key).toBe(handle.data?.staging_key);
    // A second submit of the same task reuses the kept answer: one call upstream.
    await minimaxAdapter.submit(job, c);
    const recorded = await requests(t);
    expect(recorded.filter((r) => r.kind === "submit")).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ method: "POST", path: "/v1/t2a_v2", authorization: `Bearer ${fakeKey("minimax")}` });
  });
});

describe("minimax: video task", () => {
  async function drive(job: JobFor<VideoCapability>, handle: ProviderHandle): Promise<PollResult[]> {
    const seen: PollResult[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await minimaxAdapter.poll(handle, job, ctx());
      seen.push(r);
      if (r.state === "succeeded" || r.state === "failed") break;
    }
    return seen;
  }

  it("creates, polls through Preparing/Queueing/Processing with moving progress, and retrieves the file", async () => {
    const t = tag("video");
    const job = videoJob("frames_to_video", `a ship #tag:${t}`, [image("first_frame"), image("last_frame")], {
      resolution: "1080p",
    });
    const handle = await minimaxAdapter.submit(job, ctx());
    expect(handle.job_id).toMatch(/^\d+$/);
    const seen = await drive(job, handle);
    expect(seen.map((s) => s.state)).toEqual(["queued", "running", "succeeded"]);
    const result = await minimaxAdapter.fetchResult(handle, job, ctx());
    expect(result.outputs[0]).toMatchObject({ kind: "video", index: 0 });
    expect((result.outputs[0] as { url: string }).url).toMatch(/\/_files\//);
    const recorded = await requests(t);
    const submit = recorded.find((r) => r.kind === "submit")!;
    expect(submit.body).toMatchObject({
      model: "MiniMax-Hailuo-2.3",
      resolution: "1080P",
      duration: 6,
      first_frame_image: expect.stringContaining("https://gateway.test/inputs/"),
      last_frame_image: expect.stringContaining("https://gateway.test/inputs/"),
    });
    // No callback is requested: MiniMax does not sign them.
    expect(submit.body.callback_url).toBeUndefined();
    expect(recorded.some((r) => r.path.startsWith("/v1/files/retrieve?file_id="))).toBe(true);
  });

  it("maps a failed task with 1027 to content_filtered, and an unlisted status to still running", async () => {
    const job = videoJob("text_to_video", `x #tag:${tag("vf")} #fake:safety_output`);
    const seen = await drive(job, await minimaxAdapter.submit(job, ctx()));
    expect(seen.at(-1)).toMatchObject({ state: "failed", error: { code: "content_filtered" } });
    const unknown = videoJob("text_to_video", `x #tag:${tag("vu")} #fake:unknown_status`);
    const states = (await drive(unknown, await minimaxAdapter.submit(unknown, ctx()))).map((s) => s.state);
    expect(states.slice(0, 2)).toEqual(["running", "running"]);
    expect(states.at(-1)).toBe("succeeded");
  });

  it("a task ending Failed (as the official CLI spells it) is a failure, like Fail", async () => {
    const job = videoJob("text_to_video", `x #tag:${tag("vfailed")} #fake:task_failed`);
    const seen = await drive(job, await minimaxAdapter.submit(job, ctx()));
    expect(seen.at(-1)).toMatchObject({
      state: "failed",
      error: { code: "model_request_failed", message: expect.stringContaining("video generation failed") },
    });
    const now = Date.now();
    for (const status of ["Fail", "Failed"]) {
      expect(
        pollVideo(config, { status, base: { status_code: 1026, status_msg: "input new_sensitive" } }, now, now),
      ).toMatchObject({
        state: "failed",
        error: { code: "safety_rejected" },
      });
    }
  });

  it("keeps progress monotonic across statuses, and a Success without file_id is malformed", () => {
    const now = Date.now();
    const at = (status: string, t: number) => pollVideo(config, { status, base: null }, now + t, now);
    const percents = [at("Preparing", 0), at("Queueing", 20_000), at("Processing", 30_000), at("Processing", 90_000)].map((r) =>
      "progress" in r ? r.progress.percent : -1,
    );
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(percents[3]).toBeGreaterThan(percents[2] as number);
    expect(() => pollVideo(config, { status: "Success", base: null }, now, now)).toThrow(ProviderError);
  });

  it("refuses an input safety failure at create, and cannot cancel", async () => {
    const job = videoJob("text_to_video", `x #tag:${tag("vs")} #fake:safety_input`);
    expect(await rejection(minimaxAdapter.submit(job, ctx()))).toMatchObject({ code: "safety_rejected", accepted: "no" });
    const slow = videoJob("text_to_video", `x #tag:${tag("slow")} #fake:slow`);
    const handle = await minimaxAdapter.submit(slow, ctx());
    expect(await minimaxAdapter.cancel(handle, slow, ctx())).toBe("not_cancelable");
    expect(await minimaxAdapter.reconcile!(slow, ctx(), 0)).toBeNull();
  });
});
