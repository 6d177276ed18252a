/**
 * The DashScope adapter on its own: what it sends for each Wan capability, how it reads DashScope's
 * statuses and error codes, when it cancels, and a task's whole life against the fake DashScope
 * (test/providers/fakes/dashscope.ts).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ModelFile } from "../../src/catalog/schema";
import type { ProviderContext } from "../../src/providers/adapter";
import { providerConfig } from "../../src/providers/config";
import { codeForError, describeDashScope, safetyCode } from "../../src/providers/dashscope/client";
import { DASHSCOPE_BASE_URL, dashscopeAdapter } from "../../src/providers/dashscope/index";
import { pollResult, TASK_ID_TTL_MS } from "../../src/providers/dashscope/status";
import { asTask, type DashScopeTask, modelFor, taskBody, taskResult } from "../../src/providers/dashscope/tasks";
import type { JobFor, JobInput, MediaCapability, VideoCapability, VideoRequest } from "../../src/providers/jobs";
import { upstreamModel } from "../../src/providers/routing";
import { ProviderError, type ProviderHandle } from "../../src/providers/types";
import { fakeKey, type Recorded } from "./fakes/kit";
import { cardOf, recorded, rejection, unitJob, videoRequest } from "./unit";

const config = providerConfig(env, "dashscope", DASHSCOPE_BASE_URL)!;
const catalog = JSON.parse(env.TEST_CATALOG) as Record<string, string>;
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
    webhookUrl: null,
    ...over,
  };
}

const input = (field: string, kind: JobInput["kind"], extra: Partial<JobInput> = {}): JobInput => ({
  field,
  key: `inputs/${field}-${++n}`,
  kind,
  mime: kind === "image" ? "image/png" : kind === "video" ? "video/mp4" : "audio/mpeg",
  ...extra,
});

/** The id the card's dashscope route names for the capability, as routing resolves it. */
function upstreamFor(model: string, capability: MediaCapability): string {
  const file = JSON.parse(catalog[`models/${model}.json`] as string) as ModelFile;
  return upstreamModel(file.routes.find((r) => r.provider === "dashscope") as ModelFile["routes"][number], capability);
}

function job<C extends VideoCapability>(
  model: "wan-2.7" | "wan-3.0",
  capability: C,
  prompt: string,
  request: Partial<VideoRequest> = {},
  inputs: JobInput[] = [],
): JobFor<C> {
  return unitJob({
    capability,
    model,
    upstream_model: upstreamFor(model, capability),
    card: cardOf(model, capability),
    inputs,
    request: videoRequest(prompt, { generate_audio: true, ...request }) as JobFor<C>["request"],
  });
}

async function requests(t: string): Promise<Recorded<any>[]> {
  return recorded(config.baseUrl, t);
}

const task = (over: Partial<DashScopeTask>): DashScopeTask => ({ task_id: "t1", task_status: "PENDING", ...over });

describe("request bodies", () => {
  it("wan-2.7 text-to-video: ratio, tier in DashScope's case, prompt_extend off unless asked", async () => {
    const body = await taskBody(job("wan-2.7", "text_to_video", "a fox", { negative_prompt: "blur", seed: 7 }), ctx());
    expect(body).toEqual({
      model: "wan2.7-t2v",
      input: { prompt: "a fox", negative_prompt: "blur" },
      parameters: { resolution: "720P", duration: 5, watermark: false, ratio: "16:9", prompt_extend: false, seed: 7 },
    });
    const asked = await taskBody(job("wan-2.7", "text_to_video", "a fox", { enhance_prompt: true, watermark: true }), ctx());
    expect(asked.parameters).toMatchObject({ prompt_extend: true, watermark: true });
  });

  it("wan-2.7 image-to-video goes to wan2.7-i2v with a first frame and driving audio, no ratio", async () => {
    const j = job("wan-2.7", "image_to_video", "waves", {}, [
      input("audio", "audio", { role: "driving_audio" }),
      input("image", "image"),
    ]);
    expect(modelFor(j)).toBe("wan2.7-i2v");
    const body = (await taskBody(j, ctx())) as any;
    expect(body.model).toBe("wan2.7-i2v");
    expect(body.input.media.map((m: any) => m.type)).toEqual(["first_frame", "driving_audio"]);
    for (const m of body.input.media) expect(m.url).toMatch(/^https:\/\/gateway\.test\/inputs\//);
    expect(body.parameters.ratio).toBeUndefined();
    expect(body.parameters.audio).toBeUndefined();
  });

  it("wan-2.7 frames and extension: first/last frame, first_clip with the final length", async () => {
    const frames = (await taskBody(
      job("wan-2.7", "frames_to_video", "", {}, [input("last_frame", "image"), input("first_frame", "image")]),
      ctx(),
    )) as any;
    expect(frames.model).toBe("wan2.7-i2v");
    expect(frames.input.prompt).toBeUndefined();
    expect(frames.input.media.map((m: any) => m.type)).toEqual(["first_frame", "last_frame"]);
    const extend = (await taskBody(
      job("wan-2.7", "video_extend", "keep going", { duration: 12, direction: "after", source_duration: 6 }, [
        input("video", "video", { duration_seconds: 6 }),
      ]),
      ctx(),
    )) as any;
    expect(extend.model).toBe("wan2.7-i2v");
    expect(extend.input.media).toEqual([expect.objectContaining({ type: "first_clip" })]);
    expect(extend.parameters.duration).toBe(12);
  });

  it("the card's per-capability id is used as it is", () => {
    const j = job("wan-2.7", "image_to_video", "x", {}, [input("image", "image")]);
    expect(j.upstream_model).toBe("wan2.7-i2v");
    expect(modelFor({ ...j, upstream_model: "wan2.7-something" })).toBe("wan2.7-something");
  });

  it("wan-3.0: one id, references typed by kind in the client's order, the audio switch, no prompt_extend", async () => {
    const refs = [
      input("references", "video", { duration_seconds: 4 }),
      input("references", "image"),
      input("references", "audio", { duration_seconds: 3 }),
    ];
    const body = (await taskBody(
      job("wan-3.0", "reference_to_video", "scene", { generate_audio: false, resolution: "480p" }, refs),
      ctx(),
    )) as any;
    expect(body.model).toBe("wan3.0-video");
    expect(body.input.media.map((m: any) => m.type)).toEqual(["reference_video", "reference_image", "reference_audio"]);
    expect(body.parameters).toEqual({ resolution: "480P", duration: 5, watermark: false, ratio: "16:9", audio: false });
    const i2v = (await taskBody(job("wan-3.0", "image_to_video", "", {}, [input("image", "image")]), ctx())) as any;
    expect(i2v.model).toBe("wan3.0-video");
    expect(i2v.input.media.map((m: any) => m.type)).toEqual(["first_frame"]);
    expect(i2v.parameters).toMatchObject({ audio: true });
    expect(i2v.parameters.ratio).toBeUndefined();
  });

  it("wan-3.0 per-request totals are refused before anything is sent", async () => {
    const long = [input("references", "video", { duration_seconds: 10 }), input("references", "video", { duration_seconds: 8 })];
    const e = await rejection(taskBody(job("wan-3.0", "reference_to_video", "x", {}, long), ctx()));
    expect(e).toMatchObject({ code: "invalid_request", accepted: "no" });
    const over = [input("references", "video", { duration_seconds: 12 })];
    expect((await rejection(taskBody(job("wan-3.0", "reference_to_video", "x", { duration: 20 }, over), ctx()))).code).toBe(
      "invalid_request",
    );
  });
});

describe("error codes", () => {
  it("DataInspectionFailed is a safety outcome on the side its message names", () => {
    const input = { code: "DataInspectionFailed", message: "Input data may contain inappropriate content." };
    const output = { code: "DataInspectionFailed", message: "Output data may contain inappropriate content." };
    const either = { code: "DataInspectionFailed", message: "Input or output data may contain inappropriate content." };
    expect(safetyCode(input, "task")).toBe("safety_rejected");
    expect(safetyCode(output, "submission")).toBe("content_filtered");
    expect(safetyCode(either, "submission")).toBe("safety_rejected");
    expect(safetyCode(either, "task")).toBe("content_filtered");
    expect(safetyCode({ code: "IPInfringementSuspect", message: "Input data is suspected of infringing." }, "task")).toBe(
      "safety_rejected",
    );
    // A download failure during review is no verdict.
    expect(
      safetyCode(
        {
          code: "InvalidParameter.DataInspection",
          message: "Unable to download the media resource during the data inspection process.",
        },
        "task",
      ),
    ).toBeNull();
  });

  it("reads error answers: safety never retried, throttling and server errors by status, the account's refusals move on", () => {
    const body = (code: string, message: string) => JSON.stringify({ request_id: "r", code, message });
    expect(describeDashScope(400, body("DataInspectionFailed", "Input data may contain inappropriate content."))).toMatchObject({
      code: "safety_rejected",
      retryable: false,
    });
    expect(describeDashScope(429, body("Throttling.RateQuota", "Requests rate limit exceeded")).code).toBeUndefined();
    expect(describeDashScope(500, body("InternalError", "An internal error has occured")).code).toBeUndefined();
    expect(describeDashScope(400, body("Arrearage", "Access denied"))).toMatchObject({
      code: "model_unavailable",
      retryable: true,
    });
    expect(describeDashScope(401, body("InvalidApiKey", "Invalid API-key provided."))).toMatchObject({
      code: "model_unavailable",
    });
    expect(describeDashScope(400, body("InvalidParameter", "bad https://x.test/a?sig=1")).message).toBe(
      "InvalidParameter: bad [url]",
    );
    expect(codeForError({ code: "InternalError.Timeout" }, "task")).toEqual({ code: "model_timeout", retryable: true });
  });
});

describe("statuses", () => {
  const now = Date.now();
  it("maps every documented status, and an unlisted one as still waiting", () => {
    expect(pollResult(config, task({ task_status: "PENDING" }), now, now - 20_000)).toMatchObject({
      state: "queued",
      progress: { percent: 4 },
    });
    expect(pollResult(config, task({ task_status: "SUSPENDED" }), now, now).state).toBe("queued");
    const r = pollResult(config, task({ task_status: "RUNNING" }), now, now - 60_000) as any;
    expect(r.state).toBe("running");
    expect(r.progress.percent).toBeGreaterThan(10);
    expect(r.progress.percent).toBeLessThan(96);
    expect(pollResult(config, task({ task_status: "SUCCEEDED", video_url: "https://oss.test/v.mp4" }), now, now)).toEqual({
      state: "succeeded",
    });
    expect(
      pollResult(
        config,
        task({ task_status: "FAILED", code: "DataInspectionFailed", message: "Output data may contain inappropriate content." }),
        now,
        now,
      ),
    ).toMatchObject({ state: "failed", error: { code: "content_filtered" } });
    expect(pollResult(config, task({ task_status: "FAILED", code: "InternalError", message: "boom" }), now, now)).toMatchObject({
      state: "failed",
      error: { code: "model_request_failed", message: "dashscope: InternalError: boom" },
    });
    expect(pollResult(config, task({ task_status: "CANCELED" }), now, now)).toMatchObject({ state: "failed" });
    expect(pollResult(config, task({ task_status: "UNKNOWN" }), now, now).state).toBe("running");
    expect(pollResult(config, task({ task_status: "UNKNOWN" }), now, now - TASK_ID_TTL_MS - 1).state).toBe("failed");
    const odd = pollResult(config, task({ task_status: "QUEUING" }), now, now - 200_000) as any;
    expect(odd.state).toBe("running");
    expect(odd.progress.percent).toBeLessThan(10);
  });

  it("a success without its video, or an answer without a status, is malformed", () => {
    const e = (() => {
      try {
        pollResult(config, task({ task_status: "SUCCEEDED" }), now, now);
      } catch (x) {
        return x as ProviderError;
      }
    })();
    expect(e?.malformed).toBe(true);
    expect(() => asTask(config, { output: { task_id: "x" } })).toThrow(ProviderError);
    expect(() => taskResult(config, task({ task_status: "SUCCEEDED" }))).toThrow(/malformed/);
  });
});

describe("against the fake DashScope", () => {
  async function drive(j: JobFor<VideoCapability>) {
    const handle = await dashscopeAdapter.submit(j, ctx());
    const states: string[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await dashscopeAdapter.poll(handle, j, ctx());
      states.push(r.state);
      if (r.state === "succeeded" || r.state === "failed") return { handle, states, last: r };
    }
    throw new Error(`did not finish: ${states.join(",")}`);
  }

  it("a wan-2.7 text-to-video task: async header, key, queued → running → succeeded, a real MP4", async () => {
    const t = tag("t2v");
    const j = job("wan-2.7", "text_to_video", `a fox #tag:${t}`);
    const { handle, states } = await drive(j);
    expect(states).toEqual(["queued", "running", "succeeded"]);
    const result = await dashscopeAdapter.fetchResult(handle, j, ctx());
    expect(result.outputs).toHaveLength(1);
    const video = result.outputs[0] as { url: string };
    const bytes = new Uint8Array(await (await fetch(video.url)).arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(4, 8))).toBe("ftyp");
    expect(result.metadata).toMatchObject({ usage_video_count: 1, usage_video_duration: 5 });
    const submit = (await requests(t)).find((r) => r.kind === "submit")!;
    expect(submit.path).toMatch(/\/services\/aigc\/video-generation\/video-synthesis$/);
    expect(submit.authorization).toBe(`Bearer ${fakeKey("dashscope")}`);
    expect(submit.headers["x-dashscope-async"]).toBe("enable");
    expect(submit.body.model).toBe("wan2.7-t2v");
  });

  it("image-to-video reaches the fake as wan2.7-i2v with the signed URL", async () => {
    const t = tag("i2v");
    const j = job("wan-2.7", "image_to_video", `#tag:${t} waves`, {}, [input("image", "image")]);
    const { last } = await drive(j);
    expect(last.state).toBe("succeeded");
    const submit = (await requests(t)).find((r) => r.kind === "submit")!;
    expect(submit.body.input.media[0]).toMatchObject({
      type: "first_frame",
      url: expect.stringMatching(/^https:\/\/gateway\.test\//),
    });
  });

  it("refusals at submission: throttling with Retry-After, server errors, input safety", async () => {
    const throttled = await rejection(
      dashscopeAdapter.submit(job("wan-3.0", "text_to_video", `#tag:${tag("429")} #fake:submit_429`), ctx()),
    );
    expect(throttled).toMatchObject({ code: "model_rate_limited", retryable: true, retryAfterMs: 1000, accepted: "no" });
    const broken = await rejection(
      dashscopeAdapter.submit(job("wan-3.0", "text_to_video", `#tag:${tag("5xx")} #fake:submit_5xx`), ctx()),
    );
    expect(broken).toMatchObject({ code: "model_request_failed", retryable: true, accepted: "no" });
    const unsafe = await rejection(
      dashscopeAdapter.submit(job("wan-3.0", "text_to_video", `#tag:${tag("safe")} #fake:safety_input`), ctx()),
    );
    expect(unsafe).toMatchObject({ code: "safety_rejected", retryable: false, accepted: "no" });
    expect(unsafe.message).toContain("Input data may contain inappropriate content");
    expect(unsafe.message).not.toContain(fakeKey("dashscope"));
  });

  it("a filtered output fails the task as content_filtered", async () => {
    const { last } = await drive(job("wan-3.0", "text_to_video", `#tag:${tag("out")} #fake:safety_output`));
    expect(last).toMatchObject({ state: "failed", error: { code: "content_filtered" } });
  });

  it("cancels a pending task; a running one is not cancelable", async () => {
    const slow = job("wan-2.7", "text_to_video", `#tag:${tag("slow")} #fake:slow`);
    const h1 = await dashscopeAdapter.submit(slow, ctx());
    expect((await dashscopeAdapter.poll(h1, slow, ctx())).state).toBe("queued");
    expect(await dashscopeAdapter.cancel(h1, slow, ctx())).toBe("canceled");
    expect((await dashscopeAdapter.poll(h1, slow, ctx())).state).toBe("failed");
    const t = tag("run");
    const busy = job("wan-2.7", "text_to_video", `#tag:${t}`);
    const h2 = await dashscopeAdapter.submit(busy, ctx());
    await dashscopeAdapter.poll(h2, busy, ctx());
    await dashscopeAdapter.poll(h2, busy, ctx());
    expect(await dashscopeAdapter.cancel(h2, busy, ctx())).toBe("not_cancelable");
    expect((await requests(t)).filter((r) => r.kind === "cancel")).toHaveLength(1);
  });

  it("malformed answers are flagged; an id DashScope does not know is UNKNOWN, not success", async () => {
    const j = job("wan-2.7", "text_to_video", `#tag:${tag("bad")} #fake:malformed`);
    const h = await dashscopeAdapter.submit(j, ctx());
    for (let i = 0; i < 2; i++) expect((await rejection(dashscopeAdapter.poll(h, j, ctx()))).malformed).toBe(true);
    const ghost: ProviderHandle = { job_id: "no-such-task", submitted_at: Date.now() };
    expect((await dashscopeAdapter.poll(ghost, j, ctx())).state).toBe("running");
  });

  it("the fake refuses what the documentation refuses", async () => {
    const t = tag("wrong");
    const e = await rejection(dashscopeAdapter.submit(job("wan-2.7", "text_to_video", `#tag:${t}`, { duration: 20 }), ctx()));
    expect(e).toMatchObject({ code: "model_request_failed", retryable: false, accepted: "no" });
    expect(e.message).toContain("InvalidParameter");
  });
});
