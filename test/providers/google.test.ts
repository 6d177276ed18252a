/**
 * The Google adapter against the Gemini API fake (test/providers/fakes/google.ts): what it sends,
 * how it reads answers, operations and errors, the staging of synchronous answers, the Files API
 * path for large videos, and chat translation both ways.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error";
import { policyFrom } from "../../src/lib/url-policy";
import { encodePng } from "../../src/media/png";
import type { ProviderContext } from "../../src/providers/adapter";
import type { ChatObject, ChatUpstreamRequest } from "../../src/providers/chat-upstream";
import { providerConfig } from "../../src/providers/config";
import { downloadToR2 } from "../../src/providers/download";
import { fromGoogleStatus, usageOf } from "../../src/providers/google/chat-answer";
import { toGemini } from "../../src/providers/google/chat-request";
import { describeGoogle, durationMs, retryDelayMs, statusOf } from "../../src/providers/google/client";
import { aspectFor, sizeFor, tokenUsage, verdictOf } from "../../src/providers/google/content";
import { sessionUrl } from "../../src/providers/google/files";
import { googleAdapter, googleChat } from "../../src/providers/google/index";
import { codeForRpc, downloadOf } from "../../src/providers/google/video";
import type {
  ImageRequest,
  JobFor,
  JobInput,
  MediaCapability,
  RequestByCapability,
  VideoRequest,
} from "../../src/providers/jobs";
import type { ProviderHandle } from "../../src/providers/types";
import { call, newTenant } from "../helpers/api";
import { isoFile } from "../media/fixtures";
import { fakeKey, type Recorded } from "./fakes/kit";
import { cardOf, rejection as failure, recorded, unitJob } from "./unit";

const base = env.PROVIDER_GOOGLE_BASE_URL as unknown as string;
const KEY = fakeKey("google");

function config(overrides: Record<string, unknown> = {}) {
  const c = providerConfig(env, "google", googleAdapter.defaultBaseUrl);
  if (!c) throw new Error("PROVIDER_GOOGLE_API_KEY is not set for the providers project");
  return { ...c, ...overrides };
}

function context(overrides: Record<string, unknown> = {}): ProviderContext {
  return {
    env,
    now: Date.now(),
    config: config(overrides),
    inputs: {
      url: async (input) => `https://gateway.test/inputs/${input.key}`,
      bytes: async (input) => {
        const object = await env.ARTIFACTS.get(input.key);
        if (!object) throw new Error(`no bytes for ${input.key}`);
        return new Uint8Array(await object.arrayBuffer());
      },
    },
    webhookUrl: null,
  };
}

function job<C extends MediaCapability>(
  capability: C,
  model: string,
  request: RequestByCapability[C],
  inputs: JobInput[] = [],
): JobFor<C> {
  return unitJob({ capability, model, card: cardOf(model, capability), inputs, request });
}

function imageRequest(prompt: string, extra: Partial<ImageRequest> = {}): ImageRequest {
  return {
    prompt,
    count: 1,
    dimensions: { width: 1376, height: 768 },
    canvas: { type: "preset", tier: "1K", aspect: "16:9" },
    output_relationship: "independent",
    ...extra,
  };
}

function videoRequest(prompt: string, extra: Partial<VideoRequest> = {}): VideoRequest {
  return {
    prompt,
    duration: 6,
    aspect_ratio: "16:9",
    resolution: "720p",
    watermark: false,
    generate_audio: true,
    web_search: false,
    return_last_frame: false,
    output_format: "mp4",
    ...extra,
  };
}

async function pngInput(key: string, width: number, height: number, field = "images", role?: string): Promise<JobInput> {
  const bytes = await encodePng(width, height, new Uint8Array(width * height * 3).fill(90), 3);
  await env.ARTIFACTS.put(key, bytes);
  return { field, key, kind: "image", mime: "image/png", bytes: bytes.length, width, height, ...(role ? { role } : {}) };
}

async function mp4Input(key: string, field = "video", seconds = 3): Promise<JobInput> {
  const bytes = isoFile({
    brand: "isom",
    movie: { timescale: 1000, duration: seconds * 1000 },
    tracks: [{ handler: "vide", width: 640, height: 360, timescale: 12800, duration: seconds * 12800 }],
  });
  await env.ARTIFACTS.put(key, bytes);
  return {
    field,
    key,
    kind: "video",
    mime: "video/mp4",
    bytes: bytes.length,
    width: 640,
    height: 360,
    duration_seconds: seconds,
  };
}

async function seen(tag: string): Promise<Recorded[]> {
  return recorded<Recorded>(base, tag);
}

/** The body of the tag's `n`th request (an empty object when there is none). */
async function bodyOf(tag: string, n = 0): Promise<any> {
  return (await seen(tag))[n]?.body ?? {};
}

const tag = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}`;

/** Polls an operation handle until it leaves "running" (the fake finishes on its third read). */
async function settle(handle: ProviderHandle, j: JobFor<any>, ctx: ProviderContext) {
  const states: string[] = [];
  for (let i = 0; i < 10; i++) {
    const r = await googleAdapter.poll(handle, j, { ...ctx, now: Date.now() });
    states.push(r.state);
    if (r.state !== "running" && r.state !== "queued") return { result: r, states };
  }
  throw new Error(`still running after 10 polls: ${states.join(",")}`);
}

// ---------------------------------------------------------------- images

describe("google images", () => {
  it("maps a generation to generateContent with imageConfig, stages the answer and skips thought images", async () => {
    const t = tag("gen");
    const j = job("text_to_image", "gemini-3-pro-image", imageRequest(`A lighthouse at dawn #tag:${t}`));
    const ctx = context();
    const handle = await googleAdapter.submit(j, ctx);

    const [req] = await seen(t);
    expect(req?.path).toBe("/v1beta/models/gemini-3-pro-image:generateContent");
    expect(req?.headers["x-goog-api-key"]).toBe(KEY);
    expect(req?.body).toEqual({
      contents: [{ role: "user", parts: [{ text: `A lighthouse at dawn #tag:${t}` }] }],
      generationConfig: { responseModalities: ["TEXT", "IMAGE"], imageConfig: { aspectRatio: "16:9", imageSize: "1K" } },
    });

    expect(handle.job_id).toMatch(/^resp/);
    expect(handle.data?.staging_key).toMatch(new RegExp(`^staging/${j.task_id}/`));
    expect(await googleAdapter.poll(handle, j, ctx)).toEqual({ state: "succeeded" });
    const result = await googleAdapter.fetchResult(handle, j, ctx);
    // The fake's 64x64 draft (a `thought` part) is not an output.
    expect(result.outputs).toHaveLength(1);
    expect(result.outputs[0]).toMatchObject({ kind: "image", content_type: "image/png", width: 1376, height: 768, index: 0 });
    expect(result.usage.input_tokens).toBeGreaterThan(0);
    expect(result.usage.output_tokens).toBeGreaterThan(1000);
    expect(result.usage.reasoning_tokens).toBe(180);
    expect(result.metadata).toMatchObject({ provider: "google", model: "gemini-3-pro-image" });
    expect(await googleAdapter.cancel(handle, j, ctx)).toBe("not_cancelable");
  });

  it("sends edit inputs inline after the prompt, and maps reasoning to a thinking level where the card offers the choice", async () => {
    const t = tag("edit");
    const a = await pngInput(`in/${t}/a.png`, 320, 192);
    const b = await pngInput(`in/${t}/b.png`, 64, 64);
    const j = job(
      "image_edit",
      "gemini-nano-banana-2.1",
      imageRequest(`Paint the sky red #tag:${t}`, {
        canvas: { type: "preset", tier: "2K", aspect: "source" },
        dimensions: { width: 2752, height: 1536 },
      }),
      [a, b],
    );
    const handle = await googleAdapter.submit(j, context());
    const body = await bodyOf(t, 0);
    const parts = body.contents[0].parts;
    expect(parts[0]).toEqual({ text: `Paint the sky red #tag:${t}` });
    expect(parts.slice(1).map((p: any) => p.inlineData.mimeType)).toEqual(["image/png", "image/png"]);
    const sent = Uint8Array.from(atob(parts[1].inlineData.data), (c) => c.charCodeAt(0));
    expect(sent.length).toBe(a.bytes);
    // Aspect `source` is resolved to pixels by the service; Gemini is told the nearest of its own ratios.
    expect(body.generationConfig.imageConfig).toEqual({ aspectRatio: "16:9", imageSize: "2K" });
    expect(body.generationConfig.thinkingConfig).toBeUndefined();
    expect(handle.data?.outcome).toBeUndefined();

    const t2 = tag("think");
    await googleAdapter.submit(
      job("text_to_image", "gemini-nano-banana-2.1", imageRequest(`x #tag:${t2}`, { reasoning: false })),
      context(),
    );
    expect((await bodyOf(t2, 0)).generationConfig.thinkingConfig).toEqual({ thinkingLevel: "minimal" });
    // Gemini 3 Pro Image always thinks: `true` is its default and nothing is sent.
    const t3 = tag("pro");
    await googleAdapter.submit(
      job("text_to_image", "gemini-3-pro-image", imageRequest(`x #tag:${t3}`, { reasoning: true })),
      context(),
    );
    expect((await bodyOf(t3, 0)).generationConfig.thinkingConfig).toBeUndefined();
  });

  it("picks Gemini's aspect and size from the canvas, else from the pixels", () => {
    expect(
      aspectFor(
        imageRequest("x", { canvas: { type: "preset", tier: "1K", aspect: "source" }, dimensions: { width: 1184, height: 864 } }),
      ),
    ).toBe("4:3");
    expect(
      aspectFor(
        imageRequest("x", { canvas: { type: "target", width: 900, height: 1600 }, dimensions: { width: 900, height: 1600 } }),
      ),
    ).toBe("9:16");
    expect(sizeFor(imageRequest("x", { canvas: { type: "preset", tier: "4K", aspect: "1:1" } }))).toBe("4K");
    expect(sizeFor(imageRequest("x", { canvas: undefined, dimensions: { width: 2048, height: 2048 } }))).toBe("2K");
  });

  it("fails a blocked prompt as safety_rejected and a filtered image as content_filtered, at poll, without a second call", async () => {
    const ti = tag("si");
    const input = job("text_to_image", "gemini-3-pro-image", imageRequest(`x #tag:${ti} #fake:safety_input`));
    const ctx = context();
    const h1 = await googleAdapter.submit(input, ctx);
    expect(await googleAdapter.poll(h1, input, ctx)).toMatchObject({ state: "failed", error: { code: "safety_rejected" } });
    expect(((await googleAdapter.poll(h1, input, ctx)) as any).error.message).toContain("PROHIBITED_CONTENT");

    const to = tag("so");
    const output = job("text_to_image", "gemini-3-pro-image", imageRequest(`x #tag:${to} #fake:safety_output`));
    const h2 = await googleAdapter.submit(output, ctx);
    expect(await googleAdapter.poll(h2, output, ctx)).toMatchObject({ state: "failed", error: { code: "content_filtered" } });
    expect((await seen(to)).filter((r) => r.kind === "submit")).toHaveLength(1);
    // A crash before the handle was kept finds the verdict again.
    const found = (await googleAdapter.reconcile?.(output, ctx, 0)) as ProviderHandle;
    expect(found.data?.outcome).toBe("content_filtered");
  });

  it("reads the finish reasons of an image answer without an image", () => {
    const answer = (candidate: unknown) => new TextEncoder().encode(JSON.stringify({ candidates: [candidate] }));
    const words = { content: { parts: [{ text: "I can't draw that." }] } };
    expect(verdictOf(answer({ ...words, finishReason: "STOP" }), true)).toMatchObject({ outcome: "content_filtered" });
    expect(verdictOf(answer({ finishReason: "NO_IMAGE" }), true)?.outcome).toBe("content_filtered");
    expect(verdictOf(answer({ finishReason: "IMAGE_PROHIBITED_CONTENT" }), true)?.outcome).toBe("content_filtered");
    expect(verdictOf(answer({ finishReason: "RECITATION" }), false)?.outcome).toBe("content_filtered");
    // Not a safety outcome: refused later as an unusable answer.
    expect(verdictOf(answer({ finishReason: "MAX_TOKENS" }), true)).toBeNull();
    expect(verdictOf(answer({ ...words, finishReason: "STOP" }), false)).toBeNull();
    expect(
      verdictOf(new TextEncoder().encode(JSON.stringify({ promptFeedback: { blockReason: "OTHER" } })), false)?.outcome,
    ).toBe("safety_rejected");
  });

  it("stages a malformed 200 and refuses it at fetchResult", async () => {
    const j = job("text_to_image", "gemini-3-pro-image", imageRequest(`x #tag:${tag("bad")} #fake:malformed`));
    const ctx = context();
    const handle = await googleAdapter.submit(j, ctx);
    expect(await googleAdapter.poll(handle, j, ctx)).toEqual({ state: "succeeded" });
    const e = await failure(googleAdapter.fetchResult(handle, j, ctx));
    expect(e.code).toBe("model_output_invalid");
    expect(e.message).toMatch(/base64/);
  });

  it("reuses an answer already staged for the task instead of calling again", async () => {
    const t = tag("crash");
    const j = job("text_to_image", "gemini-3-pro-image", imageRequest(`once only #tag:${t}`));
    await env.ARTIFACTS.put(`staging/${j.task_id}/other`, "{}", { customMetadata: { provider: "openai" } });
    const first = await googleAdapter.submit(j, context());
    const again = await googleAdapter.submit(j, context());
    expect(again.data?.staging_key).toBe(first.data?.staging_key);
    expect(again.job_id).toBe(first.job_id);
    expect((await seen(t)).filter((r) => r.kind === "submit")).toHaveLength(1);
  });
});

// ---------------------------------------------------------------- understanding

describe("google understanding", () => {
  it("asks about images with mediaResolution and JSON mode, and splits usage so nothing is billed twice", async () => {
    const t = tag("i2t");
    const pic = await pngInput(`in/${t}/p.png`, 32, 32);
    const j = job(
      "image_to_text",
      "gemini-3.5-flash",
      {
        prompt: `What is this? #tag:${t} #cached`,
        detail: "high",
        response_format: "json",
        temperature: 0.2,
        max_output_tokens: 500,
      },
      [pic],
    );
    const ctx = context();
    const handle = await googleAdapter.submit(j, ctx);
    const body = await bodyOf(t, 0);
    expect(body.contents[0].parts[0].inlineData.mimeType).toBe("image/png");
    expect(body.contents[0].parts[1]).toEqual({ text: `What is this? #tag:${t} #cached` });
    expect(body.generationConfig).toEqual({
      temperature: 0.2,
      maxOutputTokens: 500,
      responseMimeType: "application/json",
      mediaResolution: "MEDIA_RESOLUTION_HIGH",
    });
    const result = await googleAdapter.fetchResult(handle, j, ctx);
    expect(JSON.parse(result.text as string).answer).toContain("Looking at 1 input(s)");
    expect(result.outputs).toEqual([]);
    const cached = result.usage.cache_read_tokens as number;
    expect(cached).toBeGreaterThan(0);
    expect(result.usage.reasoning_tokens).toBe(12);
    expect((result.usage.input_tokens ?? 0) + cached).toBeGreaterThan(258);
  });

  it("maps usageMetadata to the meters: cached out of input, thoughts apart from output", () => {
    expect(
      tokenUsage({
        promptTokenCount: 1000,
        cachedContentTokenCount: 600,
        candidatesTokenCount: 50,
        thoughtsTokenCount: 200,
        toolUsePromptTokenCount: 10,
      }),
    ).toEqual({ input_tokens: 410, output_tokens: 50, cache_read_tokens: 600, reasoning_tokens: 200 });
    expect(tokenUsage({ promptTokenCount: 5 })).toEqual({ input_tokens: 5, output_tokens: 0 });
  });

  it("sends a short video inline and bills the seconds read", async () => {
    const t = tag("v2t");
    const clip = await mp4Input(`in/${t}/clip.mp4`, "video", 3);
    const j = job(
      "video_to_text",
      "gemini-3.5-flash",
      { prompt: `Summarise #tag:${t}`, detail: "default", response_format: "text" },
      [clip],
    );
    const ctx = context();
    const handle = await googleAdapter.submit(j, ctx);
    const body = await bodyOf(t, 0);
    expect(body.contents[0].parts[0].inlineData.mimeType).toBe("video/mp4");
    expect(body.generationConfig).toEqual({});
    const result = await googleAdapter.fetchResult(handle, j, ctx);
    expect(result.text).toContain("Summarise");
    expect(result.usage.input_video_seconds).toBe(3);
  });

  it("uploads a video above the inline limit through the Files API, waits for ACTIVE and deletes it afterwards", async () => {
    const t = tag("files");
    const clip = await mp4Input(`in/${t}/${t}.mp4`, "video", 2);
    const j = job("video_to_text", "gemini-3.5-flash", { prompt: `Describe #tag:${t}`, detail: "low", response_format: "text" }, [
      clip,
    ]);
    // A limit below the clip's size, and 8 MiB slices means one finalizing chunk here.
    const ctx = context({ extra: { ...config().extra, inline_max_bytes: "100" } });
    const handle = await googleAdapter.submit(j, ctx);
    const upload = await seen(`video-${t}.mp4`);
    expect(upload[0]?.body).toEqual({ start: { size: clip.bytes, mimeType: "video/mp4", displayName: `video-${t}.mp4` } });
    expect(upload[0]?.headers["x-goog-upload-protocol"]).toBe("resumable");
    expect(upload[1]?.body).toEqual({ chunk: { offset: 0, bytes: clip.bytes, command: "upload, finalize" } });
    // PROCESSING on the first read, ACTIVE on the second; deleted once the answer was in.
    expect(upload.filter((r) => r.kind === "status")).toHaveLength(2);
    expect(upload.at(-1)?.method).toBe("DELETE");
    const body = await bodyOf(t, 0);
    expect(body.contents[0].parts[0].fileData).toEqual({
      mimeType: "video/mp4",
      fileUri: expect.stringMatching(`^${base}/v1beta/files/`),
    });
    expect(body.generationConfig.mediaResolution).toBe("MEDIA_RESOLUTION_LOW");
    const result = await googleAdapter.fetchResult(handle, j, ctx);
    expect(result.text).toContain("Looking at 1 input(s) (video/mp4)");
  });

  it("refuses an answer without text at fetchResult", async () => {
    const pic = await pngInput(`in/${tag("m")}/p.png`, 16, 16);
    const j = job(
      "image_to_text",
      "gemini-3.5-flash",
      { prompt: `x #tag:${tag("um")} #fake:malformed`, detail: "auto", response_format: "text" },
      [pic],
    );
    const ctx = context();
    const handle = await googleAdapter.submit(j, ctx);
    expect((await failure(googleAdapter.fetchResult(handle, j, ctx))).code).toBe("model_output_invalid");
  });
});

// ---------------------------------------------------------------- video

describe("google video operations", () => {
  it("submits predictLongRunning, keeps the operation name, polls to done and hands over the download with the key", async () => {
    const t = tag("t2v");
    const j = job(
      "text_to_video",
      "gemini-omni-1.2-flash",
      videoRequest(`A fox #tag:${t}`, { resolution: "2160p", seed: 42, negative_prompt: "rain" }),
    );
    const ctx = context();
    const handle = await googleAdapter.submit(j, ctx);
    const [req] = await seen(t);
    expect(req?.path).toBe("/v1beta/models/gemini-omni-1.2-flash:predictLongRunning");
    expect(req?.body).toEqual({
      instances: [{ prompt: `A fox #tag:${t}` }],
      parameters: { sampleCount: 1, durationSeconds: 6, aspectRatio: "16:9", resolution: "4k", negativePrompt: "rain", seed: 42 },
    });
    expect(handle.job_id).toMatch(/^models\/gemini-omni-1\.2-flash\/operations\//);

    const first = await googleAdapter.poll(handle, j, ctx);
    expect(first).toMatchObject({ state: "running", progress: { stage: "generating" } });
    expect((first as any).progress.percent).toBeGreaterThan(0);
    const { result, states } = await settle(handle, j, ctx);
    expect(result).toEqual({ state: "succeeded" });
    expect(states).toEqual(["running", "succeeded"]);

    const out = await googleAdapter.fetchResult(handle, j, ctx);
    expect(out.outputs).toHaveLength(1);
    const video = out.outputs[0] as any;
    expect(video).toMatchObject({ kind: "video", content_type: "video/mp4", headers: { "x-goog-api-key": KEY } });
    expect(video.url).toMatch(new RegExp(`^${base}/v1beta/files/[^/]+:download\\?alt=media$`));
    expect(out.usage).toEqual({});
    expect(await googleAdapter.cancel(handle, j, ctx)).toBe("not_cancelable");

    // The service's downloader: the key reaches the API host only, not the storage it redirects to.
    const key = `test/google/${t}.mp4`;
    const got = await downloadToR2(env.ARTIFACTS, key, video, {
      policy: policyFrom(env),
      maxBytes: 10_000_000,
      customMetadata: {},
    });
    expect(got.bytes).toBeGreaterThan(0);
    const blob = (await seen(t)).find((r) => (r.body as any)?.blob);
    expect(blob?.body).toEqual({ blob: true, key_sent: false });
    // Without the key Google refuses the download.
    expect((await fetch(video.url, { redirect: "manual" })).status).toBe(403);
  });

  it("sends frames, references and an extension's source in Google's shapes", async () => {
    const t = tag("frames");
    const first = await pngInput(`in/${t}/f.png`, 64, 36, "first_frame");
    const last = await pngInput(`in/${t}/l.png`, 64, 36, "last_frame");
    const fj = job("frames_to_video", "gemini-omni-1.1-flash", videoRequest(`Morph #tag:${t}`), [first, last]);
    await googleAdapter.submit(fj, context());
    const fb = await bodyOf(t, 0);
    expect(fb.instances[0].image).toEqual({ bytesBase64Encoded: expect.any(String), mimeType: "image/png" });
    expect(fb.instances[0].lastFrame.mimeType).toBe("image/png");
    expect(fb.parameters.aspectRatio).toBeUndefined();

    const tr = tag("refs");
    const subject = await pngInput(`in/${tr}/s.png`, 64, 64, "references", "subject");
    const style = await pngInput(`in/${tr}/y.png`, 64, 64, "references", "style");
    await googleAdapter.submit(
      job("reference_to_video", "gemini-omni-1.2-flash", videoRequest(`Ad #tag:${tr}`), [subject, style]),
      context(),
    );
    const rb = await bodyOf(tr, 0);
    expect(rb.instances[0].referenceImages.map((r: any) => r.referenceType)).toEqual(["ASSET", "STYLE"]);

    const clip = await mp4Input(`in/${tr}/ref.mp4`, "references");
    const refused = await failure(
      googleAdapter.submit(
        job("reference_to_video", "gemini-omni-1.1-flash", videoRequest(`x #tag:${tag("vr")}`), [clip]),
        context(),
      ),
    );
    expect(refused).toMatchObject({ code: "unsupported_input_modality", retryable: false });

    const te = tag("ext");
    const source = await mp4Input(`in/${te}/src.mp4`, "video", 4);
    const ej = job(
      "video_extend",
      "gemini-omni-1.2-flash",
      videoRequest(`Keep going #tag:${te}`, { duration: 10, source_duration: 4, direction: "after" }),
      [source],
    );
    const ctx = context();
    const handle = await googleAdapter.submit(ej, ctx);
    const eb = await bodyOf(te, 0);
    expect(eb.instances[0].video).toEqual({ encodedVideo: expect.any(String), encoding: "video/mp4" });
    expect(eb.parameters.durationSeconds).toBe(6);
    await settle(handle, ej, ctx);
    expect((await googleAdapter.fetchResult(handle, ej, ctx)).usage).toEqual({ generated_video_seconds: 6 });
  });

  it("ends a filtered video content_filtered, never a success", async () => {
    for (const scenario of ["safety_output", "safety_input"]) {
      const j = job("text_to_video", "gemini-omni-1.2-flash", videoRequest(`x #tag:${tag("vf")} #fake:${scenario}`));
      const ctx = context();
      const { result } = await settle(await googleAdapter.submit(j, ctx), j, ctx);
      expect(result).toMatchObject({ state: "failed", error: { code: "content_filtered" } });
      expect((result as any).error.message).toContain("Support codes");
    }
  });

  it("sends the key only to the API host: Google's download URIs are rebuilt on it, others go without", () => {
    const proxy = { ...config(), baseUrl: "https://proxy.example/gemini", apiKey: "k-123456" };
    expect(downloadOf("https://generativelanguage.googleapis.com/v1beta/files/abc:download?alt=media", proxy)).toEqual({
      url: "https://proxy.example/gemini/v1beta/files/abc:download?alt=media",
      headers: { "x-goog-api-key": "k-123456" },
    });
    expect(downloadOf("https://storage.example/video.mp4?sig=1", proxy)).toEqual({
      url: "https://storage.example/video.mp4?sig=1",
    });
    expect(
      sessionUrl(
        "https://elsewhere.example/upload/v1beta/files?upload_id=9&upload_protocol=resumable",
        "https://proxy.example/gemini",
      ),
    ).toBe("https://proxy.example/gemini/upload/v1beta/files?upload_id=9&upload_protocol=resumable");
    expect(sessionUrl("https://elsewhere.example/steal", "https://proxy.example")).toBeNull();
  });

  it("maps a failed operation's google.rpc.Status", async () => {
    const j = job("text_to_video", "gemini-omni-1.2-flash", videoRequest(`x #tag:${tag("vfail")} #opfail:8`));
    const ctx = context();
    const { result } = await settle(await googleAdapter.submit(j, ctx), j, ctx);
    expect(result).toMatchObject({ state: "failed", error: { code: "model_rate_limited" } });
    expect((result as any).error.message).toContain("RESOURCE_EXHAUSTED");
    expect([1, 2, 3, 4, 7, 8, 13, 14, 16].map(codeForRpc)).toEqual([
      "model_request_failed",
      "model_request_failed",
      "model_request_failed",
      "model_timeout",
      "model_unavailable",
      "model_rate_limited",
      "model_request_failed",
      "model_unavailable",
      "model_unavailable",
    ]);
  });

  it("treats an undocumented state as running and a done operation without anything as malformed", async () => {
    const u = job("text_to_video", "gemini-omni-1.2-flash", videoRequest(`x #tag:${tag("vu")} #fake:unknown_status`));
    const ctx = context();
    const { states } = await settle(await googleAdapter.submit(u, ctx), u, ctx);
    expect(states).toEqual(["running", "running", "running", "running", "succeeded"]);

    const m = job("text_to_video", "gemini-omni-1.2-flash", videoRequest(`x #tag:${tag("vm")} #fake:malformed`));
    const e = await failure(googleAdapter.poll(await googleAdapter.submit(m, ctx), m, ctx));
    expect(e).toMatchObject({ code: "model_request_failed", malformed: true });
  });
});

// ---------------------------------------------------------------- errors

describe("google errors", () => {
  it("honours RetryInfo on 429 (no Retry-After header), and refuses without accepting", async () => {
    const t = tag("r429");
    const j = job("text_to_image", "gemini-3-pro-image", imageRequest(`x #tag:${t} #fake:submit_429`));
    const e = await failure(googleAdapter.submit(j, context()));
    expect(e).toMatchObject({ code: "model_rate_limited", retryable: true, accepted: "no", upstreamStatus: 429 });
    expect(e.retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect(e.message).toContain("RESOURCE_EXHAUSTED");
    await googleAdapter.submit(j, context());
    expect((await seen(t)).filter((r) => r.kind === "submit")).toHaveLength(2);
  });

  it("maps 5xx and 503 to retryable failures, for content and operations alike", async () => {
    const a = job("text_to_image", "gemini-3-pro-image", imageRequest(`x #tag:${tag("r5")} #fake:submit_5xx`));
    expect(await failure(googleAdapter.submit(a, context()))).toMatchObject({
      code: "model_request_failed",
      retryable: true,
      accepted: "no",
    });
    const b = job("text_to_video", "gemini-omni-1.2-flash", videoRequest(`x #tag:${tag("down")} #fake:down`));
    expect(await failure(googleAdapter.submit(b, context()))).toMatchObject({
      code: "model_unavailable",
      retryable: true,
      accepted: "no",
    });
  });

  it("reads Google's error bodies", () => {
    const body = (error: Record<string, unknown>) => JSON.stringify({ error });
    const badKey = body({
      code: 400,
      message: "API key not valid. Please pass a valid API key.",
      status: "INVALID_ARGUMENT",
      details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }],
    });
    expect(describeGoogle(400, badKey)).toMatchObject({ code: "model_unavailable", retryable: true });
    expect(
      describeGoogle(
        400,
        body({ code: 400, message: "User location is not supported for the API use.", status: "FAILED_PRECONDITION" }),
      ),
    ).toMatchObject({
      code: "model_unavailable",
    });
    expect(describeGoogle(400, body({ code: 400, message: "Invalid imageConfig", status: "INVALID_ARGUMENT" }))).toEqual({
      message: "Invalid imageConfig (INVALID_ARGUMENT)",
    });
    expect(describeGoogle(502, "<html>bad gateway</html>").message).toContain("bad gateway");
    const limited = statusOf(
      body({
        code: 429,
        status: "RESOURCE_EXHAUSTED",
        details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "37.5s" }],
      }),
    );
    expect(retryDelayMs(limited)).toBe(37_500);
    expect([durationMs("1s"), durationMs("0.250s"), durationMs("soon")]).toEqual([1000, 250, undefined]);
  });

  it("never shows the key when it is refused", async () => {
    const ctx = context({ apiKey: "AIzaSyWrongKey0123456789abcdefghij" });
    const e = await failure(
      googleAdapter.submit(job("text_to_image", "gemini-3-pro-image", imageRequest(`x #tag:${tag("auth")}`)), ctx),
    );
    expect(e).toMatchObject({ code: "model_unavailable", retryable: true, upstreamStatus: 400 });
    expect(e.message).toContain("API key not valid");
    expect(e.message).not.toContain("AIzaSyWrongKey");
  });
});

// ---------------------------------------------------------------- chat

function chatReq(body: Record<string, unknown>, stream = false, maxCompletionTokens = 1000): ChatUpstreamRequest {
  return { body: { model: "gemini-3.5-flash", ...body }, stream, maxCompletionTokens, requestId: "req_test" };
}

async function collect(chunks: AsyncIterator<ChatObject>): Promise<ChatObject[]> {
  const out: ChatObject[] = [];
  for (;;) {
    const next = await chunks.next();
    if (next.done) return out;
    out.push(next.value);
  }
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const e = await promise.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

const weather = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather by city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

describe("google chat", () => {
  const chat = () => googleChat(config());
  const signal = () => new AbortController().signal;

  it("translates an OpenAI request to generateContent and the answer back", async () => {
    const t = tag("chat");
    const png = "data:image/png;base64,iVBORw0KGgo=";
    const result = await chat().complete(
      chatReq({
        messages: [
          { role: "system", content: "Be brief." },
          { role: "developer", content: [{ type: "text", text: "Answer in English." }] },
          {
            role: "user",
            content: [
              { type: "text", text: `Describe #tag:${t} #cached` },
              { type: "image_url", image_url: { url: png } },
            ],
          },
        ],
        temperature: 0.3,
        top_p: 0.9,
        stop: "END",
        seed: 7,
        response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } },
        reasoning_effort: "low",
      }),
      signal(),
    );
    const [sent] = await seen(t);
    expect(sent?.path).toBe("/v1beta/models/gemini-3.5-flash:generateContent");
    expect(sent?.headers["x-goog-api-key"]).toBe(KEY);
    expect(sent?.body).toEqual({
      contents: [
        {
          role: "user",
          parts: [{ text: `Describe #tag:${t} #cached` }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }],
        },
      ],
      generationConfig: {
        maxOutputTokens: 1000,
        temperature: 0.3,
        topP: 0.9,
        seed: 7,
        stopSequences: ["END"],
        responseMimeType: "application/json",
        responseJsonSchema: { type: "object" },
        thinkingConfig: { thinkingLevel: "low" },
      },
      systemInstruction: { parts: [{ text: "Be brief.\n\nAnswer in English." }] },
    });
    expect(result.stream).toBe(false);
    const completion = (result as { completion: ChatObject }).completion;
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0].message.role).toBe("assistant");
    expect(JSON.parse(completion.choices[0].message.content).answer).toContain("Looking at 1 input(s)");
    expect(completion.choices[0].finish_reason).toBe("stop");
    const u = completion.usage;
    expect(u.completion_tokens_details.reasoning_tokens).toBe(12);
    expect(u.completion_tokens).toBeGreaterThan(12);
    expect(u.prompt_tokens_details.cached_tokens).toBe(Math.floor(u.prompt_tokens / 2));
    expect(u.total_tokens).toBe(u.prompt_tokens + u.completion_tokens);
  });

  it("round-trips tool calls with their thought signatures", async () => {
    const t = tag("tools");
    const ask = { role: "user", content: `Weather in Paris? #tag:${t} #call:get_weather` };
    const first = await chat().complete(chatReq({ messages: [ask], tools: [weather], tool_choice: "auto" }), signal());
    const sent = await bodyOf(t, 0);
    expect(sent.tools).toEqual([
      {
        functionDeclarations: [
          { name: "get_weather", description: "Weather by city", parametersJsonSchema: weather.function.parameters },
        ],
      },
    ]);
    expect(sent.toolConfig).toEqual({ functionCallingConfig: { mode: "AUTO" } });
    const choice = (first as { completion: ChatObject }).completion.choices[0];
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    const callMade = choice.message.tool_calls[0];
    expect(callMade).toMatchObject({
      type: "function",
      function: { name: "get_weather", arguments: '{"city":"Paris","days":2}' },
    });
    expect(callMade.id).toMatch(/^call_/);
    expect(callMade.extra_content.google.thought_signature).toMatch(/^sig-/);

    const second = await chat().complete(
      chatReq({
        messages: [ask, choice.message, { role: "tool", tool_call_id: callMade.id, content: '{"temp_c":18}' }],
        tools: [weather],
        tool_choice: { type: "function", function: { name: "get_weather" } },
      }),
      signal(),
    );
    const back = await bodyOf(t, 1);
    expect(back.contents[1]).toEqual({
      role: "model",
      parts: [
        {
          functionCall: { name: "get_weather", args: { city: "Paris", days: 2 } },
          thoughtSignature: callMade.extra_content.google.thought_signature,
        },
      ],
    });
    expect(back.contents[2]).toEqual({
      role: "user",
      parts: [{ functionResponse: { name: "get_weather", response: { temp_c: 18 } } }],
    });
    expect(back.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } });
    expect((second as { completion: ChatObject }).completion.choices[0].message.content).toContain('get_weather {"temp_c":18}');

    // A history from elsewhere (no signature) gets Google's documented bypass, so Gemini 3 accepts it.
    const foreign = toGemini(
      {
        messages: [
          ask,
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: "{}" } }],
          },
          { role: "tool", tool_call_id: "c1", content: "sunny" },
        ],
      },
      10,
    );
    expect(foreign.contents[1].parts[0].thoughtSignature).toBe("skip_thought_signature_validator");
    expect(foreign.contents[2].parts[0].functionResponse.response).toEqual({ output: "sunny" });
    const t2 = tag("foreign");
    const ok = await chat().complete(
      chatReq({
        messages: [
          { role: "user", content: `Weather? #tag:${t2}` },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: "{}" } }],
          },
          { role: "tool", tool_call_id: "c1", content: "sunny" },
        ],
        tools: [weather],
      }),
      signal(),
    );
    expect((ok as { completion: ChatObject }).completion.choices[0].message.content).toContain("sunny");
  });

  it("streams chat.completion.chunk objects with the role first, the finish reason and usage last", async () => {
    const t = tag("stream");
    const result = await chat().complete(
      chatReq({ messages: [{ role: "user", content: `Tell me a story #tag:${t}` }] }, true),
      signal(),
    );
    expect((await seen(t))[0]?.path).toBe("/v1beta/models/gemini-3.5-flash:streamGenerateContent?alt=sse");
    expect(result.stream).toBe(true);
    const chunks = await collect((result as { chunks: AsyncIterator<ChatObject> }).chunks);
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    expect(chunks[0]?.choices[0].delta.role).toBe("assistant");
    const text = chunks.flatMap((c) => c.choices.map((x: any) => x.delta?.content ?? "")).join("");
    expect(text).toBe(`You said: Tell me a story #tag:${t}`);
    expect(chunks.filter((c) => c.choices[0]?.finish_reason).map((c) => c.choices[0].finish_reason)).toEqual(["stop"]);
    const last = chunks.at(-1) as ChatObject;
    expect(last.choices).toEqual([]);
    expect(last.usage.completion_tokens_details.reasoning_tokens).toBe(12);

    const tc = tag("streamtool");
    const tools = await chat().complete(
      chatReq({ messages: [{ role: "user", content: `Weather? #tag:${tc} #call:get_weather` }], tools: [weather] }, true),
      signal(),
    );
    const toolChunks = await collect((tools as { chunks: AsyncIterator<ChatObject> }).chunks);
    const call = toolChunks.find((c) => c.choices[0]?.delta?.tool_calls)?.choices[0].delta.tool_calls[0];
    expect(call).toMatchObject({ index: 0, type: "function", function: { name: "get_weather" } });
    expect(toolChunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe("tool_calls");
  });

  it("maps MAX_TOKENS to length and a safety stop to content_filter, whole or streamed", async () => {
    const long = await chat().complete(
      chatReq({ messages: [{ role: "user", content: `A long answer please #tag:${tag("len")}` }] }, false, 2),
      signal(),
    );
    expect((long as { completion: ChatObject }).completion.choices[0].finish_reason).toBe("length");
    const filtered = await chat().complete(
      chatReq({ messages: [{ role: "user", content: `x #tag:${tag("f")} #fake:safety_output` }] }),
      signal(),
    );
    expect((filtered as { completion: ChatObject }).completion.choices[0].finish_reason).toBe("content_filter");
    const streamed = await chat().complete(
      chatReq({ messages: [{ role: "user", content: `x #tag:${tag("fs")} #fake:safety_output` }] }, true),
      signal(),
    );
    const chunks = await collect((streamed as { chunks: AsyncIterator<ChatObject> }).chunks);
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(["content_filter"]);
  });

  it("retries 429 before the first byte after Google's RetryInfo, and fails final errors in the public vocabulary", async () => {
    const t = tag("c429");
    const started = Date.now();
    await chat().complete(chatReq({ messages: [{ role: "user", content: `x #tag:${t} #fake:submit_429` }] }, true), signal());
    const submits = (await seen(t)).filter((r) => r.kind === "submit");
    expect(submits).toHaveLength(2);
    expect((submits[1] as Recorded).at - (submits[0] as Recorded).at).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);

    const down = tag("cdown");
    const e = await rejection(
      chat().complete(chatReq({ messages: [{ role: "user", content: `x #tag:${down} #fake:down` }] }), signal()),
    );
    expect(e.code).toBe("model_unavailable");
    expect(e.details).toMatchObject({ upstream_status: 503, upstream_code: "UNAVAILABLE" });
    expect((await seen(down)).filter((r) => r.kind === "submit")).toHaveLength(3);

    const blocked = await rejection(
      chat()
        .complete(chatReq({ messages: [{ role: "user", content: `x #tag:${tag("cb")} #fake:safety_input` }] }, true), signal())
        .then((r): Promise<unknown> => (r.stream ? collect(r.chunks) : Promise.resolve(r))),
    );
    expect(blocked.code).toBe("safety_rejected");

    const wrong = googleChat(config({ apiKey: "AIzaSyWrongKey0123456789abcdefghij" }));
    const refused = await rejection(
      wrong.complete(chatReq({ messages: [{ role: "user", content: `x #tag:${tag("ck")}` }] }), signal()),
    );
    expect(refused.code).toBe("model_request_failed");
    expect(refused.message).toContain("credentials");

    const broken = await chat().complete(
      chatReq({ messages: [{ role: "user", content: `x #tag:${tag("cm")} #fake:malformed` }] }, true),
      signal(),
    );
    const e2 = await rejection(collect((broken as { chunks: AsyncIterator<ChatObject> }).chunks));
    expect(e2.code).toBe("model_request_failed");
  });

  it("rewords Google's context-window refusal and counts usage OpenAI's way", () => {
    const tooLong = JSON.stringify({
      error: {
        code: 400,
        message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        status: "INVALID_ARGUMENT",
      },
    });
    expect(fromGoogleStatus(400, tooLong).code).toBe("context_length_exceeded");
    expect(
      fromGoogleStatus(429, JSON.stringify({ error: { code: 429, message: "quota", status: "RESOURCE_EXHAUSTED" } }), 3),
    ).toMatchObject({
      code: "model_rate_limited",
      retryAfter: 3,
    });
    expect(
      usageOf({ promptTokenCount: 100, cachedContentTokenCount: 40, candidatesTokenCount: 10, thoughtsTokenCount: 5 }),
    ).toEqual({
      prompt_tokens: 100,
      completion_tokens: 15,
      total_tokens: 115,
      prompt_tokens_details: { cached_tokens: 40 },
      completion_tokens_details: { reasoning_tokens: 5 },
    });
  });

  it("serves a live key's Gemini chat card end to end through the routing", async () => {
    const tenant = await newTenant({ credits: "100" });
    const t = tag("e2e");
    const res = await call("/v1/chat/completions", {
      key: tenant.api_key,
      body: { model: "gemini-3.5-flash", messages: [{ role: "user", content: `Describe a lighthouse #tag:${t}` }] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.model).toBe("gemini-3.5-flash");
    expect(res.json.choices[0].message.content).toContain("lighthouse");
    expect((await seen(t))[0]?.path).toBe("/v1beta/models/gemini-3.5-flash:generateContent");
    expect(Number(res.headers.get("X-Credits-Charged"))).toBeGreaterThan(0);
  });
});
