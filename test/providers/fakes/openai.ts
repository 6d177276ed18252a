/**
 * A fake of OpenAI's media endpoints, written from OpenAI's API reference and its official
 * Node client (openai-node: resources/images.ts, audio/speech.ts, chat completions, core/error.ts):
 *   POST /images/generations  JSON → {created, data: [{b64_json}], output_format, size, quality, background, usage}
 *   POST /images/edits        multipart (`image[]` files, up to 16, < 50 MB each; optional `mask` PNG) → same answer
 *   POST /audio/speech        JSON {model, input ≤ 4096, voice, response_format, speed, instructions} → audio bytes
 *   POST /chat/completions    JSON, non-streaming → chat.completion with `usage`
 * Every path is also served under /v1 (the base URL may or may not carry it). Errors use
 * OpenAI's body `{error: {message, type, param, code}}`; every answer carries `x-request-id`.
 * All calls are synchronous, so of SCENARIOS only those about the submission apply; the rest answer "ok".
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { buildFixtures, flac, jpeg, oggOpus, wav, webpLossy } from "../../media/fixtures";
import { FakeServer, json, png, type RequestKind, readBody, type Scenario, scenariosOf, tagOf } from "./kit";

export const provider = "openai";

const VOICES = new Set([
  "alloy",
  "ash",
  "ballad",
  "coral",
  "echo",
  "fable",
  "onyx",
  "nova",
  "sage",
  "shimmer",
  "verse",
  "marin",
  "cedar",
]);
const SPEECH_FORMATS = new Set(["mp3", "opus", "aac", "flac", "wav", "pcm"]);
const IMAGE_FORMATS = new Set(["png", "jpeg", "webp"]);
const MAX_EDIT_IMAGES = 16;
const MAX_IMAGE_BYTES = 50 * 1024 * 1024;

let requestCounter = 0;
/** An `x-request-id` as OpenAI's API sends it (every OpenAI-format fake uses it). */
export const requestId = () => `req_${Date.now().toString(16)}${(++requestCounter).toString(16).padStart(8, "0")}`;

/** OpenAI's error answer: `{error: {message, type, param, code}}` with an `x-request-id`. */
export function error(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
  extra = {},
  headers: Record<string, string> = {},
) {
  json(res, status, { error: { message, type, param, code, ...extra } }, { "x-request-id": requestId(), ...headers });
}

const invalid = (res: ServerResponse, message: string, param: string | null = null) =>
  error(res, 400, message, "invalid_request_error", null, param);

/** The scenarios that apply to a synchronous call; a refusal is answered and true returned. */
function refused(
  res: ServerResponse,
  scenarios: Set<Scenario>,
  priorSubmits: number,
  endpoint: "images" | "speech" | "chat",
): boolean {
  if (scenarios.has("down")) {
    error(res, 503, "The server is overloaded or not ready yet.", "server_error", null);
    return true;
  }
  if (scenarios.has("submit_429") && priorSubmits === 0) {
    error(
      res,
      429,
      "Rate limit reached for requests per minute. Please try again in 1s.",
      "requests",
      "rate_limit_exceeded",
      null,
      {},
      {
        "retry-after": "1",
        "x-ratelimit-limit-requests": "5",
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": "1s",
      },
    );
    return true;
  }
  if (scenarios.has("submit_5xx") && priorSubmits === 0) {
    error(res, 500, "The server had an error while processing your request. Sorry about that!", "server_error", null);
    return true;
  }
  // The image safety system refuses with moderation_blocked; the stage says whether the prompt or the picture tripped it.
  if (endpoint === "images" && (scenarios.has("safety_input") || scenarios.has("safety_output"))) {
    const stage = scenarios.has("safety_input") ? "input" : "output";
    error(
      res,
      400,
      `Your request was rejected by the safety system. If you believe this is an error, contact us at help.openai.com and include the request ID ${requestId()}. safety_violations=[violence].`,
      "image_generation_user_error",
      "moderation_blocked",
      null,
      { moderation_details: { moderation_stage: stage, categories: ["violence"] } },
    );
    return true;
  }
  return false;
}

// ---------------------------------------------------------------- images

interface Size {
  width: number;
  height: number;
}

/** GPT image sizes: WxH with both sides multiples of 16, aspect 1:3..3:1, at most 3840 px and 3840x2160 pixels. */
function parseSize(size: unknown): Size | null | "auto" {
  if (size === undefined || size === "auto") return "auto";
  const m = typeof size === "string" ? /^(\d+)x(\d+)$/.exec(size) : null;
  if (!m) return null;
  const width = Number(m[1]);
  const height = Number(m[2]);
  const ok =
    width % 16 === 0 &&
    height % 16 === 0 &&
    Math.max(width, height) <= 3840 &&
    width * height <= 3840 * 2160 &&
    Math.max(width, height) / Math.min(width, height) <= 3 &&
    Math.min(width, height) >= 16;
  return ok ? { width, height } : null;
}

function imageFile(format: string, size: Size, seed: number): Uint8Array {
  if (format === "jpeg") return jpeg(size.width, size.height);
  if (format === "webp") return webpLossy(size.width, size.height);
  return png(size.width, size.height, seed);
}

function imagesAnswer(
  res: ServerResponse,
  body: Record<string, unknown>,
  size: Size,
  scenarios: Set<Scenario>,
  inputImages: number,
) {
  const n = Number(body.n ?? 1);
  const format = String(body.output_format ?? "png");
  if (scenarios.has("malformed")) {
    // A 200 whose images are missing or not base64.
    json(
      res,
      200,
      { created: Math.floor(Date.now() / 1000), data: n > 1 ? [{ b64_json: "%%not-base64%%" }] : [{}] },
      { "x-request-id": requestId() },
    );
    return;
  }
  const data = Array.from({ length: n }, (_, i) => ({ b64_json: Buffer.from(imageFile(format, size, i)).toString("base64") }));
  const prompt = String(body.prompt ?? "");
  const textTokens = Math.max(1, Math.ceil(prompt.length / 4));
  const imageTokens = inputImages * 323;
  const outputTokens = n * Math.ceil((size.width * size.height) / 1024);
  json(
    res,
    200,
    {
      created: Math.floor(Date.now() / 1000),
      background: "opaque",
      data,
      output_format: format,
      quality: body.quality && body.quality !== "auto" ? body.quality : "medium",
      size: `${size.width}x${size.height}`,
      usage: {
        input_tokens: textTokens + imageTokens,
        input_tokens_details: { image_tokens: imageTokens, text_tokens: textTokens },
        output_tokens: outputTokens,
        output_tokens_details: { image_tokens: outputTokens, text_tokens: 0 },
        total_tokens: textTokens + imageTokens + outputTokens,
      },
    },
    { "x-request-id": requestId() },
  );
}

/** Checks shared by both image endpoints: the size to render, or the 400 to answer. */
function imageParams(body: Record<string, unknown>): { size: Size | "auto" } | { message: string; param: string } {
  if (typeof body.prompt !== "string" || body.prompt.length === 0)
    return { message: "Missing required parameter: 'prompt'.", param: "prompt" };
  if (body.prompt.length > 32_000) return { message: "The prompt is longer than 32000 characters.", param: "prompt" };
  const n = body.n === undefined ? 1 : Number(body.n);
  if (!Number.isInteger(n) || n < 1 || n > 10) return { message: "Invalid 'n': must be between 1 and 10.", param: "n" };
  if (body.output_format !== undefined && !IMAGE_FORMATS.has(String(body.output_format)))
    return { message: "Invalid 'output_format': must be one of png, jpeg, webp.", param: "output_format" };
  // GPT image models always answer base64; response_format is for the DALL-E models only.
  if (body.response_format !== undefined) return { message: "Unknown parameter: 'response_format'.", param: "response_format" };
  const size = parseSize(body.size);
  if (size === null) return { message: `Invalid size '${String(body.size)}'.`, param: "size" };
  return { size };
}

/** Width and height from a PNG's IHDR (the mask must match the first image). */
function pngSize(bytes: Uint8Array): Size | null {
  if (bytes.length < 24 || bytes[0] !== 0x89 || bytes[1] !== 0x50) return null;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: v.getUint32(16), height: v.getUint32(20) };
}

interface Part {
  name: string;
  value?: string;
  filename?: string;
  type?: string;
  size?: number;
}

async function parseMultipart(
  req: IncomingMessage,
  raw: Buffer,
): Promise<{ fields: Record<string, string>; files: Map<string, Uint8Array[]>; parts: Part[] } | null> {
  const type = req.headers["content-type"] ?? "";
  if (!type.startsWith("multipart/form-data")) return null;
  const form = await new Request("http://fake.invalid/", {
    method: "POST",
    headers: { "content-type": type },
    body: raw,
  }).formData();
  const fields: Record<string, string> = {};
  const files = new Map<string, Uint8Array[]>();
  const parts: Part[] = [];
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") {
      fields[name] = value;
      parts.push({ name, value });
    } else {
      const bytes = new Uint8Array(await value.arrayBuffer());
      files.set(name, [...(files.get(name) ?? []), bytes]);
      parts.push({ name, filename: value.name, type: value.type, size: bytes.length });
    }
  }
  return { fields, files, parts };
}

// ---------------------------------------------------------------- speech and chat

async function speechFile(format: string): Promise<{ bytes: Uint8Array; type: string }> {
  switch (format) {
    case "wav":
      return { bytes: wav({ rate: 24_000, channels: 1, seconds: 1 }), type: "audio/wav" };
    case "flac":
      return { bytes: flac({ rate: 24_000, channels: 1, samples: 24_000 }), type: "audio/flac" };
    case "opus":
      return { bytes: oggOpus({ channels: 1, seconds: 1 }), type: "audio/ogg" };
    case "pcm":
      return { bytes: new Uint8Array(48_000), type: "audio/pcm" };
    case "aac": {
      // One ADTS frame header (AAC LC, 24 kHz, mono) over silence.
      const frame = new Uint8Array(64);
      frame.set([0xff, 0xf1, 0x58, 0x40, (64 >> 3) & 0xff, ((64 & 7) << 5) | 0x1f, 0xfc]);
      return { bytes: frame, type: "audio/aac" };
    }
    default:
      return { bytes: (await buildFixtures()).mp3 as Uint8Array, type: "audio/mpeg" };
  }
}

/** Every text part of the chat messages, in order. */
function chatText(messages: unknown): string {
  if (!Array.isArray(messages)) return "";
  const texts: string[] = [];
  for (const m of messages) {
    const content = (m as { content?: unknown })?.content;
    if (typeof content === "string") texts.push(content);
    else if (Array.isArray(content))
      for (const p of content) if (p?.type === "text" && typeof p.text === "string") texts.push(p.text);
  }
  return texts.join("\n");
}

function userText(messages: unknown): string {
  if (!Array.isArray(messages)) return "";
  return chatText(messages.filter((m) => (m as { role?: unknown })?.role === "user"));
}

// ---------------------------------------------------------------- server

const ROUTES: Record<string, "images" | "edits" | "speech" | "chat"> = {
  "/images/generations": "images",
  "/images/edits": "edits",
  "/audio/speech": "speech",
  "/chat/completions": "chat",
};

const MODELS = ["gpt-image-1", "gpt-image-1-mini", "gpt-4o-mini-tts", "gpt-4o-mini"];

function bearer(req: IncomingMessage): string | null {
  const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
  return m ? (m[1] as string) : null;
}

function unauthorized(res: ServerResponse): void {
  error(
    res,
    401,
    "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
    "invalid_request_error",
    "invalid_api_key",
  );
}

export async function start() {
  const server = new FakeServer();
  const { log } = server;
  const record = (tag: string, req: IncomingMessage, kind: RequestKind, body: unknown) => log.record(tag, req, kind, body);

  return server.listen(async (req, res, url) => {
    const path = url.pathname.replace(/^\/v1(?=\/)/, "");
    const route = ROUTES[path];
    const raw = await readBody(req);
    if (path === "/models" && req.method === "GET") {
      // The model list (docs "List models"): the cheapest call that reads the key.
      record("key-check", req, "list", null);
      if (!server.keys.accepts(provider, bearer(req))) return unauthorized(res);
      json(res, 200, {
        object: "list",
        data: MODELS.map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "system" })),
      });
      return;
    }
    if (!route || req.method !== "POST") {
      error(res, 404, `Invalid URL (${req.method} ${url.pathname})`, "invalid_request_error", null);
      return;
    }
    if (!server.keys.accepts(provider, bearer(req))) return unauthorized(res);
    if (server.keys.exhausted(bearer(req))) {
      // Docs "Error codes": 429 "You exceeded your current quota" — the account's credit, not a rate.
      error(
        res,
        429,
        "You exceeded your current quota, please check your plan and billing details.",
        "insufficient_quota",
        "insufficient_quota",
      );
      return;
    }

    if (route === "edits") {
      const form = await parseMultipart(req, raw).catch(() => null);
      if (!form) return invalid(res, "Expected a multipart/form-data body.");
      const tag = tagOf(form.fields.prompt ?? "");
      const prior = log.count(tag, "submit");
      record(tag, req, "submit", { parts: form.parts });
      const scenarios = scenariosOf(form.fields.prompt ?? "", provider);
      if (refused(res, scenarios, prior, "images")) return;
      const images = [...(form.files.get("image[]") ?? []), ...(form.files.get("image") ?? [])];
      if (images.length === 0) return invalid(res, "Missing required parameter: 'image'.", "image");
      if (images.length > MAX_EDIT_IMAGES) return invalid(res, `Too many images: at most ${MAX_EDIT_IMAGES}.`, "image");
      if (images.some((b) => b.length > MAX_IMAGE_BYTES)) return invalid(res, "Each image must be smaller than 50 MB.", "image");
      const params = imageParams({ ...form.fields, ...(form.fields.n ? { n: Number(form.fields.n) } : {}) });
      if ("message" in params) return invalid(res, params.message, params.param);
      const first = pngSize(images[0] as Uint8Array);
      const mask = form.files.get("mask")?.[0];
      if (mask) {
        const m = pngSize(mask);
        if (!m) return invalid(res, "The mask must be a PNG file.", "mask");
        if (first && (m.width !== first.width || m.height !== first.height))
          return invalid(res, "The mask and the image must have the same dimensions.", "mask");
      }
      const size = params.size === "auto" ? (first ?? { width: 1024, height: 1024 }) : params.size;
      return imagesAnswer(res, form.fields, size, scenarios, images.length);
    }

    let body: Record<string, any>;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return invalid(res, "We could not parse the JSON body of your request.");
    }

    if (route === "images") {
      const tag = tagOf(String(body.prompt ?? ""));
      const prior = log.count(tag, "submit");
      record(tag, req, "submit", body);
      const scenarios = scenariosOf(String(body.prompt ?? ""), provider);
      if (refused(res, scenarios, prior, "images")) return;
      const params = imageParams(body);
      if ("message" in params) return invalid(res, params.message, params.param);
      return imagesAnswer(res, body, params.size === "auto" ? { width: 1024, height: 1024 } : params.size, scenarios, 0);
    }

    if (route === "speech") {
      const input = typeof body.input === "string" ? body.input : "";
      const tag = tagOf(input);
      const prior = log.count(tag, "submit");
      record(tag, req, "submit", body);
      const scenarios = scenariosOf(input, provider);
      if (refused(res, scenarios, prior, "speech")) return;
      if (!input) return invalid(res, "Missing required parameter: 'input'.", "input");
      if ([...input].length > 4096) return invalid(res, "The input is longer than 4096 characters.", "input");
      const voice = body.voice;
      const voiceOk = (typeof voice === "string" && VOICES.has(voice)) || (typeof voice?.id === "string" && voice.id.length > 0);
      if (!voiceOk) return invalid(res, `Invalid value for 'voice': ${JSON.stringify(voice)}.`, "voice");
      const format = String(body.response_format ?? "mp3");
      if (!SPEECH_FORMATS.has(format)) return invalid(res, `Invalid value for 'response_format': ${format}.`, "response_format");
      const speed = body.speed === undefined ? 1 : Number(body.speed);
      if (!(speed >= 0.25 && speed <= 4)) return invalid(res, "Invalid 'speed': must be between 0.25 and 4.0.", "speed");
      if (scenarios.has("malformed")) {
        // A 200 that is not audio at all.
        res.writeHead(200, { "Content-Type": "audio/mpeg", "x-request-id": requestId() }).end();
        return;
      }
      const file = await speechFile(format);
      res
        .writeHead(200, { "Content-Type": file.type, "Content-Length": String(file.bytes.length), "x-request-id": requestId() })
        .end(file.bytes);
      return;
    }

    // chat completions
    const text = userText(body.messages);
    const tag = tagOf(text);
    const prior = log.count(tag, "submit");
    record(tag, req, "submit", body);
    const scenarios = scenariosOf(text, provider);
    if (refused(res, scenarios, prior, "chat")) return;
    if (typeof body.model !== "string" || !Array.isArray(body.messages) || body.messages.length === 0)
      return invalid(res, "Missing required parameter: 'model' or 'messages'.", "messages");
    if (body.stream === true) return invalid(res, "This fake serves non-streaming chat completions only.", "stream");
    if (scenarios.has("malformed")) {
      json(
        res,
        200,
        {
          id: "chatcmpl-fake",
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [],
        },
        { "x-request-id": requestId() },
      );
      return;
    }
    const filtered = scenarios.has("safety_output");
    const content = filtered
      ? null
      : `Enhanced video prompt: ${text.replace(/\s+/g, " ").trim()}. Slow dolly-in at golden hour, shallow depth of field.`;
    const promptTokens = Math.ceil(chatText(body.messages).length / 4);
    const completionTokens = content ? Math.ceil(content.length / 4) : 0;
    json(
      res,
      200,
      {
        id: `chatcmpl-${requestCounter + 1}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content, refusal: null, annotations: [] },
            logprobs: null,
            finish_reason: filtered ? "content_filter" : "stop",
          },
        ],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
          prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
          completion_tokens_details: {
            reasoning_tokens: 0,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
        },
        service_tier: "default",
      },
      { "x-request-id": requestId() },
    );
  });
}
