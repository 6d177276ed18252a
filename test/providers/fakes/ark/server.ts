/**
 * A fake ByteDance Ark (BytePlus ModelArk / Volcengine Ark), written from Ark's API reference:
 * "Video Generation API" (create, query, list, cancel or delete a task), "Image Generation API"
 * (Seedream), the common error codes page, and the official Python SDK's request and response
 * types. One server per platform: test/providers/fakes/byteplus.ts and volcengine.ts start it
 * under their own provider name (own key, own URL).
 *   POST   /contents/generations/tasks          `{model, content[], resolution, ratio, duration, seed,
 *                                               watermark, generate_audio, return_last_frame, …}` → `{id}`
 *   GET    /contents/generations/tasks/{id}     the task object
 *   GET    /contents/generations/tasks          `?page_num&page_size&filter.status&filter.task_ids&filter.model`
 *                                               → `{total, items}`, newest first
 *   DELETE /contents/generations/tasks/{id}     queued → cancelled; succeeded/failed/expired → deleted;
 *                                               running and cancelled → refused
 *   POST   /images/generations                  Seedream, synchronous: `{model, created, data[], usage}`
 * Paths are answered with or without the `/api/v3` prefix. Every call needs `Authorization: Bearer
 * <key>` (401 AuthenticationError). Errors are `{"error": {"code", "message", "param", "type"}}`.
 * Requests are checked as the documentation states: content item types and roles (first/last frame
 * and reference images are exclusive modes, a last frame needs a first frame), media as http(s) URLs
 * (or data URIs for images), resolution 480p/720p/1080p, the ratio list, duration (Seedance 2.0:
 * 4-15 s, earlier: 2-12 s), seed -1..2^32-1, booleans; for Seedream the size (WxH within the model's
 * pixel range and 1/16..16 aspect, or 1K/2K/4K), at most 10 references (4.5: 14), max_images 1-15
 * with references + images ≤ 15, response_format url|b64_json. Streaming is not served.
 *
 * Scenarios (`#fake:` in the prompt text; see kit.ts), in Ark's shapes:
 *   ok               tasks: queued on read 1, running on read 2, succeeded on read 3 with
 *                    content.video_url (a real MP4 of the asked duration and frame) and, when asked,
 *                    content.last_frame_url (a PNG); images: 200 with data[].url to JPEGs of the size
 *   submit_429       the tag's first submission: 429 RateLimitExceeded.EndpointRPMExceeded, Retry-After: 1
 *   submit_5xx       the tag's first submission: 500 InternalServiceError
 *   down             every submission: 503 ServiceUnavailable
 *   safety_input     400 InputTextSensitiveContentDetected at submission
 *   safety_output    tasks: runs, then fails with error.code OutputVideoSensitiveContentDetected;
 *                    images: 400 OutputImageSensitiveContentDetected for one image, or a 200 whose
 *                    every data[] entry is `{error}` in sequential mode
 *   expiring_output  each output URL answers once, then 404 (Ark's URLs expire after 24 h)
 *   unknown_status   task reads 1 and 2 answer status "pending", which the documentation does not list
 *   malformed        every task read: not JSON, or JSON without `status`; images: a 200 without `data`
 *   slow             the task stays queued until it is cancelled
 * Requests are recorded by the `#tag:` of the prompt: creations and image calls "submit", task reads
 * "status" (or "result" once the task had finished), DELETE "cancel", lists "list", files "download".
 * Callbacks are not sent (the service's address in tests is not reachable from here).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isoFile, jpeg } from "../../../media/fixtures";
import { FakeServer, json, lifeStage, png, type RunningFake, readBody, type Scenario, scenariosOf, tagOf } from "../kit";

/** A status the documentation does not list. */
export const UNLISTED_STATUS = "pending";
const TERMINAL = new Set(["succeeded", "failed", "cancelled", "expired"]);
const RESOLUTIONS = new Set(["480p", "720p", "1080p"]);
const RATIOS = new Set(["16:9", "4:3", "1:1", "3:4", "9:16", "21:9", "keep_ratio", "adaptive"]);
const ROLES: Record<string, Set<string>> = {
  image_url: new Set(["first_frame", "last_frame", "reference_image"]),
  video_url: new Set(["reference_video"]),
  audio_url: new Set(["reference_audio"]),
};
const BOOLEANS = ["watermark", "camera_fixed", "generate_audio", "return_last_frame", "draft"];

type ErrorType =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "TooManyRequests"
  | "InternalServerError"
  | "ServiceUnavailable";

let requestSeq = 0;
const requestId = () => `2026${Date.now().toString().slice(-10)}${(++requestSeq).toString(16).padStart(6, "0")}`;

function arkError(res: ServerResponse, status: number, type: ErrorType, code: string, message: string, param = "", headers = {}) {
  json(res, status, { error: { code, message: `${message} Request id: ${requestId()}`, param, type } }, headers);
}

const invalid = (res: ServerResponse, param: string, why: string) =>
  arkError(
    res,
    400,
    "BadRequest",
    `InvalidParameter`,
    `The parameter \`${param}\` specified in the request is not valid: ${why}.`,
    param,
  );

/** Seedance video models (any platform's naming) and endpoint ids; other names are unknown models. */
const isVideoModel = (m: string) => /^(?:doubao-|dreamina-)?seedance-[\w-]+$/.test(m) || m.startsWith("ep-");
const isImageModel = (m: string) => /^(?:doubao-)?(?:seedream|seededit)-[\w-]+$/.test(m) || m.startsWith("ep-");

interface FakeTask {
  seq: number;
  id: string;
  model: string;
  tag: string;
  scenarios: Set<Scenario>;
  reads: number;
  created: number;
  updated: number;
  status: string;
  error: { code: string; message: string } | null;
  videoUrl: string | null;
  lastFrameUrl: string | null;
  width: number;
  height: number;
  duration: number;
  resolution: string;
  ratio: string;
  seed: number;
  generateAudio: boolean;
  returnLastFrame: boolean;
}

/** The frame Seedance makes: the resolution's pixel budget (16:9 at that short edge) at the ratio. */
function frameOf(resolution: string, ratio: string): { width: number; height: number } {
  const short = Number(/^(\d+)p$/.exec(resolution)?.[1] ?? 720);
  const m = /^(\d+):(\d+)$/.exec(ratio);
  const [a, b] = m ? [Number(m[1]), Number(m[2])] : [16, 9];
  const pixels = ((short * 16) / 9) * short;
  const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
  const width = even(Math.sqrt((pixels * a) / b));
  return { width, height: even((width * b) / a) };
}

function mp4(seconds: number, width: number, height: number, audio: boolean): Uint8Array {
  return isoFile({
    brand: "isom",
    movie: { timescale: 1000, duration: seconds * 1000 },
    tracks: [
      { handler: "vide", width, height, timescale: 12800, duration: seconds * 12800 },
      ...(audio ? [{ handler: "soun" as const, timescale: 48000, duration: seconds * 48000 }] : []),
    ],
  });
}

function newTaskId(): string {
  const d = new Date();
  const stamp = d.toISOString().replace(/\D/g, "").slice(0, 14);
  return `cgt-${stamp}-${Math.random().toString(36).slice(2, 7)}`;
}

/** The checks of the create-task reference; a reason to refuse, or null. */
function taskProblem(body: any): [string, string] | null {
  if (typeof body?.model !== "string" || body.model.length === 0) return ["model", "missing"];
  if (!Array.isArray(body.content) || body.content.length === 0) return ["content", "must be a non-empty array"];
  const roles: string[] = [];
  for (const [i, item] of (body.content as any[]).entries()) {
    const type = item?.type;
    if (type === "text") {
      if (typeof item.text !== "string") return [`content[${i}].text`, "must be a string"];
      continue;
    }
    if (type === "draft_task") continue;
    const allowed = ROLES[type as string];
    if (!allowed) return [`content[${i}].type`, `unknown type ${JSON.stringify(type)}`];
    const url = item[type]?.url;
    const isUrl = typeof url === "string" && /^https?:\/\//.test(url);
    const isData = typeof url === "string" && /^data:image\/[a-z]+;base64,/.test(url);
    if (!isUrl && !(type === "image_url" && isData)) return [`content[${i}].${type}.url`, "must be an http(s) URL"];
    const role = item.role ?? (type === "image_url" ? "first_frame" : undefined);
    if (!allowed.has(role)) return [`content[${i}].role`, `${JSON.stringify(item.role)} is not a role of ${type}`];
    roles.push(role);
  }
  const frames = roles.filter((r) => r === "first_frame" || r === "last_frame");
  const refs = roles.filter((r) => r.startsWith("reference_"));
  if (frames.length > 0 && refs.length > 0) return ["content", "first/last frame and reference inputs cannot be mixed"];
  if (roles.filter((r) => r === "first_frame").length > 1 || roles.filter((r) => r === "last_frame").length > 1)
    return ["content", "at most one first frame and one last frame"];
  if (roles.includes("last_frame") && !roles.includes("first_frame")) return ["content", "a last frame needs a first frame"];
  if (roles.filter((r) => r === "reference_image").length > 9) return ["content", "at most 9 reference images"];
  if (roles.filter((r) => r === "reference_video").length > 3) return ["content", "at most 3 reference videos"];
  if (roles.filter((r) => r === "reference_audio").length > 3) return ["content", "at most 3 reference audios"];
  if (body.resolution !== undefined && !RESOLUTIONS.has(body.resolution)) return ["resolution", "must be 480p, 720p or 1080p"];
  if (body.ratio !== undefined && !RATIOS.has(body.ratio)) return ["ratio", `${JSON.stringify(body.ratio)} is not supported`];
  if (body.duration !== undefined) {
    const [min, max] = /seedance-2-0/.test(body.model) ? [4, 15] : [2, 12];
    if (!Number.isInteger(body.duration) || body.duration < min || body.duration > max)
      return ["duration", `must be an integer from ${min} to ${max}`];
  }
  if (body.seed !== undefined && (!Number.isInteger(body.seed) || body.seed < -1 || body.seed > 4294967295))
    return ["seed", "must be an integer in [-1, 4294967295]"];
  for (const k of BOOLEANS) if (body[k] !== undefined && typeof body[k] !== "boolean") return [k, "must be a boolean"];
  if (body.callback_url !== undefined && (typeof body.callback_url !== "string" || !/^https?:\/\//.test(body.callback_url)))
    return ["callback_url", "must be an http(s) URL"];
  return null;
}

interface ImageRules {
  minPixels: number;
  maxReferences: number;
  presets: string[];
}

/** Seedream 4.5 makes 2K and 4K only (at least 2560x1440 pixels); 4.0 from 1280x720. */
function imageRules(model: string): ImageRules {
  if (/seedream-4-5/.test(model)) return { minPixels: 3_686_400, maxReferences: 14, presets: ["2K", "4K"] };
  return { minPixels: 921_600, maxReferences: 10, presets: ["1K", "2K", "4K"] };
}

const PRESET_SIZE: Record<string, number> = { "1K": 1024, "2K": 2048, "4K": 4096 };

/** The checks of the image reference: the size to make, or the reason to refuse. */
function imageProblem(body: any): { width: number; height: number; references: number } | [string, string] {
  if (typeof body?.prompt !== "string" || body.prompt.length === 0) return ["prompt", "missing"];
  const rules = imageRules(String(body.model));
  const images = body.image === undefined ? [] : Array.isArray(body.image) ? body.image : [body.image];
  for (const u of images)
    if (typeof u !== "string" || !/^(?:https?:\/\/|data:image\/[a-z]+;base64,)/.test(u))
      return ["image", "must be URLs or data URIs"];
  if (images.length > rules.maxReferences) return ["image", `at most ${rules.maxReferences} images`];
  let width = 2048;
  let height = 2048;
  if (body.size !== undefined) {
    const m = typeof body.size === "string" ? /^(\d+)x(\d+)$/.exec(body.size) : null;
    if (m) {
      width = Number(m[1]);
      height = Number(m[2]);
      const ratio = width / height;
      if (width * height < rules.minPixels || width * height > 16_777_216) return ["size", "total pixels out of range"];
      if (ratio < 1 / 16 || ratio > 16) return ["size", "aspect ratio out of range"];
    } else if (rules.presets.includes(body.size)) {
      width = height = PRESET_SIZE[body.size] as number;
    } else {
      return ["size", `${JSON.stringify(body.size)} is not supported`];
    }
  }
  if (body.response_format !== undefined && !["url", "b64_json"].includes(body.response_format))
    return ["response_format", "must be url or b64_json"];
  if (body.sequential_image_generation !== undefined && !["auto", "disabled"].includes(body.sequential_image_generation))
    return ["sequential_image_generation", "must be auto or disabled"];
  const max = body.sequential_image_generation_options?.max_images;
  if (max !== undefined && (!Number.isInteger(max) || max < 1 || max > 15)) return ["max_images", "must be from 1 to 15"];
  if (max !== undefined && images.length + max > 15) return ["max_images", "reference images + generated images must be ≤ 15"];
  if (body.seed !== undefined && (!Number.isInteger(body.seed) || body.seed < -1 || body.seed > 2147483647))
    return ["seed", "must be an integer in [-1, 2147483647]"];
  if (body.watermark !== undefined && typeof body.watermark !== "boolean") return ["watermark", "must be a boolean"];
  if (body.output_format !== undefined && !["jpeg", "png"].includes(body.output_format)) return ["output_format", "jpeg or png"];
  return { width, height, references: images.length };
}

export async function startArk(provider: string): Promise<RunningFake> {
  const server = new FakeServer();
  const { log, files } = server;
  const tasks = new Map<string, FakeTask>();
  const ordered: FakeTask[] = [];
  let seq = 0;
  // The platform's key, and a tenant's own keys (kit.ts KeyRing) until revoked.
  const authorized = (req: IncomingMessage) => server.keys.accepts(provider, req.headers.authorization?.replace(/^Bearer /, ""));
  const unauthenticated = (res: ServerResponse) =>
    arkError(res, 401, "Unauthorized", "AuthenticationError", "The API key or AK/SK in the request is missing or invalid.");

  /** The scenarios that refuse a submission, answered; true when one did. */
  function refused(res: ServerResponse, tag: string, scenarios: Set<Scenario>): boolean {
    const n = server.submission(tag);
    if (scenarios.has("down")) {
      arkError(
        res,
        503,
        "ServiceUnavailable",
        "ServiceUnavailable",
        "The service is temporarily unavailable. Please try again later.",
      );
      return true;
    }
    if (scenarios.has("submit_429") && n === 1) {
      arkError(
        res,
        429,
        "TooManyRequests",
        "RateLimitExceeded.EndpointRPMExceeded",
        "The Requests Per Minute (RPM) limit of the associated endpoint for your account has been exceeded.",
        "",
        { "Retry-After": "1" },
      );
      return true;
    }
    if (scenarios.has("submit_5xx") && n === 1) {
      arkError(res, 500, "InternalServerError", "InternalServiceError", "The service encountered an unexpected internal error.");
      return true;
    }
    if (scenarios.has("safety_input")) {
      arkError(
        res,
        400,
        "BadRequest",
        "InputTextSensitiveContentDetected",
        "The request failed because the input text may contain sensitive information.",
      );
      return true;
    }
    return false;
  }

  function view(t: FakeTask): Record<string, unknown> {
    const done = t.status === "succeeded";
    const content: Record<string, string> = {};
    if (t.videoUrl) content.video_url = t.videoUrl;
    if (t.lastFrameUrl) content.last_frame_url = t.lastFrameUrl;
    // Seedance bills tokens ≈ width × height × fps × seconds / 1024.
    const tokens = Math.floor((t.width * t.height * 24 * t.duration) / 1024);
    return {
      id: t.id,
      model: t.model,
      status: t.status,
      error: t.error,
      ...(done ? { content } : {}),
      ...(done ? { usage: { completion_tokens: tokens, total_tokens: tokens } } : {}),
      created_at: Math.floor(t.created / 1000),
      updated_at: Math.floor(t.updated / 1000),
      seed: t.seed,
      resolution: t.resolution,
      ratio: t.ratio,
      duration: t.duration,
      framespersecond: 24,
      generate_audio: t.generateAudio,
      service_tier: "default",
      execution_expires_after: 172800,
    };
  }

  function set(t: FakeTask, status: string) {
    if (t.status !== status) t.updated = Date.now();
    t.status = status;
  }

  /** One read moves the task along its scenario. */
  function advance(t: FakeTask) {
    if (TERMINAL.has(t.status)) return;
    t.reads++;
    switch (lifeStage(t.reads, t.scenarios)) {
      case "unknown":
        set(t, UNLISTED_STATUS);
        return;
      case "queued":
        set(t, "queued");
        return;
      case "running":
        set(t, "running");
        return;
      case "done":
        if (t.scenarios.has("safety_output")) {
          t.error = {
            code: "OutputVideoSensitiveContentDetected",
            message: `The request failed because the output video may contain sensitive information. Request id: ${requestId()}`,
          };
          set(t, "failed");
          return;
        }
        {
          const once = t.scenarios.has("expiring_output");
          t.videoUrl = files.add(mp4(t.duration, t.width, t.height, t.generateAudio), "video/mp4", {
            once,
            tag: t.tag,
            ext: "mp4",
          });
          if (t.returnLastFrame)
            t.lastFrameUrl = files.add(png(t.width, t.height, t.seq), "image/png", { once, tag: t.tag, ext: "png" });
        }
        set(t, "succeeded");
    }
  }

  async function createTask(req: IncomingMessage, res: ServerResponse) {
    let body: any;
    try {
      body = JSON.parse((await readBody(req)).toString("utf8"));
    } catch {
      log.record("untagged", req, "submit", null);
      return invalid(res, "body", "not valid JSON");
    }
    const text = Array.isArray(body?.content)
      ? body.content
          .filter((c: any) => c?.type === "text")
          .map((c: any) => String(c.text ?? ""))
          .join("\n")
      : "";
    const tag = tagOf(text);
    log.record(tag, req, "submit", body);
    if (!authorized(req)) return unauthenticated(res);
    const scenarios = scenariosOf(text, provider);
    if (refused(res, tag, scenarios)) return;
    const problem = taskProblem(body);
    if (problem) {
      if (problem[1] === "missing")
        return arkError(
          res,
          400,
          "BadRequest",
          `MissingParameter`,
          `The request failed because it is missing a required parameter: ${problem[0]}.`,
          problem[0],
        );
      return invalid(res, ...problem);
    }
    if (!isVideoModel(body.model)) {
      return arkError(
        res,
        404,
        "NotFound",
        "InvalidEndpointOrModel.NotFound",
        `The model or endpoint ${body.model} does not exist or you do not have access to it.`,
      );
    }
    const resolution = body.resolution ?? "720p";
    // adaptive and keep_ratio follow the input media, which the fake does not fetch: it answers 16:9.
    const ratio = typeof body.ratio === "string" && /^\d+:\d+$/.test(body.ratio) ? body.ratio : "16:9";
    const now = Date.now();
    const t: FakeTask = {
      seq: ++seq,
      id: newTaskId(),
      model: body.model,
      tag,
      scenarios,
      reads: 0,
      created: now,
      updated: now,
      status: "queued",
      error: null,
      videoUrl: null,
      lastFrameUrl: null,
      ...frameOf(resolution, ratio),
      duration: body.duration ?? 5,
      resolution,
      ratio,
      seed: typeof body.seed === "number" && body.seed >= 0 ? body.seed : Math.floor(Math.random() * 2 ** 31),
      generateAudio: body.generate_audio ?? true,
      returnLastFrame: body.return_last_frame === true,
    };
    tasks.set(t.id, t);
    ordered.push(t);
    json(res, 200, { id: t.id });
  }

  function notFound(res: ServerResponse, id: string) {
    arkError(res, 404, "NotFound", "NotFound.Id", `The specified task ${id} is not found.`, "id");
  }

  function readTask(req: IncomingMessage, res: ServerResponse, id: string) {
    const t = tasks.get(id);
    log.record(t?.tag ?? "untagged", req, t && TERMINAL.has(t.status) ? "result" : "status", null);
    if (!authorized(req)) return unauthenticated(res);
    if (!t) return notFound(res, id);
    if (t.scenarios.has("malformed")) {
      t.reads++;
      // Alternately not JSON at all, and JSON without the documented status.
      if (t.reads % 2 === 1) res.writeHead(200, { "Content-Type": "application/json" }).end("<html>upstream hiccup</html>");
      else json(res, 200, { id: t.id, model: t.model });
      return;
    }
    advance(t);
    json(res, 200, view(t));
  }

  function deleteTask(req: IncomingMessage, res: ServerResponse, id: string) {
    const t = tasks.get(id);
    log.record(t?.tag ?? "untagged", req, "cancel", null);
    if (!authorized(req)) return unauthenticated(res);
    if (!t) return notFound(res, id);
    if (t.status === "queued") {
      set(t, "cancelled");
      return json(res, 200, {});
    }
    if (t.status === "running" || t.status === "cancelled" || t.status === UNLISTED_STATUS) {
      return arkError(
        res,
        403,
        "Forbidden",
        "OperationDenied.InvalidState",
        `The task ${id} is ${t.status} and cannot be cancelled or deleted.`,
      );
    }
    // Finished: the record is deleted and can no longer be queried.
    tasks.delete(id);
    ordered.splice(ordered.indexOf(t), 1);
    json(res, 200, {});
  }

  function listTasks(req: IncomingMessage, res: ServerResponse, url: URL) {
    const q = url.searchParams;
    const pageNum = Number(q.get("page_num") ?? 1);
    const pageSize = Number(q.get("page_size") ?? 10);
    if (!authorized(req)) {
      log.record("untagged", req, "list", null);
      return unauthenticated(res);
    }
    if (
      !Number.isInteger(pageNum) ||
      pageNum < 1 ||
      pageNum > 500 ||
      !Number.isInteger(pageSize) ||
      pageSize < 1 ||
      pageSize > 500
    ) {
      log.record("untagged", req, "list", null);
      return invalid(res, "page_num/page_size", "must be integers from 1 to 500");
    }
    const status = q.get("filter.status");
    const ids = q.getAll("filter.task_ids");
    const model = q.get("filter.model");
    const matching = ordered
      .filter(
        (t) =>
          (status ? t.status === status : true) && (ids.length ? ids.includes(t.id) : true) && (model ? t.model === model : true),
      )
      .reverse();
    const page = matching.slice((pageNum - 1) * pageSize, pageNum * pageSize);
    const tags = new Set(page.map((t) => t.tag));
    if (tags.size === 0) tags.add("untagged");
    for (const tag of tags) log.record(tag, req, "list", null);
    json(res, 200, { total: matching.length, items: page.map(view) });
  }

  async function generateImages(req: IncomingMessage, res: ServerResponse) {
    let body: any;
    try {
      body = JSON.parse((await readBody(req)).toString("utf8"));
    } catch {
      log.record("untagged", req, "submit", null);
      return invalid(res, "body", "not valid JSON");
    }
    const prompt = typeof body?.prompt === "string" ? body.prompt : "";
    const tag = tagOf(prompt);
    log.record(tag, req, "submit", body);
    if (!authorized(req)) return unauthenticated(res);
    const scenarios = scenariosOf(prompt, provider);
    if (refused(res, tag, scenarios)) return;
    if (typeof body?.model !== "string" || !isImageModel(body.model)) {
      return arkError(
        res,
        404,
        "NotFound",
        "InvalidEndpointOrModel.NotFound",
        `The model or endpoint ${String(body?.model)} does not exist or you do not have access to it.`,
      );
    }
    if (body.stream === true) return invalid(res, "stream", "this fake serves non-streaming answers only");
    const checked = imageProblem(body);
    if (Array.isArray(checked)) return invalid(res, ...checked);
    const group = body.sequential_image_generation === "auto";
    const n = group ? Number(body.sequential_image_generation_options?.max_images ?? 15) : 1;
    const created = Math.floor(Date.now() / 1000);
    if (scenarios.has("safety_output") && !group) {
      return arkError(
        res,
        400,
        "BadRequest",
        "OutputImageSensitiveContentDetected",
        "The request failed because the output image may contain sensitive information.",
      );
    }
    if (scenarios.has("malformed")) return json(res, 200, { model: body.model, created, usage: { generated_images: n } });
    const { width, height } = checked;
    const data = Array.from({ length: n }, (_, i) => {
      if (scenarios.has("safety_output")) {
        return {
          error: {
            code: "OutputImageSensitiveContentDetected",
            message: "The request failed because the output image may contain sensitive information.",
          },
        };
      }
      const isPng = body.output_format === "png";
      const bytes = isPng ? png(width, height, i) : jpeg(width, height);
      if (body.response_format === "b64_json")
        return { b64_json: Buffer.from(bytes).toString("base64"), size: `${width}x${height}` };
      const url = files.add(bytes, isPng ? "image/png" : "image/jpeg", {
        once: scenarios.has("expiring_output"),
        tag,
        ext: isPng ? "png" : "jpeg",
      });
      return { url, size: `${width}x${height}` };
    });
    const made = data.filter((d) => !("error" in d)).length;
    const tokens = Math.floor((made * width * height) / 256);
    json(res, 200, {
      model: body.model,
      created,
      data,
      usage: { generated_images: made, output_tokens: tokens, total_tokens: tokens },
    });
  }

  return server.listen(async (req, res, url) => {
    const path = url.pathname.replace(/^\/api\/v3(?=\/)/, "").replace(/\/+$/, "");
    const method = req.method ?? "GET";
    if (method === "POST" && path === "/contents/generations/tasks") return createTask(req, res);
    if (method === "GET" && path === "/contents/generations/tasks") return listTasks(req, res, url);
    const one = /^\/contents\/generations\/tasks\/([^/]+)$/.exec(path);
    if (one && method === "GET") return readTask(req, res, decodeURIComponent(one[1] as string));
    if (one && method === "DELETE") return deleteTask(req, res, decodeURIComponent(one[1] as string));
    if (method === "POST" && path === "/images/generations") return generateImages(req, res);
    log.record("untagged", req, "other", null);
    arkError(res, 404, "NotFound", "NotFound", `The requested path ${path} does not exist.`);
  });
}
