/**
 * The Runway adapter on its own: the ratio table, the status table, the reading of Runway's error
 * answers, and a task's life against the fake Runway (test/providers/fakes/runway.ts, at
 * env.PROVIDER_RUNWAY_BASE_URL), including fresh output URLs on every read.
 */

import { describe, expect, it } from "vitest";
import type { ProviderContext } from "../../src/providers/adapter";
import type { JobFor, JobInput, VideoRequest } from "../../src/providers/jobs";
import { authHeaders, describeRunway, RUNWAY_BASE_URL, RUNWAY_VERSION } from "../../src/providers/runway/client";
import { runwayAdapter } from "../../src/providers/runway/index";
import { RATIOS_720P, ratioOf, runwayBody } from "../../src/providers/runway/inputs";
import { codeForFailure, pollResultOf } from "../../src/providers/runway/status";
import { ProviderError } from "../../src/providers/types";
import type { Recorded } from "./fakes/kit";
import { recorded, signedUrl, unitConfig, unitContext, unitJob, videoRequest } from "./unit";

const config = () => unitConfig("runway", RUNWAY_BASE_URL);

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let n = 0;
const tag = (name: string) => `runway-unit-${name}-${run}-${++n}`;

const signed = signedUrl;

const context = (over: Partial<ProviderContext> = {}) => unitContext(config(), over);

const start: JobInput = { field: "image", key: "in/start.png", kind: "image", mime: "image/png", width: 512, height: 512 };

function job(request: Partial<VideoRequest> = {}, inputs: JobInput[] = [start]): JobFor<"image_to_video"> {
  return unitJob({
    capability: "image_to_video",
    model: "runway-gen4-turbo",
    upstream_model: "gen4_turbo",
    inputs,
    request: videoRequest("a lighthouse at dawn", request),
  });
}

async function requests(t: string): Promise<Recorded<any>[]> {
  return recorded(config().baseUrl, t);
}

describe("runway request body", () => {
  it("maps every aspect ratio of the card to Runway's 720p ratio strings", () => {
    expect(RATIOS_720P).toEqual({
      "16:9": "1280:720",
      "9:16": "720:1280",
      "4:3": "1104:832",
      "3:4": "832:1104",
      "1:1": "960:960",
      "21:9": "1584:672",
    });
    expect(ratioOf("16:9", "1080p")).toBeUndefined();
    expect(ratioOf("2:1", "720p")).toBeUndefined();
  });

  it("builds the Gen-4 Turbo body with the signed start frame", async () => {
    const body = await runwayBody(job({ seed: 7, duration: 8, aspect_ratio: "9:16" }), context());
    expect(body).toEqual({
      model: "gen4_turbo",
      promptImage: signed(start),
      promptText: "a lighthouse at dawn",
      ratio: "720:1280",
      duration: 8,
      seed: 7,
    });
  });

  it("refuses what Runway cannot make, before sending anything", async () => {
    const refused = async (j: JobFor<"image_to_video">) => {
      const e = await runwayBody(j, context()).catch((x) => x);
      expect(e).toBeInstanceOf(ProviderError);
      expect(e).toMatchObject({ code: "unsupported_option", accepted: "no", retryable: false });
    };
    await refused(job({ resolution: "1080p" }));
    await refused(job({ aspect_ratio: "2:1" }));
    await refused(job({}, []));
    await refused(job({ prompt: "   " }));
    await refused(job({ prompt: "😀".repeat(501) }));
    await refused(job({ seed: 2 ** 32 }));
  });
});

describe("runway status table", () => {
  const c = config();
  const at = (task: Record<string, unknown>) => pollResultOf(c, { id: "t1", createdAt: "2026-01-01T00:00:00Z", ...task }, 2_000);

  it("maps every documented status", () => {
    expect(at({ status: "PENDING" })).toMatchObject({ state: "queued", progress: { stage: "queued" } });
    expect(at({ status: "THROTTLED" })).toMatchObject({
      state: "queued",
      progress: { message: expect.stringContaining("Throttled") },
    });
    expect(at({ status: "RUNNING", progress: 0.5 })).toMatchObject({ state: "running", progress: { percent: 50 } });
    expect(at({ status: "SUCCEEDED", output: ["https://cdn.example/v.mp4?sig=1"] })).toEqual({ state: "succeeded" });
    expect(at({ status: "CANCELLED" })).toMatchObject({ state: "failed", error: { code: "model_request_failed" } });
    expect(at({ status: "FAILED", failure: "Output was bad", failureCode: "INTERNAL.BAD_OUTPUT.CODE01" })).toMatchObject({
      state: "failed",
      error: { code: "model_request_failed", message: expect.stringContaining("Output was bad") },
    });
  });

  it("reads safety failure codes as safety outcomes, keeping Runway's words", () => {
    expect(codeForFailure("SAFETY.INPUT.TEXT")).toBe("safety_rejected");
    expect(codeForFailure("SAFETY.INPUT.IMAGE")).toBe("safety_rejected");
    expect(codeForFailure("INPUT_PREPROCESSING.SAFETY.TEXT")).toBe("safety_rejected");
    expect(codeForFailure("SAFETY.OUTPUT.VIDEO")).toBe("content_filtered");
    expect(codeForFailure("INTERNAL.BAD_OUTPUT.CODE01")).toBe("model_request_failed");
    expect(codeForFailure(undefined)).toBe("model_request_failed");
    const r = at({ status: "FAILED", failure: "Prompt rejected", failureCode: "SAFETY.INPUT.TEXT" });
    expect(r).toMatchObject({
      state: "failed",
      error: { code: "safety_rejected", message: expect.stringContaining("Prompt rejected") },
    });
  });

  it("running progress moves with Runway's figure and stays between queued and done", () => {
    const p = (x: unknown) => {
      const r = at({ status: "RUNNING", progress: x });
      return r.state === "running" ? r.progress.percent : -1;
    };
    expect(p(0)).toBe(5);
    expect(p(1)).toBe(95);
    expect(p(undefined)).toBe(5);
    expect(p(0.2)).toBeLessThan(p(0.8));
  });

  it("an unlisted status is still running, never success or failure", () => {
    for (const word of ["PREPARING", "succeeded", "", "DONE"]) {
      const r = at({ status: word });
      expect(r.state, word).toBe("running");
    }
  });

  it("an answer without a status, or a SUCCEEDED without output, is malformed", () => {
    for (const bad of [null, [], "SUCCEEDED", { id: "t1" }, { status: 3 }]) {
      expect(() => pollResultOf(c, bad, 1000)).toThrow(expect.objectContaining({ malformed: true }));
    }
    expect(() => at({ status: "SUCCEEDED" })).toThrow(expect.objectContaining({ malformed: true }));
    expect(() => at({ status: "SUCCEEDED", output: [] })).toThrow(expect.objectContaining({ malformed: true }));
    expect(() => at({ status: "SUCCEEDED", output: [42] })).toThrow(expect.objectContaining({ malformed: true }));
  });
});

describe("runway error answers", () => {
  const h = (init: Record<string, string> = {}) => new Headers(init);
  it("reads the error member and per-field notes", () => {
    expect(describeRunway(400, JSON.stringify({ error: "Invalid ratio" }), h())).toEqual({ message: "Invalid ratio" });
    expect(
      describeRunway(400, JSON.stringify({ error: "Validation failed", issues: [{ path: ["ratio"], message: "bad" }] }), h())
        .message,
    ).toBe("Validation failed (ratio: bad)");
    expect(describeRunway(502, "upstream down", h()).message).toBe("upstream down");
  });
  it("obeys x-should-retry", () => {
    expect(describeRunway(400, "{}", h({ "x-should-retry": "true" })).retryable).toBe(true);
    expect(describeRunway(503, "{}", h({ "x-should-retry": "false" })).retryable).toBe(false);
  });
  it("sends the version header Runway requires", () => {
    expect(authHeaders(config())).toMatchObject({
      "X-Runway-Version": RUNWAY_VERSION,
      Authorization: expect.stringMatching(/^Bearer /),
    });
  });
});

describe("runway against the fake", () => {
  it("the fake refuses a call without the version header", async () => {
    const res = await fetch(`${config().baseUrl}/v1/tasks/nope`, { headers: { Authorization: `Bearer ${config().apiKey}` } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain("X-Runway-Version");
  });

  it("submits, goes PENDING → THROTTLED → RUNNING → SUCCEEDED, and re-reads the task for fresh URLs", async () => {
    const t = tag("life");
    const j = job({ prompt: `a lighthouse #tag:${t}` });
    const ctx = context();
    const handle = await runwayAdapter.submit(j, ctx);
    expect(handle.job_id).toMatch(/^[0-9a-f-]{36}$/);
    const states: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await runwayAdapter.poll(handle, j, ctx);
      states.push(r.state === "running" || r.state === "queued" ? `${r.state}:${r.progress.stage}` : r.state);
      if (r.state === "succeeded") break;
    }
    expect(states).toEqual(["queued:queued", "queued:queued", "running:generating", "succeeded"]);
    const first = await runwayAdapter.fetchResult(handle, j, ctx);
    const second = await runwayAdapter.fetchResult(handle, j, ctx);
    const url = (r: typeof first) => (r.outputs[0] as { url: string }).url;
    expect(first.outputs).toHaveLength(1);
    expect(first.outputs[0]).toMatchObject({ kind: "video", index: 0 });
    expect(url(first)).not.toBe(url(second));
    const recorded = await requests(t);
    const submit = recorded.find((r) => r.kind === "submit");
    expect(submit?.path).toBe("/v1/image_to_video");
    expect(submit?.headers["x-runway-version"]).toBe(RUNWAY_VERSION);
    expect(submit?.body).toMatchObject({ model: "gen4_turbo", ratio: "1280:720", duration: 5, promptImage: signed(start) });
    // Four polls and one read per fetchResult.
    expect(recorded.filter((r) => r.kind === "status")).toHaveLength(6);
    const video = await fetch(url(second));
    expect(video.status).toBe(200);
    expect(video.headers.get("content-type")).toBe("video/mp4");
  });

  it("a refused submission is accepted 'no', with Retry-After on 429", async () => {
    const e = await runwayAdapter.submit(job({ prompt: `x #tag:${tag("429")} #fake:submit_429` }), context()).catch((x) => x);
    expect(e).toMatchObject({ code: "model_rate_limited", accepted: "no", retryable: true, retryAfterMs: 1000 });
    const bad = await runwayAdapter.submit(job({ prompt: `x #tag:${tag("5xx")} #fake:submit_5xx` }), context()).catch((x) => x);
    expect(bad).toMatchObject({ code: "model_request_failed", accepted: "no", retryable: true });
  });

  it("safety failures end the task with Runway's wording and no key", async () => {
    const ctx = context();
    const j = job({ prompt: `x #tag:${tag("safety")} #fake:safety_input` });
    const r = await runwayAdapter.poll(await runwayAdapter.submit(j, ctx), j, ctx);
    expect(r).toMatchObject({
      state: "failed",
      error: { code: "safety_rejected", message: expect.stringContaining("SAFETY.INPUT.TEXT") },
    });
    if (r.state === "failed") expect(r.error.message).not.toContain(config().apiKey);
  });

  it("cancels a waiting task with DELETE, and leaves a finished one alone", async () => {
    const ctx = context();
    const t = tag("cancel");
    const j = job({ prompt: `x #tag:${t} #fake:slow` });
    const handle = await runwayAdapter.submit(j, ctx);
    expect(await runwayAdapter.poll(handle, j, ctx)).toMatchObject({ state: "queued" });
    expect(await runwayAdapter.cancel(handle, j, ctx)).toBe("canceled");
    expect((await requests(t)).filter((r) => r.kind === "cancel")).toHaveLength(1);
    expect(await runwayAdapter.poll(handle, j, ctx)).toMatchObject({ state: "failed" });
    expect(await runwayAdapter.cancel(handle, j, ctx)).toBe("not_cancelable");
    expect((await requests(t)).filter((r) => r.kind === "cancel")).toHaveLength(1);
  });
});
