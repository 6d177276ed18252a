/**
 * A fake of the Gemini API (generativelanguage.googleapis.com), written from Google's API reference,
 * its guides (image generation, video generation, file input, Files API, thought signatures) and
 * the official JS SDK (@google/genai: the wire names of generateVideos, the resumable uploader):
 *
 *   POST /v1beta/models/{m}:generateContent                 JSON GenerateContentResponse
 *   POST /v1beta/models/{m}:streamGenerateContent?alt=sse   `data: {GenerateContentResponse}` events (JSON array without alt=sse)
 *   POST /v1beta/models/{m}:predictLongRunning              → Operation {name: "models/{m}/operations/{id}"}
 *   GET  /v1beta/models/{m}/operations/{id}                 → {name, done?, error?, response?: {generateVideoResponse}}
 *   GET  /v1beta/files/{id}:download?alt=media              the generated video; needs the key; 302 to storage
 *   POST /upload/v1beta/files (+ the session URL)           the Files API's resumable upload
 *   GET / DELETE /v1beta/files/{id}                         File {name, uri, mimeType, state: PROCESSING → ACTIVE}
 * Model operations have no cancel (CancelOperation is bound for batches only): `…:cancel` is 404.
 *
 * Authentication is `x-goog-api-key` (or `?key=`): none is 403 PERMISSION_DENIED, a wrong one 400
 * INVALID_ARGUMENT with ErrorInfo reason API_KEY_INVALID, as Google answers. Errors are
 * google.rpc.Status bodies `{error: {code, message, status, details}}`; 429 RESOURCE_EXHAUSTED says
 * when to come back in RetryInfo (`retryDelay: "1s"`), not in a Retry-After header.
 *
 * SCENARIOS in Gemini's shapes:
 *   safety_input    generateContent: 200 with `promptFeedback.blockReason` and no candidates;
 *                   predictLongRunning: a done operation whose raiMediaFilteredReasons name the prompt
 *   safety_output   images: finishReason IMAGE_SAFETY; text: finishReason SAFETY (streamed after some text);
 *                   video: a done operation with raiMediaFilteredCount and no samples
 *   expiring_output the video download URI answers once, then 404
 *   unknown_status  the operation answers twice with an undocumented metadata state, then goes on
 *   malformed       images: inlineData that is not base64; text: a candidate without content or
 *                   finishReason; video: `done: true` with neither response nor error
 *   slow            the operation never finishes
 *   submit_429 / submit_5xx / down   the first (every, for down) call of the tag is refused
 * Markers of this fake only: `#call:<function>` makes a text model call that declared function
 * (with a thoughtSignature), `#cached` reports half the prompt as cached, `#opfail:<rpc code>`
 * ends a video operation with that google.rpc.Status.
 * Requests are recorded by the `#tag:` of the prompt (for chat: the last user message with text).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isoFile } from "../../media/fixtures";
import { FakeServer, fakeKey, json, lifeStage, png, type RequestKind, readBody, type Scenario, scenariosOf, tagOf } from "./kit";

export const provider = "google";

const KEY = fakeKey(provider);
const IMAGE_MODELS = new Set(["gemini-3-pro-image", "gemini-nano-banana-2.1"]);
const VIDEO_MODEL = /^(gemini-omni-|veo-)/;
const ASPECTS = ["1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9"];

/** Google's Gemini 3 image sizes: pixels per imageSize and aspectRatio. */
const SIZES: Record<string, Record<string, [number, number]>> = {
  "1K": {
    "1:1": [1024, 1024],
    "16:9": [1376, 768],
    "9:16": [768, 1376],
    "4:3": [1200, 896],
    "3:4": [896, 1200],
    "3:2": [1264, 848],
    "2:3": [848, 1264],
    "4:5": [928, 1152],
    "5:4": [1152, 928],
    "21:9": [1584, 672],
  },
  "2K": {
    "1:1": [2048, 2048],
    "16:9": [2752, 1536],
    "9:16": [1536, 2752],
    "4:3": [2400, 1792],
    "3:4": [1792, 2400],
    "3:2": [2528, 1696],
    "2:3": [1696, 2528],
    "4:5": [1856, 2304],
    "5:4": [2304, 1856],
    "21:9": [3168, 1344],
  },
  "4K": {
    "1:1": [4096, 4096],
    "16:9": [5504, 3072],
    "9:16": [3072, 5504],
    "4:3": [4800, 3584],
    "3:4": [3584, 4800],
    "3:2": [5056, 3392],
    "2:3": [3392, 5056],
    "4:5": [3712, 4608],
    "5:4": [4608, 3712],
    "21:9": [6336, 2688],
  },
};

const VIDEO_PARAMETERS = new Set([
  "aspectRatio",
  "durationSeconds",
  "resolution",
  "negativePrompt",
  "sampleCount",
  "seed",
  "personGeneration",
  "enhancePrompt",
]);
const VIDEO_RESOLUTIONS: Record<string, number> = { "360p": 360, "720p": 720, "1080p": 1080, "4k": 2160 };

type Json = Record<string, any>;

let counter = 0;
const newId = (prefix = "") => `${prefix}${Date.now().toString(36)}${(++counter).toString(36).padStart(4, "0")}`;

// ---------------------------------------------------------------- errors

function gError(
  res: ServerResponse,
  code: number,
  status: string,
  message: string,
  details?: Json[],
  headers: Record<string, string> = {},
) {
  json(res, code, { error: { code, message, status, ...(details ? { details } : {}) } }, headers);
}

const invalid = (res: ServerResponse, message: string) => gError(res, 400, "INVALID_ARGUMENT", message);

function notFound(res: ServerResponse, what: string) {
  gError(res, 404, "NOT_FOUND", what);
}

/** The key check; answers and returns false when it fails. */
function authorized(req: IncomingMessage, url: URL, res: ServerResponse): boolean {
  const key = (req.headers["x-goog-api-key"] as string | undefined) ?? url.searchParams.get("key");
  if (!key) {
    gError(
      res,
      403,
      "PERMISSION_DENIED",
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    );
    return false;
  }
  if (key !== KEY) {
    gError(res, 400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "API_KEY_INVALID",
        domain: "googleapis.com",
        metadata: { service: "generativelanguage.googleapis.com" },
      },
      {
        "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
        locale: "en-US",
        message: "API key not valid. Please pass a valid API key.",
      },
    ]);
    return false;
  }
  return true;
}

/** The scenarios about a submission; a refusal is answered and true returned. */
function refused(res: ServerResponse, scenarios: Set<Scenario>, priorSubmits: number): boolean {
  if (scenarios.has("down")) {
    gError(res, 503, "UNAVAILABLE", "The model is overloaded. Please try again later.");
    return true;
  }
  if (scenarios.has("submit_429") && priorSubmits === 0) {
    gError(
      res,
      429,
      "RESOURCE_EXHAUSTED",
      "You exceeded your current quota, please check your plan and billing details. Please retry in 1s.",
      [
        {
          "@type": "type.googleapis.com/google.rpc.QuotaFailure",
          violations: [
            {
              quotaMetric: "generativelanguage.googleapis.com/generate_content_requests",
              quotaId: "GenerateRequestsPerMinutePerProjectPerModel",
              quotaValue: "10",
            },
          ],
        },
        {
          "@type": "type.googleapis.com/google.rpc.Help",
          links: [{ description: "Learn more", url: "https://ai.google.dev/gemini-api/docs/rate-limits" }],
        },
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" },
      ],
    );
    return true;
  }
  if (scenarios.has("submit_5xx") && priorSubmits === 0) {
    gError(
      res,
      500,
      "INTERNAL",
      "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
    );
    return true;
  }
  return false;
}

// ---------------------------------------------------------------- requests

function isBase64(s: unknown): s is string {
  return typeof s === "string" && s.length > 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0;
}

function textParts(content: Json | undefined): string[] {
  const parts: Json[] = Array.isArray(content?.parts) ? content.parts : [];
  return parts.filter((p) => typeof p?.text === "string").map((p) => p.text as string);
}

/** The text the fake reads its markers from: the last user content that has text. */
function promptText(contents: Json[]): string {
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i] as Json;
    if ((c.role ?? "user") !== "user") continue;
    const text = textParts(c).join("\n");
    if (text) return text;
  }
  return "";
}

function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

// ---------------------------------------------------------------- state

interface StoredFile {
  id: string;
  tag: string;
  bytes: Uint8Array;
  mimeType: string;
  displayName: string;
  /** Generated outputs are download-only; uploads go through PROCESSING first. */
  generated: boolean;
  once: boolean;
  served: number;
  reads: number;
  createTime: string;
}

interface Session {
  size: number;
  mimeType: string;
  displayName: string;
  chunks: Buffer[];
  received: number;
}

interface Operation {
  id: string;
  name: string;
  tag: string;
  scenarios: Set<Scenario>;
  reads: number;
  seconds: number;
  width: number;
  height: number;
  fileId?: string;
  failCode?: number;
}

export async function start() {
  const server = new FakeServer();
  const { log } = server;
  const files = new Map<string, StoredFile>();
  const sessions = new Map<string, Session>();
  const operations = new Map<string, Operation>();
  const blobs = new Map<string, { bytes: Uint8Array; type: string; tag: string }>();
  const record = (tag: string, req: IncomingMessage, kind: RequestKind, body: unknown) => log.record(tag, req, kind, body);

  function fileView(base: string, f: StoredFile): Json {
    const active = f.generated || f.reads > 1;
    return {
      name: `files/${f.id}`,
      displayName: f.displayName,
      mimeType: f.mimeType,
      sizeBytes: String(f.bytes.length),
      createTime: f.createTime,
      updateTime: f.createTime,
      expirationTime: new Date(Date.parse(f.createTime) + 48 * 3600 * 1000).toISOString(),
      sha256Hash: Buffer.from(f.id).toString("base64"),
      uri: `${base}/v1beta/files/${f.id}`,
      state: active ? "ACTIVE" : "PROCESSING",
      source: f.generated ? "GENERATED" : "UPLOADED",
      ...(f.mimeType.startsWith("video/") ? { videoMetadata: { videoDuration: "2.500s" } } : {}),
    };
  }

  /** A fileData URI of this fake, or null for an outside URL (Google fetches those itself). */
  function ownFile(base: string, uri: string): StoredFile | "missing" | null {
    if (!uri.startsWith(`${base}/v1beta/files/`)) return null;
    return files.get(uri.slice(`${base}/v1beta/files/`.length)) ?? "missing";
  }

  /** Checks the parts of every content; answers 4xx and returns false on the first bad one. */
  function checkContents(res: ServerResponse, base: string, contents: Json[], model: string): boolean {
    for (const [ci, c] of contents.entries()) {
      const parts: Json[] = Array.isArray(c?.parts) ? c.parts : [];
      if (parts.length === 0) {
        invalid(res, `* GenerateContentRequest.contents[${ci}].parts: contents.parts must not be empty.`);
        return false;
      }
      let callsInTurn = 0;
      for (const p of parts) {
        if (p.inlineData) {
          if (typeof p.inlineData.mimeType !== "string" || !isBase64(p.inlineData.data)) {
            invalid(res, `Invalid value at 'contents[${ci}].parts.inline_data.data' (TYPE_BYTES), Base64 decoding failed.`);
            return false;
          }
        }
        if (p.fileData) {
          const own = typeof p.fileData.fileUri === "string" ? ownFile(base, p.fileData.fileUri) : "missing";
          if (own === "missing") {
            gError(res, 403, "PERMISSION_DENIED", "You do not have permission to access the File or it may not exist.");
            return false;
          }
          if (own && fileView(base, own).state !== "ACTIVE") {
            gError(res, 400, "FAILED_PRECONDITION", `The File ${own.id} is not in an ACTIVE state and usage is not allowed.`);
            return false;
          }
        }
        if (p.functionCall) {
          // Gemini 3 validates the signature of the first function call of each model turn.
          if (callsInTurn === 0 && c.role === "model" && /^gemini-3/.test(model) && typeof p.thoughtSignature !== "string") {
            invalid(
              res,
              `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${p.functionCall.name}\` , position ${ci + 1}.`,
            );
            return false;
          }
          callsInTurn++;
        }
      }
    }
    return true;
  }

  // ------------------------------------------------------------ generateContent

  function usage(prompt: number, candidates: number, thoughts: number, cached: number): Json {
    return {
      promptTokenCount: prompt,
      candidatesTokenCount: candidates,
      totalTokenCount: prompt + candidates + thoughts,
      ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
      ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
      promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt }],
    };
  }

  /** The whole answer of a generateContent (a streamed one is this answer cut into events). */
  function generate(model: string, body: Json, scenarios: Set<Scenario>, text: string): { status: number; answer: Json } {
    const contents: Json[] = body.contents;
    const config: Json = body.generationConfig ?? {};
    const parts = contents.flatMap((c) => (Array.isArray(c.parts) ? c.parts : []));
    const media = parts.filter((p) => p.inlineData || p.fileData);
    const allText = contents.flatMap((c) => textParts(c)).join("\n");
    const promptTokens = tokens(allText) + media.length * 258;
    const cached = text.includes("#cached") ? Math.floor(promptTokens / 2) : 0;
    const meta = { modelVersion: model, responseId: newId("resp") };
    if (scenarios.has("safety_input")) {
      return {
        status: 200,
        answer: { promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: usage(promptTokens, 0, 0, 0), ...meta },
      };
    }
    const modalities: string[] = Array.isArray(config.responseModalities) ? config.responseModalities : ["TEXT"];
    if (IMAGE_MODELS.has(model) && modalities.map((m) => String(m).toUpperCase()).includes("IMAGE")) {
      const image = config.imageConfig ?? {};
      const size = String(image.imageSize ?? "1K");
      const aspect = String(image.aspectRatio ?? "1:1");
      const dims = SIZES[size]?.[aspect];
      if (!dims) {
        return {
          status: 400,
          answer: {
            error: {
              code: 400,
              message: `Invalid imageConfig: imageSize must be one of 1K, 2K, 4K and aspectRatio one of ${ASPECTS.join(", ")}.`,
              status: "INVALID_ARGUMENT",
            },
          },
        };
      }
      const thoughts = model === "gemini-3-pro-image" ? 180 : 0;
      const outTokens = size === "4K" ? 2000 : 1120;
      if (scenarios.has("safety_output")) {
        return {
          status: 200,
          answer: {
            candidates: [{ finishReason: "IMAGE_SAFETY", finishMessage: "Unable to show the generated image.", index: 0 }],
            usageMetadata: usage(promptTokens, 0, thoughts, cached),
            ...meta,
          },
        };
      }
      if (scenarios.has("malformed")) {
        return {
          status: 200,
          answer: {
            candidates: [
              {
                content: { role: "model", parts: [{ inlineData: { mimeType: "image/png", data: "%%not-base64%%" } }] },
                finishReason: "STOP",
                index: 0,
              },
            ],
            usageMetadata: usage(promptTokens, outTokens, thoughts, cached),
            ...meta,
          },
        };
      }
      const [w, h] = dims;
      const out: Json[] = [];
      // Gemini 3 Pro Image thinks in draft images first; those parts are marked `thought`.
      if (thoughts > 0) {
        out.push({ text: "Composing the scene…", thought: true });
        out.push({ inlineData: { mimeType: "image/png", data: Buffer.from(png(64, 64, 7)).toString("base64") }, thought: true });
      }
      out.push({ text: "Here is the image you asked for." });
      out.push({
        inlineData: { mimeType: "image/png", data: Buffer.from(png(w, h, counter % 200)).toString("base64") },
        thoughtSignature: "c2lnLWltYWdl",
      });
      return {
        status: 200,
        answer: {
          candidates: [{ content: { role: "model", parts: out }, finishReason: "STOP", index: 0 }],
          usageMetadata: usage(promptTokens, outTokens + 10, thoughts, cached),
          ...meta,
        },
      };
    }
    if (scenarios.has("malformed")) return { status: 200, answer: { candidates: [{}], ...meta } };
    const thoughts = config.thinkingConfig?.thinkingLevel === "minimal" ? 0 : 12;
    const last = contents[contents.length - 1] ?? {};
    const responses = (Array.isArray(last.parts) ? last.parts : []).filter((p: Json) => p.functionResponse);
    const declared: Json[] = (Array.isArray(body.tools) ? body.tools : []).flatMap((t: Json) =>
      Array.isArray(t.functionDeclarations) ? t.functionDeclarations : [],
    );
    const call = /#call:([A-Za-z0-9_-]+)/.exec(text)?.[1];
    if (responses.length === 0 && call && declared.some((d) => d.name === call)) {
      const args = { city: "Paris", days: 2 };
      return {
        status: 200,
        answer: {
          candidates: [
            {
              content: { role: "model", parts: [{ functionCall: { name: call, args }, thoughtSignature: `sig-${newId()}` }] },
              finishReason: "STOP",
              index: 0,
            },
          ],
          usageMetadata: usage(promptTokens, 9, thoughts, cached),
          ...meta,
        },
      };
    }
    let reply: string;
    if (responses.length > 0) {
      reply = `The tool answered: ${responses.map((p: Json) => `${p.functionResponse.name} ${JSON.stringify(p.functionResponse.response)}`).join("; ")}`;
    } else if (media.length > 0) {
      const kinds = media.map((p) => p.inlineData?.mimeType ?? p.fileData?.mimeType ?? "file").join(", ");
      reply = `Looking at ${media.length} input(s) (${kinds}): ${text.replace(/\s+/g, " ").trim()}`;
    } else {
      reply = `You said: ${text.replace(/\s+/g, " ").trim()}`;
    }
    if (config.responseMimeType === "application/json") reply = JSON.stringify({ answer: reply });
    const max = typeof config.maxOutputTokens === "number" ? config.maxOutputTokens : Number.POSITIVE_INFINITY;
    let finishReason = "STOP";
    if (tokens(reply) > max) {
      reply = reply.slice(0, Math.max(1, max * 4));
      finishReason = "MAX_TOKENS";
    }
    if (scenarios.has("safety_output")) finishReason = "SAFETY";
    return {
      status: 200,
      answer: {
        candidates: [
          {
            content: { role: "model", parts: scenarios.has("safety_output") ? [] : [{ text: reply }] },
            finishReason,
            index: 0,
            ...(finishReason === "SAFETY"
              ? { safetyRatings: [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true }] }
              : {}),
          },
        ],
        usageMetadata: usage(promptTokens, tokens(reply), thoughts, cached),
        ...meta,
      },
    };
  }

  function streamAnswer(res: ServerResponse, answer: Json, scenarios: Set<Scenario>, sse: boolean) {
    const events: Json[] = [];
    const candidate = answer.candidates?.[0];
    const parts: Json[] = candidate?.content?.parts ?? [];
    const text = parts
      .filter((p) => typeof p.text === "string" && !p.thought)
      .map((p) => p.text as string)
      .join("");
    const other = parts.filter((p) => typeof p.text !== "string");
    const meta = { modelVersion: answer.modelVersion, responseId: answer.responseId };
    const u = answer.usageMetadata ?? {};
    if (!candidate) {
      events.push(answer);
    } else {
      const cut = [
        text.slice(0, Math.ceil(text.length / 3)),
        text.slice(Math.ceil(text.length / 3), Math.ceil((2 * text.length) / 3)),
      ];
      if (scenarios.has("safety_output")) cut[0] = "Here is how one would ";
      for (const piece of cut.filter(Boolean)) {
        events.push({
          candidates: [{ content: { role: "model", parts: [{ text: piece }] }, index: 0 }],
          usageMetadata: { promptTokenCount: u.promptTokenCount, totalTokenCount: u.promptTokenCount },
          ...meta,
        });
      }
      const rest = scenarios.has("safety_output") ? "" : text.slice(Math.ceil((2 * text.length) / 3));
      events.push({
        candidates: [
          {
            content: { role: "model", parts: [...(rest ? [{ text: rest }] : []), ...other] },
            finishReason: candidate.finishReason,
            index: 0,
          },
        ],
        usageMetadata: u,
        ...meta,
      });
    }
    if (!sse) {
      json(res, 200, events);
      return;
    }
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    if (scenarios.has("malformed")) {
      res.end("data: {not json\r\n\r\n");
      return;
    }
    for (const e of events) res.write(`data: ${JSON.stringify(e)}\r\n\r\n`);
    res.end();
  }

  // ------------------------------------------------------------ video

  function frame(resolution: string, aspect: string): [number, number] {
    const short = VIDEO_RESOLUTIONS[resolution] ?? 720;
    const long = Math.round((short * 16) / 9 / 2) * 2;
    return aspect === "9:16" ? [short, long] : [long, short];
  }

  function checkImage(v: unknown, where: string): string | null {
    const i = v as Json;
    if (!i || typeof i !== "object") return `${where} must be an Image object.`;
    if (!isBase64(i.bytesBase64Encoded))
      return `Invalid value at '${where}.bytes_base64_encoded' (TYPE_BYTES), Base64 decoding failed.`;
    if (typeof i.mimeType !== "string" || !/^image\//.test(i.mimeType)) return `${where}.mimeType must be an image type.`;
    return null;
  }

  function predict(res: ServerResponse, base: string, req: IncomingMessage, model: string, body: Json) {
    const instance: Json = Array.isArray(body.instances) ? (body.instances[0] ?? {}) : {};
    const prompt = typeof instance.prompt === "string" ? instance.prompt : "";
    const tag = tagOf(prompt);
    const prior = log.count(tag, "submit");
    record(tag, req, "submit", body);
    const scenarios = scenariosOf(prompt, provider);
    if (refused(res, scenarios, prior)) return;
    if (!Array.isArray(body.instances) || body.instances.length !== 1) return invalid(res, "Exactly one instance is supported.");
    const parameters: Json = body.parameters ?? {};
    for (const k of Object.keys(parameters)) {
      if (!VIDEO_PARAMETERS.has(k))
        return invalid(res, `Invalid JSON payload received. Unknown name "${k}" at 'parameters': Cannot find field.`);
    }
    const aspect = String(parameters.aspectRatio ?? "16:9");
    if (!["16:9", "9:16"].includes(aspect)) return invalid(res, `Unsupported aspect ratio: ${aspect}. Supported: 16:9, 9:16.`);
    const resolution = String(parameters.resolution ?? "720p");
    if (!(resolution in VIDEO_RESOLUTIONS)) return invalid(res, `Unsupported resolution: ${resolution}.`);
    const seconds = parameters.durationSeconds === undefined ? 8 : Number(parameters.durationSeconds);
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > 30) return invalid(res, "durationSeconds is out of range.");
    if (parameters.sampleCount !== undefined && parameters.sampleCount !== 1)
      return invalid(res, "sampleCount must be 1 for this model.");
    if (!prompt && !instance.image && !instance.video) return invalid(res, "A prompt is required.");
    for (const field of ["image", "lastFrame"]) {
      if (instance[field] !== undefined) {
        const bad = checkImage(instance[field], `instances[0].${field}`);
        if (bad) return invalid(res, bad);
      }
    }
    if (instance.lastFrame && !instance.image) return invalid(res, "lastFrame requires image (the first frame).");
    if (instance.referenceImages !== undefined) {
      const refs: Json[] = Array.isArray(instance.referenceImages) ? instance.referenceImages : [];
      if (refs.length === 0 || refs.length > 3) return invalid(res, "referenceImages takes 1 to 3 images.");
      for (const [i, r] of refs.entries()) {
        const bad = checkImage(r?.image, `instances[0].referenceImages[${i}].image`);
        if (bad) return invalid(res, bad);
        if (!["ASSET", "STYLE"].includes(String(r?.referenceType)))
          return invalid(res, `Invalid referenceType: ${String(r?.referenceType)}.`);
      }
    }
    if (instance.video !== undefined) {
      const v: Json = instance.video ?? {};
      if (typeof v.uri === "string") {
        const own = ownFile(base, v.uri);
        if (own === "missing" || (own && fileView(base, own).state !== "ACTIVE")) {
          return gError(res, 400, "FAILED_PRECONDITION", "The input video is not an ACTIVE file.");
        }
      } else if (!isBase64(v.encodedVideo) || typeof v.encoding !== "string") {
        return invalid(res, "instances[0].video needs uri, or encodedVideo with encoding.");
      }
    }
    const id = newId("op");
    const [width, height] = frame(resolution, aspect);
    const failCode = Number(/#opfail:(\d+)/.exec(prompt)?.[1] ?? Number.NaN);
    const op: Operation = {
      id,
      name: `models/${model}/operations/${id}`,
      tag,
      scenarios,
      reads: 0,
      seconds,
      width,
      height,
      ...(Number.isInteger(failCode) ? { failCode } : {}),
    };
    operations.set(op.name, op);
    json(res, 200, { name: op.name });
  }

  function operation(res: ServerResponse, base: string, req: IncomingMessage, op: Operation) {
    op.reads++;
    record(op.tag, req, "status", null);
    if (op.scenarios.has("malformed")) return json(res, 200, { name: op.name, done: true });
    const stage = lifeStage(op.reads, op.scenarios);
    if (stage === "unknown") {
      return json(res, 200, {
        name: op.name,
        metadata: {
          "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningMetadata",
          state: "WARMING_UP",
        },
      });
    }
    if (stage === "queued") return json(res, 200, { name: op.name });
    if (stage === "running") return json(res, 200, { name: op.name, done: false });
    if (op.failCode !== undefined) {
      const words: Record<number, string> = {
        3: "INVALID_ARGUMENT",
        4: "DEADLINE_EXCEEDED",
        8: "RESOURCE_EXHAUSTED",
        13: "INTERNAL",
        14: "UNAVAILABLE",
      };
      return json(res, 200, {
        name: op.name,
        done: true,
        error: {
          code: op.failCode,
          message: `The operation failed (${words[op.failCode] ?? "UNKNOWN"}).`,
          status: words[op.failCode],
        },
      });
    }
    const type = "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse";
    if (op.scenarios.has("safety_input") || op.scenarios.has("safety_output")) {
      const reason = op.scenarios.has("safety_input")
        ? "Unable to generate videos because the prompt contains words that violate Google's Responsible AI practices. Try rephrasing the prompt. Support codes: 58061214"
        : "The generated video was removed because it may violate Google's Responsible AI practices. Support codes: 17301594";
      return json(res, 200, {
        name: op.name,
        done: true,
        response: { "@type": type, generateVideoResponse: { raiMediaFilteredCount: 1, raiMediaFilteredReasons: [reason] } },
      });
    }
    if (!op.fileId) {
      const bytes = isoFile({
        brand: "isom",
        movie: { timescale: 1000, duration: op.seconds * 1000 },
        tracks: [
          { handler: "vide", width: op.width, height: op.height, timescale: 12800, duration: op.seconds * 12800 },
          { handler: "soun", timescale: 48000, duration: op.seconds * 48000 },
        ],
      });
      op.fileId = newId("vid");
      files.set(op.fileId, {
        id: op.fileId,
        tag: op.tag,
        bytes,
        mimeType: "video/mp4",
        displayName: "",
        generated: true,
        once: op.scenarios.has("expiring_output"),
        served: 0,
        reads: 0,
        createTime: new Date().toISOString(),
      });
    }
    return json(res, 200, {
      name: op.name,
      done: true,
      response: {
        "@type": type,
        generateVideoResponse: { generatedSamples: [{ video: { uri: `${base}/v1beta/files/${op.fileId}:download?alt=media` } }] },
      },
    });
  }

  // ------------------------------------------------------------ files

  async function upload(req: IncomingMessage, res: ServerResponse, base: string, url: URL) {
    const raw = await readBody(req);
    const command = String(req.headers["x-goog-upload-command"] ?? "");
    const sid = url.searchParams.get("upload_id");
    if (!sid) {
      if (req.headers["x-goog-upload-protocol"] !== "resumable" || command !== "start") {
        return invalid(res, "Only the resumable upload protocol is supported here.");
      }
      const size = Number(req.headers["x-goog-upload-header-content-length"]);
      const mimeType = String(req.headers["x-goog-upload-header-content-type"] ?? "");
      if (!Number.isInteger(size) || size <= 0) return invalid(res, "X-Goog-Upload-Header-Content-Length is required.");
      if (size > 2 * 1024 * 1024 * 1024) return invalid(res, "Files are limited to 2 GB.");
      let displayName = "";
      try {
        const meta = JSON.parse(raw.toString("utf8") || "{}") as Json;
        displayName = String(meta.file?.display_name ?? meta.file?.displayName ?? "");
      } catch {
        return invalid(res, "The upload metadata is not JSON.");
      }
      const id = newId("up");
      sessions.set(id, { size, mimeType, displayName, chunks: [], received: 0 });
      record(displayName || "files", req, "other", { start: { size, mimeType, displayName } });
      res
        .writeHead(200, {
          "x-goog-upload-url": `${base}/upload/v1beta/files?upload_id=${id}&upload_protocol=resumable`,
          "x-goog-upload-status": "active",
          "x-goog-upload-chunk-granularity": "8388608",
        })
        .end();
      return;
    }
    const session = sessions.get(sid);
    if (!session) return notFound(res, "Upload session not found.");
    const offset = Number(req.headers["x-goog-upload-offset"]);
    if (offset !== session.received) {
      res.writeHead(400, { "x-goog-upload-status": "active" }).end(`Invalid offset ${offset}; expected ${session.received}.`);
      return;
    }
    if (
      !command
        .split(",")
        .map((c) => c.trim())
        .includes("upload")
    )
      return invalid(res, "X-Goog-Upload-Command must include upload.");
    session.chunks.push(raw);
    session.received += raw.length;
    record(session.displayName || "files", req, "other", { chunk: { offset, bytes: raw.length, command } });
    if (!command.includes("finalize")) {
      res.writeHead(200, { "x-goog-upload-status": "active" }).end();
      return;
    }
    sessions.delete(sid);
    if (session.received !== session.size) {
      res.writeHead(400, { "x-goog-upload-status": "final" }).end(`Received ${session.received} of ${session.size} bytes.`);
      return;
    }
    const file: StoredFile = {
      id: newId("f"),
      tag: session.displayName || "files",
      bytes: new Uint8Array(Buffer.concat(session.chunks)),
      mimeType: session.mimeType,
      displayName: session.displayName,
      generated: false,
      once: false,
      served: 0,
      reads: 0,
      createTime: new Date().toISOString(),
    };
    files.set(file.id, file);
    json(res, 200, { file: fileView(base, file) }, { "x-goog-upload-status": "final" });
  }

  return server.listen(async (req, res, url) => {
    const base = server.base;
    const path = url.pathname;

    // Storage behind the download redirect: no key wanted (and none should arrive).
    const blob = /^\/_blob\/([A-Za-z0-9]+)$/.exec(path);
    if (blob && req.method === "GET") {
      const found = blobs.get(blob[1] as string);
      if (found) record(found.tag, req, "other", { blob: true, key_sent: req.headers["x-goog-api-key"] !== undefined });
      if (!found) {
        res.writeHead(403, { "Content-Type": "application/xml" }).end("<Error><Code>AccessDenied</Code></Error>");
        return;
      }
      blobs.delete(blob[1] as string);
      res.writeHead(200, { "Content-Type": found.type, "Content-Length": String(found.bytes.length) }).end(found.bytes);
      return;
    }

    if (path.startsWith("/upload/v1beta/files") && req.method === "POST") {
      // The session URL is itself the credential of an upload in progress; its start needs the key.
      if (!url.searchParams.has("upload_id") && !authorized(req, url, res)) return;
      return upload(req, res, base, url);
    }

    const raw = await readBody(req);
    if (!authorized(req, url, res)) return;

    const download = /^\/v1beta\/files\/([A-Za-z0-9_-]+):download$/.exec(path);
    if (download && req.method === "GET") {
      const file = files.get(download[1] as string);
      if (file) record(file.tag, req, "download", null);
      if (!file || (file.once && file.served > 0)) return notFound(res, "File not found or expired.");
      file.served++;
      const token = newId("b").replace(/[^A-Za-z0-9]/g, "");
      blobs.set(token, { bytes: file.bytes, type: file.mimeType, tag: file.tag });
      res
        .writeHead(302, { Location: `${base}/_blob/${token}?Expires=${Math.floor(Date.now() / 1000) + 600}&Signature=fakesig` })
        .end();
      return;
    }

    const fileMatch = /^\/v1beta\/files\/([A-Za-z0-9_-]+)$/.exec(path);
    if (fileMatch) {
      const file = files.get(fileMatch[1] as string);
      if (!file)
        return gError(res, 403, "PERMISSION_DENIED", "You do not have permission to access the File or it may not exist.");
      if (req.method === "DELETE") {
        files.delete(file.id);
        record(file.tag, req, "other", { deleted: file.id });
        return json(res, 200, {});
      }
      if (req.method === "GET") {
        file.reads++;
        record(file.tag, req, "status", null);
        return json(res, 200, fileView(base, file));
      }
    }

    const op = /^\/v1beta\/(models\/[^/]+\/operations\/[A-Za-z0-9_-]+)$/.exec(path);
    if (op && req.method === "GET") {
      const found = operations.get(op[1] as string);
      if (!found) return notFound(res, `Operation ${op[1]} not found.`);
      return operation(res, base, req, found);
    }

    const method = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|predictLongRunning)$/.exec(path);
    if (!method || req.method !== "POST") return notFound(res, `Method not found: ${req.method} ${path}`);
    const model = method[1] as string;
    const verb = method[2] as string;
    let body: Json;
    try {
      body = JSON.parse(raw.toString("utf8")) as Json;
    } catch {
      return invalid(res, "Invalid JSON payload received.");
    }

    if (verb === "predictLongRunning") {
      if (!VIDEO_MODEL.test(model))
        return notFound(res, `models/${model} is not found for API version v1beta, or is not supported for predictLongRunning.`);
      return predict(res, base, req, model, body);
    }
    if (VIDEO_MODEL.test(model) || !/^gemini-/.test(model)) {
      return notFound(res, `models/${model} is not found for API version v1beta, or is not supported for ${verb}.`);
    }
    const contents: Json[] = Array.isArray(body.contents) ? body.contents : [];
    const text = promptText(contents);
    const tag = tagOf(text);
    const prior = log.count(tag, "submit");
    record(tag, req, "submit", body);
    const scenarios = scenariosOf(text, provider);
    if (refused(res, scenarios, prior)) return;
    if (contents.length === 0) return invalid(res, "* GenerateContentRequest.contents: contents is not specified");
    if (!checkContents(res, base, contents, model)) return;
    if (IMAGE_MODELS.has(model) && Number(body.generationConfig?.candidateCount ?? 1) > 1) {
      return invalid(res, "Multiple candidates is not enabled for this model.");
    }
    const { status, answer } = generate(model, body, scenarios, text);
    if (status !== 200) return json(res, status, answer);
    if (verb === "streamGenerateContent") return streamAnswer(res, answer, scenarios, url.searchParams.get("alt") === "sse");
    return json(res, 200, answer);
  });
}
