/**
 * The OpenAI media adapter against the OpenAI fake (test/providers/fakes/openai.ts): what it
 * sends, how it reads OpenAI's errors, and the staging of synchronous answers in R2.
 */
import { env } from "cloudflare:workers";
import { decode } from "fast-png";
import OpenAI, { toFile } from "openai";
import { describe, expect, it } from "vitest";
import { encodePng } from "../../src/media/png";
import type { ProviderContext } from "../../src/providers/adapter";
import { providerConfig } from "../../src/providers/config";
import { editMask } from "../../src/providers/edit-mask";
import type { JobFor, JobInput, MediaCapability, RequestByCapability } from "../../src/providers/jobs";
import { describeOpenAI } from "../../src/providers/openai/client";
import { openaiAdapter } from "../../src/providers/openai/index";
import { voiceFor } from "../../src/providers/openai/speech";
import { ProviderError, type ProviderHandle } from "../../src/providers/types";
import { fakeKey, type Recorded } from "./fakes/kit";
import { cardOf, recorded, rejection, unitJob } from "./unit";

const base = env.PROVIDER_OPENAI_BASE_URL as unknown as string;
const catalog = JSON.parse(env.TEST_CATALOG) as Record<string, string>;

function upstreamModel(model: string): string {
  const file = JSON.parse(catalog[`models/${model}.json`] as string) as {
    routes: { provider: string; upstream_model: string }[];
  };
  return file.routes.find((r) => r.provider === "openai")?.upstream_model as string;
}

const inputBytes = new Map<string, Uint8Array>();

function context(overrides: Partial<ProviderContext["config"]> = {}): ProviderContext {
  const config = providerConfig(env, "openai", openaiAdapter.defaultBaseUrl);
  if (!config) throw new Error("PROVIDER_OPENAI_API_KEY is not set for the providers project");
  return {
    env,
    now: Date.now(),
    config: { ...config, ...overrides },
    inputs: {
      url: async (input) => `https://gateway.test/inputs/${input.key}`,
      bytes: async (input) => {
        const bytes = inputBytes.get(input.key);
        if (!bytes) throw new Error(`no bytes for ${input.key}`);
        return bytes;
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
  return unitJob({ capability, model, upstream_model: upstreamModel(model), card: cardOf(model, capability), inputs, request });
}

function imageRequest(prompt: string, width = 1024, height = 1024, count = 1): RequestByCapability["text_to_image"] {
  return { prompt, count, dimensions: { width, height }, output_relationship: "independent" };
}

async function pngInput(key: string, width: number, height: number): Promise<JobInput> {
  const bytes = await encodePng(width, height, new Uint8Array(width * height * 3).fill(90), 3);
  inputBytes.set(key, bytes);
  return { field: "images", key, kind: "image", mime: "image/png", bytes: bytes.length, width, height };
}

async function seen(tag: string): Promise<Recorded[]> {
  return recorded<Recorded>(base, tag);
}

const tag = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}`;

describe("openai images", () => {
  it("maps a generation to /images/generations and reads the staged base64 answer", async () => {
    const t = tag("gen");
    const j = job("text_to_image", "gpt-image-2", imageRequest(`A lighthouse at dawn #tag:${t}`, 1360, 768, 2));
    const ctx = context();
    const handle = await openaiAdapter.submit(j, ctx);

    const [req] = await seen(t);
    expect(req?.path).toBe("/images/generations");
    expect(req?.authorization).toBe(`Bearer ${fakeKey("openai")}`);
    expect(req?.body).toEqual({
      model: "gpt-image-2",
      prompt: `A lighthouse at dawn #tag:${t}`,
      n: 2,
      size: "1360x768",
      output_format: "png",
    });

    expect(handle.job_id).toMatch(/^req_/);
    expect(handle.data?.staging_key).toMatch(new RegExp(`^staging/${j.task_id}/`));
    const staged = await env.ARTIFACTS.get(handle.data?.staging_key as string);
    expect(staged?.httpMetadata?.contentType).toBe("application/json");
    await staged?.arrayBuffer();

    expect(await openaiAdapter.poll(handle, j, ctx)).toEqual({ state: "succeeded" });
    const result = await openaiAdapter.fetchResult(handle, j, ctx);
    expect(result.outputs).toHaveLength(2);
    for (const [i, out] of result.outputs.entries()) {
      expect(out).toMatchObject({ kind: "image", content_type: "image/png", width: 1360, height: 768, index: i });
      expect("bytes" in out && out.bytes.length > 0).toBe(true);
    }
    expect(result.usage.input_tokens).toBeGreaterThan(0);
    expect(result.usage.output_tokens).toBeGreaterThan(0);
    expect(await openaiAdapter.cancel(handle, j, ctx)).toBe("not_cancelable");
  });

  it("sends edits as multipart with image[] bytes and a mask the size of the first image", async () => {
    const t = tag("edit");
    const a = await pngInput(`in/${t}/a.png`, 320, 192);
    const b = await pngInput(`in/${t}/b.png`, 64, 64);
    const j = job(
      "image_edit",
      "gpt-image-2",
      {
        ...imageRequest(`Paint the sky red #tag:${t}`),
        edit_regions: [{ image_index: 0, x: 0, y: 0, width: 0.5, height: 0.25 }],
      },
      [a, b],
    );
    const ctx = context();
    const handle = await openaiAdapter.submit(j, ctx);
    const [req] = await seen(t);
    expect(req?.path).toBe("/images/edits");
    const parts =
      (req?.body as { parts: { name: string; value?: string; size?: number; type?: string }[] } | undefined)?.parts ?? [];
    expect(parts.map((p) => p.name)).toEqual(["model", "prompt", "n", "size", "output_format", "image[]", "image[]", "mask"]);
    expect(Object.fromEntries(parts.filter((p) => p.value !== undefined).map((p) => [p.name, p.value]))).toEqual({
      model: "gpt-image-2",
      prompt: `Paint the sky red #tag:${t}`,
      n: "1",
      size: "1024x1024",
      output_format: "png",
    });
    const files = parts.filter((p) => p.name === "image[]");
    expect(files.map((f) => f.size)).toEqual([a.bytes, b.bytes]);
    expect(files.every((f) => f.type === "image/png")).toBe(true);
    const result = await openaiAdapter.fetchResult(handle, j, ctx);
    expect(result.outputs[0]).toMatchObject({ kind: "image", width: 1024, height: 1024 });
  });

  it("sends image-to-image inputs as image[] without a mask", async () => {
    const t = tag("i2i");
    const a = await pngInput(`in/${t}/a.png`, 128, 128);
    const j = job("image_to_image", "gpt-image-2", imageRequest(`Same scene in winter #tag:${t}`, 2048, 1152), [a]);
    await openaiAdapter.submit(j, context());
    const parts = ((await seen(t))[0]?.body as { parts: { name: string }[] } | undefined)?.parts ?? [];
    expect(parts.map((p) => p.name)).toEqual(["model", "prompt", "n", "size", "output_format", "image[]"]);
  });

  it("draws edit regions as transparent pixels of the mask", async () => {
    const mask = decode(await editMask(100, 40, [{ image_index: 0, x: 0.5, y: 0.5, width: 0.5, height: 0.5 }]));
    expect([mask.width, mask.height, mask.channels]).toEqual([100, 40, 4]);
    const alpha = (x: number, y: number) => mask.data[(y * 100 + x) * 4 + 3];
    expect(alpha(10, 10)).toBe(255);
    expect(alpha(49, 39)).toBe(255);
    expect(alpha(50, 20)).toBe(0);
    expect(alpha(99, 39)).toBe(0);
  });

  it("stages the answer of a malformed 200 and refuses it at fetchResult", async () => {
    for (const n of [1, 2]) {
      const t = tag(`bad${n}`);
      const j = job("text_to_image", "gpt-image-2", imageRequest(`x #tag:${t} #fake:malformed`, 1024, 1024, n));
      const ctx = context();
      const handle = await openaiAdapter.submit(j, ctx);
      const e = await rejection(openaiAdapter.fetchResult(handle, j, ctx));
      expect(e.code).toBe("model_output_invalid");
      expect(e.message).toMatch(n === 1 ? /b64_json/ : /base64/);
    }
  });

  it("reuses an answer already staged for the task instead of calling again", async () => {
    const t = tag("crash");
    const j = job("text_to_image", "gpt-image-2", imageRequest(`once only #tag:${t}`));
    // Another adapter's staged answer for the same task is not OpenAI's to reuse.
    await env.ARTIFACTS.put(`staging/${j.task_id}/other`, "{}", { customMetadata: { provider: "fal" } });
    const first = await openaiAdapter.submit(j, context());
    expect(first.data?.staging_key).not.toBe(`staging/${j.task_id}/other`);
    // The engine crashed before keeping the handle and submits again.
    const again = await openaiAdapter.submit(j, context());
    expect(again.data?.staging_key).toBe(first.data?.staging_key);
    expect(again.job_id).toBe(first.job_id);
    expect((await seen(t)).filter((r) => r.kind === "submit")).toHaveLength(1);
    const found = (await openaiAdapter.reconcile?.(j, context(), first.submitted_at - 60_000)) as ProviderHandle;
    expect(found.data?.staging_key).toBe(first.data?.staging_key);
  });
});

describe("openai errors", () => {
  it("maps 429 with Retry-After to model_rate_limited, refused (accepted no), then succeeds", async () => {
    const t = tag("r429");
    const j = job("text_to_image", "gpt-image-2", imageRequest(`x #tag:${t} #fake:submit_429`));
    const e = await rejection(openaiAdapter.submit(j, context()));
    expect(e).toMatchObject({
      code: "model_rate_limited",
      retryable: true,
      retryAfterMs: 1000,
      accepted: "no",
      upstreamStatus: 429,
    });
    await openaiAdapter.submit(j, context());
    expect((await seen(t)).length).toBe(2);
  });

  it("maps 5xx to retryable failures", async () => {
    const t = tag("r5xx");
    const j = job("text_to_image", "gpt-image-2", imageRequest(`x #tag:${t} #fake:submit_5xx`));
    expect(await rejection(openaiAdapter.submit(j, context()))).toMatchObject({
      code: "model_request_failed",
      retryable: true,
      accepted: "no",
    });
    const down = job("text_to_speech", "gpt-4o-mini-tts", speech(`x #tag:${tag("down")} #fake:down`));
    expect(await rejection(openaiAdapter.submit(down, context()))).toMatchObject({
      code: "model_unavailable",
      retryable: true,
      accepted: "no",
    });
  });

  it("maps moderation_blocked to safety_rejected (input) and content_filtered (output), never retryable", async () => {
    const input = job("text_to_image", "gpt-image-2", imageRequest(`x #tag:${tag("si")} #fake:safety_input`));
    expect(await rejection(openaiAdapter.submit(input, context()))).toMatchObject({
      code: "safety_rejected",
      retryable: false,
      accepted: "no",
    });
    const output = job("text_to_image", "gpt-image-2", imageRequest(`x #tag:${tag("so")} #fake:safety_output`));
    expect(await rejection(openaiAdapter.submit(output, context()))).toMatchObject({
      code: "content_filtered",
      retryable: false,
    });
  });

  it("reads OpenAI's error bodies", () => {
    const h = new Headers();
    const body = (error: Record<string, unknown>) => JSON.stringify({ error: { param: null, ...error } });
    expect(
      describeOpenAI(
        400,
        body({
          message: "Your request was rejected as a result of our safety system.",
          type: "invalid_request_error",
          code: "content_policy_violation",
        }),
        h,
      ),
    ).toMatchObject({ code: "safety_rejected", retryable: false });
    // The wording alone is enough when a proxy dropped the code.
    expect(describeOpenAI(400, body({ message: "Your request was rejected by the safety system.", code: null }), h).code).toBe(
      "safety_rejected",
    );
    expect(
      describeOpenAI(
        429,
        body({ message: "You exceeded your current quota", type: "insufficient_quota", code: "insufficient_quota" }),
        h,
      ),
    ).toMatchObject({
      code: "model_unavailable",
    });
    expect(describeOpenAI(400, body({ message: "Invalid size", type: "invalid_request_error", code: null }), h)).toEqual({
      message: "Invalid size",
    });
    expect(
      describeOpenAI(500, body({ message: "boom", type: "server_error" }), new Headers({ "x-should-retry": "false" })),
    ).toMatchObject({
      retryable: false,
    });
    expect(describeOpenAI(502, "<html>bad gateway</html>", h).message).toContain("bad gateway");
  });

  it("never shows the key when the credential is refused", async () => {
    const ctx = context({ apiKey: "sk-wrong-key-0123456789abcdefghij" });
    const e = await rejection(
      openaiAdapter.submit(job("text_to_image", "gpt-image-2", imageRequest(`x #tag:${tag("auth")}`)), ctx),
    );
    expect(e).toMatchObject({ code: "model_unavailable", upstreamStatus: 401 });
    expect(e.message).toContain("Incorrect API key");
    expect(e.message).not.toContain("sk-wrong-key");
  });
});

function speech(
  input: string,
  extra: Partial<RequestByCapability["text_to_speech"]> = {},
): RequestByCapability["text_to_speech"] {
  return { input, voice: "alloy", format: "mp3", speed: 1, volume: 1, pitch: 0, ...extra };
}

describe("openai speech", () => {
  it("maps the request, stages the audio and bills code points", async () => {
    const t = tag("tts");
    const input = `Héllo 👋 there #tag:${t}`;
    const j = job("text_to_speech", "gpt-4o-mini-tts", speech(input, { voice: "marin", speed: 1.25, emotion: "happy" }));
    const ctx = context();
    const handle = await openaiAdapter.submit(j, ctx);
    const [req] = await seen(t);
    expect(req?.path).toBe("/audio/speech");
    expect(req?.body).toEqual({
      model: "gpt-4o-mini-tts",
      input,
      voice: "marin",
      response_format: "mp3",
      speed: 1.25,
      instructions: "Speak in a happy tone.",
    });
    const result = await openaiAdapter.fetchResult(handle, j, ctx);
    expect(result.outputs).toHaveLength(1);
    expect(result.outputs[0]).toMatchObject({ kind: "audio", content_type: "audio/mpeg", index: 0 });
    expect(result.usage).toEqual({ characters: [...input].length });
    expect(result.usage.characters).toBeLessThan(input.length);
  });

  it("reads wav answers as audio/wav", async () => {
    const j = job("text_to_speech", "gpt-4o-mini-tts", speech(`wave #tag:${tag("wav")}`, { format: "wav" }));
    const ctx = context();
    const result = await openaiAdapter.fetchResult(await openaiAdapter.submit(j, ctx), j, ctx);
    expect(result.outputs[0]).toMatchObject({ content_type: "audio/wav" });
    expect(result.outputs[0]?.duration_seconds).toBeCloseTo(1, 1);
  });

  it("asks for AAC and the ends of OpenAI's speed range, and reads AAC answers as audio/aac", async () => {
    for (const speed of [0.25, 4]) {
      const t = tag(`aac${speed}`);
      const j = job("text_to_speech", "gpt-4o-mini-tts", speech(`aac #tag:${t}`, { format: "aac", speed }));
      const ctx = context();
      const result = await openaiAdapter.fetchResult(await openaiAdapter.submit(j, ctx), j, ctx);
      const [req] = await seen(t);
      expect(req?.body).toMatchObject({ response_format: "aac", speed });
      expect(result.outputs[0]).toMatchObject({ kind: "audio", content_type: "audio/aac" });
    }
  });

  it("refuses an empty audio answer at fetchResult", async () => {
    const j = job("text_to_speech", "gpt-4o-mini-tts", speech(`x #tag:${tag("tbad")} #fake:malformed`));
    const ctx = context();
    const handle = await openaiAdapter.submit(j, ctx);
    expect((await rejection(openaiAdapter.fetchResult(handle, j, ctx))).code).toBe("model_output_invalid");
  });

  it("maps catalog voice ids to OpenAI's voices", () => {
    expect(voiceFor("cedar")).toBe("cedar");
    expect(voiceFor("voice_1234")).toEqual({ id: "voice_1234" });
    expect(() => voiceFor("Calm_Woman")).toThrow(ProviderError);
  });
});

describe("openai video prompt enhancer", () => {
  it("asks chat completions with the service's system prompt and returns the text with token usage", async () => {
    const t = tag("enh");
    const pic = await pngInput(`in/${t}/ctx.png`, 32, 32);
    const j = job(
      "video_prompt_enhance",
      "video-prompt-enhancer",
      { prompt: `a fox in snow #tag:${t}`, target_model: "seedance-2.0", language: "ja", style: "handheld documentary" },
      [pic],
    );
    const ctx = context();
    const handle = await openaiAdapter.submit(j, ctx);
    const [req] = await seen(t);
    expect(req?.path).toBe("/chat/completions");
    const body = req?.body as Record<string, any>;
    expect(body.model).toBe("gpt-6-luna");
    expect(body.stream).toBe(false);
    expect(body.max_completion_tokens).toBe(8192);
    expect(body.messages[0].role).toBe("system");
    expect(body.messages[0].content).toContain("seedance-2.0");
    expect(body.messages[0].content).toContain("Japanese");
    expect(body.messages[0].content).toContain("handheld documentary");
    expect(body.messages[1].content[0]).toEqual({ type: "text", text: `a fox in snow #tag:${t}` });
    expect(body.messages[1].content[1].image_url.url).toMatch(/^data:image\/png;base64,/);

    expect(await openaiAdapter.poll(handle, j, ctx)).toEqual({ state: "succeeded" });
    const result = await openaiAdapter.fetchResult(handle, j, ctx);
    expect(result.outputs).toEqual([]);
    expect(result.text).toContain("a fox in snow");
    expect(result.usage.input_tokens).toBeGreaterThan(0);
    expect(result.usage.output_tokens).toBeGreaterThan(0);
  });

  it("fails the task at poll when OpenAI filtered the answer", async () => {
    const j = job("video_prompt_enhance", "video-prompt-enhancer", { prompt: `x #tag:${tag("enf")} #fake:safety_output` });
    const ctx = context();
    const handle = await openaiAdapter.submit(j, ctx);
    const polled = await openaiAdapter.poll(handle, j, ctx);
    expect(polled).toMatchObject({ state: "failed", error: { code: "content_filtered" } });
  });

  it("refuses a chat answer without choices at fetchResult", async () => {
    const j = job("video_prompt_enhance", "video-prompt-enhancer", { prompt: `x #tag:${tag("enm")} #fake:malformed` });
    const ctx = context();
    const handle = await openaiAdapter.submit(j, ctx);
    expect((await rejection(openaiAdapter.fetchResult(handle, j, ctx))).code).toBe("model_output_invalid");
  });
});

describe("the fake against the official client", () => {
  // The fake is written from the documentation; the official client's requests must be ones it accepts.
  const client = () => new OpenAI({ apiKey: fakeKey("openai"), baseURL: base, maxRetries: 0 });

  it("answers generations, edits and speech as the client expects", async () => {
    const gen = await client().images.generate({ model: "gpt-image-2", prompt: `x #tag:${tag("sdk")}`, size: "1024x1024", n: 1 });
    expect(gen.data?.[0]?.b64_json?.length).toBeGreaterThan(0);
    expect(gen.usage?.output_tokens).toBeGreaterThan(0);

    const t = tag("sdkedit");
    const png = await encodePng(64, 64, new Uint8Array(64 * 64 * 3), 3);
    const edit = await client().images.edit({
      model: "gpt-image-2",
      prompt: `x #tag:${t}`,
      image: [await toFile(png, "a.png", { type: "image/png" }), await toFile(png, "b.png", { type: "image/png" })],
    });
    expect(edit.data).toHaveLength(1);
    const parts = ((await seen(t))[0]?.body as { parts: { name: string }[] } | undefined)?.parts ?? [];
    expect(parts.filter((p) => p.name === "image[]")).toHaveLength(2);

    const audio = await client().audio.speech.create({
      model: "gpt-4o-mini-tts",
      voice: "coral",
      input: `hi #tag:${tag("sdktts")}`,
    });
    expect(audio.headers.get("content-type")).toBe("audio/mpeg");
    expect((await audio.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it("gives the client OpenAI's error shape", async () => {
    const e = await client()
      .images.generate({ model: "gpt-image-2", prompt: `x #tag:${tag("sdkerr")} #fake:safety_input` })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(e).toBeInstanceOf(OpenAI.BadRequestError);
    expect(e).toMatchObject({ status: 400, code: "moderation_blocked", type: "image_generation_user_error" });
  });
});
