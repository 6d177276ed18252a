/**
 * A fake of OpenAI's moderation endpoint, written from OpenAI's API reference, its moderation
 * guide and its official Node client (openai-node: resources/moderations):
 *   POST /v1/moderations (also /moderations)  JSON {model?, input}
 *     input: a string, an array of strings (one result each, in order), or an array of
 *     multi-modal parts [{type: "text", text}, {type: "image_url", image_url: {url}}] (one result
 *     for the whole array; at most one image: 400 `too_many_images` otherwise; images up to 20 MB)
 *   → {id: "modr-…", model, results: [{flagged, categories, category_scores, category_applied_input_types}]}
 * Errors use OpenAI's body `{error: {message, type, param, code}}`; 429s carry `retry-after` and
 * the `x-ratelimit-*` headers; every answer carries `x-request-id`.
 *
 * Not a classifier: the text decides, through markers (the kit's `#tag:<id>` groups requests):
 *   #moderation:flag=<category>         that category flagged, score 0.97
 *   #moderation:score=<category>:<0.xx> that score, not flagged (the tenant's thresholds decide)
 *   #moderation:429        the first request of the tag: 429 with retry-after: 1; later ones answer
 *   #moderation:429_always every request: 429 with retry-after: 30
 *   #moderation:500        the first request of the tag: 500; #moderation:500_always: every one
 *   #moderation:slow       answers after 5 s (longer than any review waits)
 *   #moderation:malformed  200 without `results`
 * An image is flagged `violence` (0.91) when it is a PNG 66 pixels wide; image-only requests are
 * recorded under the tag `image-<width>x<height>`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { FakeServer, fakeKey, json, type RequestLog, readBody, tagOf } from "./kit";
import { error, requestId } from "./openai";

export const provider = "openai-moderation";

/** What the Worker needs to reach this fake as its moderation provider (opt-in: SAFETY_PROVIDER stays unset). */
export function bindings(url: string): Record<string, string> {
  return { SAFETY_API_URL: `${url}/v1/moderations`, SAFETY_API_KEY: fakeKey(provider) };
}

const MODELS = new Set([
  "omni-moderation-latest",
  "omni-moderation-2024-09-26",
  "text-moderation-latest",
  "text-moderation-stable",
]);
const CATEGORIES = [
  "harassment",
  "harassment/threatening",
  "hate",
  "hate/threatening",
  "illicit",
  "illicit/violent",
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "sexual",
  "sexual/minors",
  "violence",
  "violence/graphic",
] as const;
/** The categories omni-moderation also scores for images (the rest are text only). */
const IMAGE_CATEGORIES = new Set([
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "sexual",
  "violence",
  "violence/graphic",
]);
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

let counter = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Part {
  text?: string;
  image?: { bytes: Buffer; mime: string };
}

/** One moderation result for some text and at most one image. */
function result(parts: Part[]) {
  const text = parts.map((p) => p.text ?? "").join("\n");
  const image = parts.find((p) => p.image)?.image;
  const scores: Record<string, number> = Object.fromEntries(CATEGORIES.map((c) => [c, 0.000012]));
  const flagged = new Set<string>();
  for (const m of text.matchAll(/#moderation:flag=([a-z/-]+)/g)) {
    scores[m[1] as string] = 0.97;
    flagged.add(m[1] as string);
  }
  for (const m of text.matchAll(/#moderation:score=([a-z/-]+):(0?\.\d+|1(?:\.0+)?)/g)) scores[m[1] as string] = Number(m[2]);
  if (image && image.mime === "image/png" && image.bytes.readUInt32BE(16) === 66) {
    scores.violence = 0.91;
    flagged.add("violence");
  }
  const applied = (c: string) => [...(text ? ["text"] : []), ...(image && IMAGE_CATEGORIES.has(c) ? ["image"] : [])];
  return {
    flagged: flagged.size > 0,
    categories: Object.fromEntries(CATEGORIES.map((c) => [c, flagged.has(c)])),
    category_scores: Object.fromEntries(CATEGORIES.map((c) => [c, scores[c]])),
    category_applied_input_types: Object.fromEntries(CATEGORIES.map((c) => [c, applied(c)])),
  };
}

/** The parts of one request, or an error already answered. */
function readInput(res: ServerResponse, input: unknown): { groups: Part[][]; text: string } | null {
  if (typeof input === "string") return { groups: [[{ text: input }]], text: input };
  if (!Array.isArray(input) || input.length === 0) {
    error(
      res,
      400,
      "'input' must be a string, an array of strings or an array of multi-modal inputs.",
      "invalid_request_error",
      null,
      "input",
    );
    return null;
  }
  if (input.every((x) => typeof x === "string")) return { groups: input.map((t) => [{ text: t }]), text: input.join("\n") };
  const parts: Part[] = [];
  for (const p of input as any[]) {
    if (p?.type === "text" && typeof p.text === "string") parts.push({ text: p.text });
    else if (p?.type === "image_url" && typeof p.image_url?.url === "string") {
      const m = /^data:(image\/[a-z0-9.+-]+);base64,(.+)$/i.exec(p.image_url.url);
      if (!m) {
        error(res, 400, "Only data URLs are served by this fake.", "invalid_request_error", "invalid_image_url", "input");
        return null;
      }
      const bytes = Buffer.from(m[2] as string, "base64");
      if (bytes.length > MAX_IMAGE_BYTES) {
        error(res, 400, "Image files are limited to 20 MB.", "invalid_request_error", "image_too_large", "input");
        return null;
      }
      parts.push({ image: { bytes, mime: (m[1] as string).toLowerCase() } });
    } else {
      error(res, 400, "Invalid multi-modal input part.", "invalid_request_error", null, "input");
      return null;
    }
  }
  const images = parts.filter((p) => p.image).length;
  if (images > 1) {
    error(res, 400, `Number of images (${images}) exceeds maximum of 1`, "invalid_request_error", "too_many_images", "input");
    return null;
  }
  return { groups: [parts], text: parts.map((p) => p.text ?? "").join("\n") };
}

/** An image-only request's tag: `image-<width>x<height>` of its PNG. */
function imageTag(input: unknown): string {
  const url = Array.isArray(input) ? input.find((p: any) => p?.type === "image_url")?.image_url?.url : undefined;
  const m = typeof url === "string" ? /^data:image\/png;base64,(.+)$/i.exec(url) : null;
  if (!m) return "untagged";
  const bytes = Buffer.from(m[1] as string, "base64");
  return bytes.length >= 24 ? `image-${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}` : "untagged";
}

async function handle(req: IncomingMessage, res: ServerResponse, url: URL, log: RequestLog) {
  const path = url.pathname.replace(/^\/v1/, "");
  if (req.method !== "POST" || path !== "/moderations") {
    error(res, 404, `Invalid URL (${req.method} ${req.url})`, "invalid_request_error", null);
    return;
  }
  let body: any;
  try {
    body = JSON.parse((await readBody(req)).toString("utf8"));
  } catch {
    error(res, 400, "We could not parse the JSON body of your request.", "invalid_request_error", null);
    return;
  }
  // Every attempt is recorded, refused ones too, under the tag its text carries.
  const raw = JSON.stringify(body ?? null);
  const tag = raw.includes("#tag:") ? tagOf(raw) : imageTag(body?.input);
  const prior = log.count(tag, "submit");
  log.record(tag, req, "submit", body);
  if (req.headers.authorization !== `Bearer ${fakeKey(provider)}`) {
    error(res, 401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key");
    return;
  }
  const model = body?.model ?? "omni-moderation-latest";
  if (!MODELS.has(model)) {
    error(
      res,
      404,
      `The model \`${model}\` does not exist or you do not have access to it.`,
      "invalid_request_error",
      "model_not_found",
      "model",
    );
    return;
  }
  const input = readInput(res, body?.input);
  if (!input) return;
  if (model.startsWith("text-") && input.groups.flat().some((p) => p.image)) {
    error(res, 400, `${model} does not support image inputs.`, "invalid_request_error", null, "input");
    return;
  }
  const said = input.text;
  if (said.includes("#moderation:slow")) await sleep(5_000);
  if (res.destroyed) return;
  const limited = said.includes("#moderation:429_always") || (said.includes("#moderation:429") && prior === 0);
  if (limited) {
    const wait = said.includes("#moderation:429_always") ? "30" : "1";
    error(
      res,
      429,
      `Rate limit reached for ${model} on requests per min (RPM). Please try again in ${wait}s.`,
      "requests",
      "rate_limit_exceeded",
      null,
      {},
      {
        "retry-after": wait,
        "x-ratelimit-limit-requests": "500",
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": `${wait}s`,
      },
    );
    return;
  }
  if (said.includes("#moderation:500_always") || (said.includes("#moderation:500") && prior === 0)) {
    error(res, 500, "The server had an error while processing your request. Sorry about that!", "server_error", null);
    return;
  }
  if (said.includes("#moderation:malformed")) {
    json(res, 200, { id: `modr-${counter}`, model }, { "x-request-id": requestId() });
    return;
  }
  json(
    res,
    200,
    {
      id: `modr-${Date.now().toString(36)}${++counter}`,
      model: model === "omni-moderation-latest" ? "omni-moderation-2024-09-26" : model,
      results: input.groups.map(result),
    },
    { "x-request-id": requestId() },
  );
}

export async function start() {
  const server = new FakeServer();
  return server.listen((req, res, url) => handle(req, res, url, server.log));
}
