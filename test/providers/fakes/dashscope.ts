/**
 * A fake Alibaba Cloud Model Studio (DashScope), written from its documentation: the Wan video
 * generation API references (text-to-video, image-to-video, Wan 2.7 / 3.0 `input.media[]`), the task
 * query and cancel operations, the "Error codes" page, and the official Python SDK's VideoSynthesis
 * and TaskStatus.
 *   POST /services/aigc/video-generation/video-synthesis   needs `X-DashScope-Async: enable`;
 *        `{model, input: {prompt, negative_prompt, media[]}, parameters}` → `{request_id, output: {task_id, task_status}}`
 *   GET  /tasks/{task_id}          `{request_id, output: {task_id, task_status, submit_time, scheduled_time,
 *                                  end_time, video_url, orig_prompt, code, message}, usage}`; an id it does
 *                                  not know answers 200 with task_status UNKNOWN, as documented
 *   POST /tasks/{task_id}/cancel   PENDING → CANCELED; any other status: 400 UnsupportedOperation
 * Paths are answered with or without the `/api/v1` prefix. Every call needs `Authorization: Bearer
 * <key>` (401 InvalidApiKey). Errors are `{request_id, code, message}`.
 * Requests are checked as documented: the model's media types (wan2.7-t2v takes none; wan2.7-i2v
 * first_frame, last_frame, driving_audio, first_clip, with a first frame or a first clip; wan3.0-video
 * first/last frame or references, never both, at most 10 images, 5 videos, 5 audio), media as
 * http(s) URLs, resolution (480P only for 3.0), ratio, duration (2.7: 2-15; 3.0: 2-30), seed
 * 0..2147483647, booleans.
 *
 * Scenarios (`#fake:` in the prompt; see kit.ts), in DashScope's shapes:
 *   ok               PENDING on read 1, RUNNING on read 2, SUCCEEDED on read 3 with output.video_url
 *                    (a real MP4 of the asked length and frame) and usage
 *   submit_429       the tag's first submission: 429 Throttling.RateQuota, Retry-After: 1
 *   submit_5xx       the tag's first submission: 500 InternalError
 *   down             every submission: 503 ServiceUnavailable
 *   safety_input     400 DataInspectionFailed "Input data may contain inappropriate content."
 *   safety_output    runs, then FAILED with code DataInspectionFailed, "Output data may contain…"
 *   expiring_output  the video URL answers once, then 404 (DashScope's URLs expire after 24 h)
 *   unknown_status   reads 1 and 2 answer task_status "QUEUING", which the documentation does not list
 *   malformed        every read: not JSON, or JSON without output.task_status
 *   slow             PENDING until cancelled
 * Recorded by the `#tag:` of the prompt: creations "submit", reads "status" (or "result" once
 * finished), cancels "cancel", files "download".
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isoFile } from "../../media/fixtures";
import { FakeServer, fakeKey, json, lifeStage, type RunningFake, readBody, type Scenario, scenariosOf, tagOf } from "./kit";

export const provider = "dashscope";

/** A status the documentation does not list. */
export const UNLISTED_STATUS = "QUEUING";
const TERMINAL = new Set(["SUCCEEDED", "FAILED", "CANCELED"]);
const RATIOS = new Set(["16:9", "9:16", "1:1", "4:3", "3:4"]);
const BOOLEANS = ["prompt_extend", "watermark", "audio"];

interface ModelRules {
  media: Set<string>;
  resolutions: Set<string>;
  duration: [number, number];
  prompt: number;
}

const MODELS: Record<string, ModelRules> = {
  "wan2.7-t2v": { media: new Set(), resolutions: new Set(["720P", "1080P"]), duration: [2, 15], prompt: 800 },
  "wan2.7-i2v": {
    media: new Set(["first_frame", "last_frame", "driving_audio", "first_clip"]),
    resolutions: new Set(["720P", "1080P"]),
    duration: [2, 15],
    prompt: 800,
  },
  "wan3.0-video": {
    media: new Set(["first_frame", "last_frame", "reference_image", "reference_video", "reference_audio"]),
    resolutions: new Set(["480P", "720P", "1080P"]),
    duration: [2, 30],
    prompt: 20000,
  },
};

interface FakeTask {
  id: string;
  model: string;
  tag: string;
  prompt: string;
  scenarios: Set<Scenario>;
  reads: number;
  submitted: number;
  scheduled: number | null;
  ended: number | null;
  status: string;
  code: string | null;
  message: string | null;
  videoUrl: string | null;
  width: number;
  height: number;
  duration: number;
  resolution: string;
  audio: boolean;
}

const requestId = () => crypto.randomUUID();

function fail(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) {
  json(res, status, { request_id: requestId(), code, message }, headers);
}

const invalid = (res: ServerResponse, message: string) => fail(res, 400, "InvalidParameter", message);

/** DashScope's time stamps: `YYYY-MM-DD HH:mm:ss.SSS`, Beijing time. */
function stamp(ms: number | null): string | undefined {
  if (ms === null) return undefined;
  return new Date(ms + 8 * 3600_000).toISOString().replace("T", " ").replace("Z", "");
}

/** The frame for a resolution tier and ratio: the tier is the short edge. */
function frameOf(resolution: string, ratio: string): { width: number; height: number } {
  const short = Number(/^(\d+)P$/.exec(resolution)?.[1] ?? 1080);
  const [a, b] = ratio.split(":").map(Number) as [number, number];
  const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
  return a >= b ? { width: even((short * a) / b), height: short } : { width: short, height: even((short * b) / a) };
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

/** The documented checks of a creation; a reason to refuse, or null. */
function problem(body: any, rules: ModelRules): string | null {
  const input = body.input;
  if (!input || typeof input !== "object") return 'Required parameter "input" missing from request.';
  if (input.prompt !== undefined && typeof input.prompt !== "string") return "input.prompt must be a string.";
  if (typeof input.prompt === "string" && [...input.prompt].length > rules.prompt)
    return `input.prompt is longer than ${rules.prompt} characters.`;
  if (input.negative_prompt !== undefined && (typeof input.negative_prompt !== "string" || input.negative_prompt.length > 500))
    return "input.negative_prompt must be a string of at most 500 characters.";
  const media: any[] = input.media ?? [];
  if (!Array.isArray(media)) return "input.media must be an array.";
  const types: string[] = [];
  for (const [i, m] of media.entries()) {
    if (!rules.media.has(m?.type)) return `input.media[${i}].type ${JSON.stringify(m?.type)} is not supported by ${body.model}.`;
    if (typeof m.url !== "string" || !/^(?:https?|oss):\/\//.test(m.url)) return `input.media[${i}].url must be a URL.`;
    types.push(m.type);
  }
  const n = (t: string) => types.filter((x) => x === t).length;
  for (const t of ["first_frame", "last_frame", "driving_audio", "first_clip"])
    if (n(t) > 1) return `input.media accepts at most one ${t}.`;
  if (body.model === "wan2.7-i2v") {
    if (n("first_frame") === 0 && n("first_clip") === 0) return "image-to-video model wan2.7-i2v must provide an image.";
    if (n("first_frame") > 0 && n("first_clip") > 0) return "first_frame and first_clip cannot be used together.";
  }
  if (body.model === "wan3.0-video") {
    const refs = types.filter((t) => t.startsWith("reference_")).length;
    if (refs > 0 && (n("first_frame") > 0 || n("last_frame") > 0))
      return "reference media and first/last frames cannot be used together.";
    if (n("last_frame") > 0 && n("first_frame") === 0) return "last_frame needs a first_frame.";
    if (n("reference_image") > 10 || n("reference_video") > 5 || n("reference_audio") > 5)
      return "too many reference media (images 10, videos 5, audio 5).";
  }
  if (!input.prompt?.trim() && types.length === 0) return 'Required parameter "prompt" missing from request.';
  const p = body.parameters ?? {};
  if (typeof p !== "object") return "parameters must be an object.";
  if (p.resolution !== undefined && !rules.resolutions.has(p.resolution))
    return `parameters.resolution ${JSON.stringify(p.resolution)} is not supported.`;
  if (p.ratio !== undefined && !RATIOS.has(p.ratio)) return `parameters.ratio ${JSON.stringify(p.ratio)} is not supported.`;
  if (p.duration !== undefined) {
    const [min, max] = rules.duration;
    if (!Number.isInteger(p.duration) || p.duration < min || p.duration > max)
      return `parameters.duration must be an integer from ${min} to ${max}.`;
  }
  if (p.seed !== undefined && (!Number.isInteger(p.seed) || p.seed < 0 || p.seed > 2147483647))
    return "parameters.seed must be an integer in [0, 2147483647].";
  for (const k of BOOLEANS) if (p[k] !== undefined && typeof p[k] !== "boolean") return `parameters.${k} must be a boolean.`;
  return null;
}

export async function start(): Promise<RunningFake> {
  const server = new FakeServer();
  const { log, files } = server;
  const tasks = new Map<string, FakeTask>();
  const authorized = (req: IncomingMessage) => req.headers.authorization === `Bearer ${fakeKey(provider)}`;
  const unauthenticated = (res: ServerResponse) => fail(res, 401, "InvalidApiKey", "Invalid API-key provided.");

  /** The scenarios that refuse a submission, answered; true when one did. */
  function refused(res: ServerResponse, tag: string, scenarios: Set<Scenario>): boolean {
    const n = server.submission(tag);
    if (scenarios.has("down")) {
      fail(res, 503, "ServiceUnavailable", "The service is temporarily unavailable, please try again later.");
      return true;
    }
    if (scenarios.has("submit_429") && n === 1) {
      fail(res, 429, "Throttling.RateQuota", "Requests rate limit exceeded, please try again later.", { "Retry-After": "1" });
      return true;
    }
    if (scenarios.has("submit_5xx") && n === 1) {
      fail(res, 500, "InternalError", "An internal error has occured, please try again later or contact service support.");
      return true;
    }
    if (scenarios.has("safety_input")) {
      fail(res, 400, "DataInspectionFailed", "Input data may contain inappropriate content.");
      return true;
    }
    return false;
  }

  function view(t: FakeTask): Record<string, unknown> {
    const output: Record<string, unknown> = {
      task_id: t.id,
      task_status: t.status,
      submit_time: stamp(t.submitted),
      scheduled_time: stamp(t.scheduled),
      end_time: stamp(t.ended),
    };
    if (t.status === "SUCCEEDED") {
      output.video_url = t.videoUrl;
      output.orig_prompt = t.prompt;
    }
    if (t.code) {
      output.code = t.code;
      output.message = t.message;
    }
    const body: Record<string, unknown> = { request_id: requestId(), output };
    if (t.status === "SUCCEEDED")
      body.usage = {
        video_duration: t.duration,
        video_ratio: `${t.width}*${t.height}`,
        video_count: 1,
        SR: Number(t.resolution.slice(0, -1)),
      };
    return body;
  }

  function advance(t: FakeTask) {
    if (TERMINAL.has(t.status)) return;
    t.reads++;
    switch (lifeStage(t.reads, t.scenarios)) {
      case "unknown":
        t.status = UNLISTED_STATUS;
        return;
      case "queued":
        t.status = "PENDING";
        return;
      case "running":
        t.status = "RUNNING";
        t.scheduled ??= Date.now();
        return;
      case "done":
        t.scheduled ??= Date.now();
        t.ended = Date.now();
        if (t.scenarios.has("safety_output")) {
          t.status = "FAILED";
          t.code = "DataInspectionFailed";
          t.message = "Output data may contain inappropriate content.";
          return;
        }
        t.videoUrl = files.add(mp4(t.duration, t.width, t.height, t.audio), "video/mp4", {
          once: t.scenarios.has("expiring_output"),
          tag: t.tag,
          ext: "mp4",
        });
        t.status = "SUCCEEDED";
    }
  }

  async function create(req: IncomingMessage, res: ServerResponse) {
    let body: any;
    try {
      body = JSON.parse((await readBody(req)).toString("utf8"));
    } catch {
      log.record("untagged", req, "submit", null);
      return invalid(res, "The request body is not valid JSON.");
    }
    const prompt = typeof body?.input?.prompt === "string" ? body.input.prompt : "";
    const tag = tagOf(prompt);
    log.record(tag, req, "submit", body);
    if (!authorized(req)) return unauthenticated(res);
    // Video synthesis is asynchronous only.
    if (req.headers["x-dashscope-async"] !== "enable")
      return fail(res, 403, "AccessDenied", "current user api does not support synchronous calls");
    const scenarios = scenariosOf(prompt, provider);
    if (refused(res, tag, scenarios)) return;
    if (typeof body?.model !== "string" || !body.model)
      return fail(res, 400, "BadRequest.EmptyModel", 'Required parameter "model" missing from request.');
    const rules = MODELS[body.model];
    if (!rules) return invalid(res, "Model not exist.");
    const why = problem(body, rules);
    if (why) return invalid(res, why);
    const p = body.parameters ?? {};
    // Both models default to 1080P.
    const resolution = p.resolution ?? "1080P";
    // Without a ratio the frame follows the first frame, which the fake does not fetch: 16:9.
    const ratio = p.ratio ?? "16:9";
    const now = Date.now();
    const t: FakeTask = {
      id: crypto.randomUUID(),
      model: body.model,
      tag,
      prompt,
      scenarios,
      reads: 0,
      submitted: now,
      scheduled: null,
      ended: null,
      status: "PENDING",
      code: null,
      message: null,
      videoUrl: null,
      ...frameOf(resolution, ratio),
      duration: p.duration ?? 5,
      resolution,
      audio: body.model === "wan3.0-video" ? p.audio !== false : false,
    };
    tasks.set(t.id, t);
    json(res, 200, { request_id: requestId(), output: { task_id: t.id, task_status: "PENDING" } });
  }

  function read(req: IncomingMessage, res: ServerResponse, id: string) {
    const t = tasks.get(id);
    log.record(t?.tag ?? "untagged", req, t && TERMINAL.has(t.status) ? "result" : "status", null);
    if (!authorized(req)) return unauthenticated(res);
    if (!t) return json(res, 200, { request_id: requestId(), output: { task_id: id, task_status: "UNKNOWN" } });
    if (t.scenarios.has("malformed")) {
      t.reads++;
      if (t.reads % 2 === 1) res.writeHead(200, { "Content-Type": "application/json" }).end("<html>upstream hiccup</html>");
      else json(res, 200, { request_id: requestId(), output: { task_id: t.id } });
      return;
    }
    advance(t);
    json(res, 200, view(t));
  }

  function cancel(req: IncomingMessage, res: ServerResponse, id: string) {
    const t = tasks.get(id);
    log.record(t?.tag ?? "untagged", req, "cancel", null);
    if (!authorized(req)) return unauthenticated(res);
    if (!t) return fail(res, 404, "NotFound", `The task ${id} does not exist.`);
    if (t.status !== "PENDING")
      return fail(
        res,
        400,
        "UnsupportedOperation",
        "Failed to cancel the task, please confirm if the task is in PENDING status.",
      );
    t.status = "CANCELED";
    t.ended = Date.now();
    json(res, 200, { request_id: requestId() });
  }

  return server.listen(async (req, res, url) => {
    const path = url.pathname.replace(/^\/api\/v1(?=\/)/, "").replace(/\/+$/, "");
    const method = req.method ?? "GET";
    if (method === "POST" && path === "/services/aigc/video-generation/video-synthesis") return create(req, res);
    const one = /^\/tasks\/([^/]+)(\/cancel)?$/.exec(path);
    if (one && method === "GET" && !one[2]) return read(req, res, decodeURIComponent(one[1] as string));
    if (one && method === "POST" && one[2]) return cancel(req, res, decodeURIComponent(one[1] as string));
    log.record("untagged", req, "other", null);
    fail(res, 404, "NotFound", `The requested path ${path} does not exist.`);
  });
}
