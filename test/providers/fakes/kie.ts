/**
 * A fake Kie Suno API, after Kie's documentation (docs.kie.ai Suno API: "Generate Music",
 * "Get Music Task Details", "Generate Music Callbacks", the quickstart):
 *   POST /api/v1/generate   {prompt, style, title, customMode, instrumental, model, callBackUrl,
 *                            negativeTags, vocalGender, styleWeight, weirdnessConstraint, audioWeight}
 *                           → {code: 200, msg: "success", data: {taskId}}
 *   GET  /api/v1/generate/record-info?taskId=
 *                           → {code: 200, msg, data: {taskId, param, response: {taskId, sunoData: [
 *                              {id, audioUrl, streamAudioUrl, imageUrl, prompt, modelName, title,
 *                              tags, createTime, duration}]}, status, type, errorCode, errorMessage}}
 * Failures are `{code, msg, data: null}`. Bodies are checked as the docs state the rules: the
 * required fields, customMode's conditional ones (simple: prompt ≤ 500; custom: style ≤ 1000,
 * title ≤ 80, prompt ≤ 5000 unless instrumental), vocalGender m|f, the weights 0-1, and
 * `callBackUrl` (required; refused without it, code 422 "Please enter callBackUrl"). Unlisted
 * fields are refused, which is stricter than Kie may be.
 *
 * A task's life, counted in record reads (kit.ts `lifeStage`): PENDING, TEXT_SUCCESS (lyrics,
 * no audio yet), then SUCCESS with two MP3 tracks served from /_files.
 *
 * Scenarios (`#fake:` in the prompt or style):
 *   submit_429      first submission of the tag: HTTP 429, Retry-After: 1, code 429
 *   submit_5xx      first submission of the tag: HTTP 500, code 500
 *   down            every submission: HTTP 200 with code 455 (system maintenance)
 *   safety_input    accepted, then SENSITIVE_WORD_ERROR with nothing generated, from the first read
 *   safety_output   PENDING, TEXT_SUCCESS with Suno's lyrics, then SENSITIVE_WORD_ERROR
 *   expiring_output each audioUrl answers once, then 404
 *   unknown_status  "QUEUING" (not a documented status) on the first two reads, then as usual
 *   malformed       SUCCESS without any audioUrl, every time
 *   slow            PENDING until the test gives up (Kie has no cancel)
 *   no_credits      (this fake only) every submission: HTTP 200 with code 402 "insufficient credits"
 * Auth: `Authorization: Bearer fakeKey("kie")`, else HTTP 401 with code 401. Control: GET /_fake/requests?tag=.
 * The account's credit (docs.kie.ai Common API "Get Remaining Credits", `GET /api/v1/chat/credit`):
 * `{code: 200, msg: "success", data: <credits>}` for a key the KeyRing accepts (kit.ts), code 402
 * "insufficient credits" for one whose account ran out (revoked `as=quota`), else HTTP 401 code 401.
 */
import { randomUUID } from "node:crypto";
import { buildFixtures } from "../../media/fixtures";
import {
  FakeServer,
  fakeKey,
  json,
  lifeStage,
  type RequestKind,
  type RunningFake,
  readBody,
  type Scenario,
  scenariosOf,
  tagOf,
} from "./kit";

export const provider = "kie";

type Body = Record<string, unknown>;

const MODELS = new Set(["V3_5", "V4", "V4_5", "V4_5PLUS", "V4_5ALL", "V5"]);
const FIELDS = new Set([
  "prompt",
  "style",
  "title",
  "customMode",
  "instrumental",
  "model",
  "callBackUrl",
  "negativeTags",
  "vocalGender",
  "styleWeight",
  "weirdnessConstraint",
  "audioWeight",
  "personaId",
]);
/** Custom-mode limits by model (V3_5 and V4: 3000 / 200; later models: 5000 / 1000). */
const LIMITS = (model: string) =>
  model === "V3_5" || model === "V4" ? { prompt: 3000, style: 200 } : { prompt: 5000, style: 1000 };

/** The first problem with a generate body, in Kie's words as far as they are known; null when valid. */
function problem(body: Body): { code: number; msg: string } | null {
  for (const key of Object.keys(body)) if (!FIELDS.has(key)) return { code: 422, msg: `Unknown parameter: ${key}` };
  if (typeof body.callBackUrl !== "string" || !/^https?:\/\/\S+$/.test(body.callBackUrl)) {
    return { code: 422, msg: "Please enter callBackUrl." };
  }
  if (typeof body.customMode !== "boolean") return { code: 422, msg: "customMode is required" };
  if (typeof body.instrumental !== "boolean") return { code: 422, msg: "instrumental is required" };
  if (typeof body.model !== "string" || !MODELS.has(body.model)) return { code: 422, msg: "model is invalid" };
  const len = (v: unknown) => (typeof v === "string" ? [...v].length : 0);
  if (body.customMode) {
    const limits = LIMITS(body.model);
    if (typeof body.style !== "string" || !body.style) return { code: 422, msg: "style is required in custom mode" };
    if (typeof body.title !== "string" || !body.title) return { code: 422, msg: "title is required in custom mode" };
    if (!body.instrumental && (typeof body.prompt !== "string" || !body.prompt)) {
      return { code: 422, msg: "prompt is required in custom mode when instrumental is false" };
    }
    if (len(body.style) > limits.style) return { code: 413, msg: "style is too long" };
    if (len(body.title) > 80) return { code: 413, msg: "title is too long" };
    if (len(body.prompt) > limits.prompt) return { code: 413, msg: "prompt is too long" };
  } else {
    if (typeof body.prompt !== "string" || !body.prompt) return { code: 422, msg: "prompt is required" };
    if (len(body.prompt) > 500) return { code: 413, msg: "prompt is too long" };
    if (body.vocalGender !== undefined) return { code: 422, msg: "vocalGender is only available in custom mode" };
  }
  if (body.vocalGender !== undefined && body.vocalGender !== "m" && body.vocalGender !== "f") {
    return { code: 422, msg: "vocalGender must be m or f" };
  }
  for (const key of ["styleWeight", "weirdnessConstraint", "audioWeight"]) {
    const v = body[key];
    if (v !== undefined && (typeof v !== "number" || v < 0 || v > 1)) return { code: 422, msg: `${key} must be between 0 and 1` };
  }
  if (body.negativeTags !== undefined && typeof body.negativeTags !== "string") {
    return { code: 422, msg: "negativeTags must be a string" };
  }
  return null;
}

/** This fake's own marker, `#fake:no_credits` (optionally `@kie`). */
function noCredits(text: string): boolean {
  for (const m of text.matchAll(/#fake:no_credits(?:@([a-z0-9-]+))?/g)) if (m[1] === undefined || m[1] === provider) return true;
  return false;
}

interface Task {
  id: string;
  tag: string;
  scenarios: Set<Scenario>;
  body: Body;
  reads: number;
  tracks?: Body[];
}

export async function start(): Promise<RunningFake> {
  const server = new FakeServer();
  const { log, files } = server;
  const tasks = new Map<string, Task>();
  const mp3 = (await buildFixtures()).mp3 as Uint8Array;

  const lyrics = (task: Task) =>
    task.body.instrumental ? "" : typeof task.body.prompt === "string" && task.body.customMode ? task.body.prompt : "[Verse] ...";
  const title = (task: Task) => (typeof task.body.title === "string" ? task.body.title : "Generated Song");

  /** Partial tracks (lyrics and metadata, no audio yet), as Kie shows them before FIRST_SUCCESS. */
  function partial(task: Task): Body[] {
    return [0, 1].map((i) => ({
      id: `${task.id}-${i}`,
      audioUrl: "",
      streamAudioUrl: "",
      imageUrl: "",
      prompt: lyrics(task),
      modelName: "chirp-v5",
      title: title(task),
      tags: typeof task.body.style === "string" ? task.body.style : "",
      createTime: new Date().toISOString().replace("T", " ").slice(0, 19),
      duration: null,
    }));
  }

  /** The finished tracks, made once (files are stored once, so `expiring_output` holds). */
  function finished(task: Task): Body[] {
    if (task.tracks) return task.tracks;
    task.tracks = partial(task).map((t) => ({
      ...t,
      audioUrl: task.scenarios.has("malformed")
        ? ""
        : files.add(mp3, "audio/mpeg", { once: task.scenarios.has("expiring_output"), tag: task.tag, ext: "mp3" }),
      streamAudioUrl: `${server.base}/_stream/${t.id}`,
      imageUrl: `${server.base}/_files/none.jpeg`,
      duration: 2.5,
    }));
    return task.tracks;
  }

  function record(task: Task): Body {
    const plain = {
      taskId: task.id,
      parentMusicId: "",
      param: JSON.stringify(task.body),
      type: "GENERATE",
      errorCode: null,
      errorMessage: null,
    };
    const withTracks = (status: string, sunoData: Body[]) => ({ ...plain, status, response: { taskId: task.id, sunoData } });
    if (task.scenarios.has("safety_input")) {
      return {
        ...withTracks("SENSITIVE_WORD_ERROR", []),
        errorCode: 400,
        errorMessage: "Your prompt contains sensitive words.",
      };
    }
    const stage = lifeStage(task.reads, task.scenarios);
    if (stage === "unknown") return withTracks("QUEUING", []);
    if (stage === "queued") return { ...plain, status: "PENDING", response: null };
    if (stage === "running") return withTracks("TEXT_SUCCESS", partial(task));
    if (task.scenarios.has("safety_output")) {
      return {
        ...withTracks("SENSITIVE_WORD_ERROR", partial(task)),
        errorCode: 400,
        errorMessage: "The generated lyrics contain sensitive words.",
      };
    }
    return withTracks("SUCCESS", finished(task));
  }

  return server.listen(async (req, res, url) => {
    const isSubmit = url.pathname === "/api/v1/generate";
    const isRecord = url.pathname === "/api/v1/generate/record-info";
    const raw = req.method === "POST" ? await readBody(req) : Buffer.alloc(0);
    let body: unknown = null;
    try {
      body = raw.length > 0 ? JSON.parse(raw.toString("utf8")) : null;
    } catch {}
    const b = body && typeof body === "object" && !Array.isArray(body) ? (body as Body) : null;
    // The tag may sit in the prompt (simple mode) or the style (custom mode: the service prompt).
    const text = [b?.prompt, b?.style, b?.title].filter((v) => typeof v === "string").join(" ");
    const task = isRecord ? tasks.get(url.searchParams.get("taskId") ?? "") : undefined;
    const kind: RequestKind = isSubmit ? "submit" : isRecord ? "status" : "other";
    log.record(task?.tag ?? tagOf(text), req, kind, body);

    if (req.method === "GET" && url.pathname === "/api/v1/chat/credit") {
      const key = req.headers.authorization?.replace(/^Bearer /, "");
      if (!server.keys.accepts(provider, key)) {
        json(res, 401, { code: 401, msg: "You do not have access permissions", data: null });
      } else if (server.keys.exhausted(key)) {
        json(res, 200, { code: 402, msg: "Insufficient credits", data: null });
      } else {
        json(res, 200, { code: 200, msg: "success", data: 100 });
      }
      return;
    }

    if (req.headers.authorization !== `Bearer ${fakeKey("kie")}`) {
      json(res, 401, { code: 401, msg: "You do not have access permissions", data: null });
      return;
    }

    if (isRecord) {
      if (req.method !== "GET") {
        json(res, 405, { code: 404, msg: "Invalid request method or path", data: null });
        return;
      }
      if (!task) {
        json(res, 200, { code: 404, msg: "Task not found", data: null });
        return;
      }
      task.reads++;
      if (task.scenarios.has("malformed") && task.reads % 2 === 0) {
        // Alternate the two malformed shapes: a record without status, and a SUCCESS without audio.
        json(res, 200, { code: 200, msg: "success", data: { taskId: task.id } });
        return;
      }
      if (task.scenarios.has("malformed")) {
        json(res, 200, {
          code: 200,
          msg: "success",
          data: { taskId: task.id, status: "SUCCESS", response: { sunoData: finished(task) } },
        });
        return;
      }
      json(res, 200, { code: 200, msg: "success", data: record(task) });
      return;
    }

    if (!isSubmit) {
      json(res, 404, { code: 404, msg: "Invalid request method or path", data: null });
      return;
    }
    if (req.method !== "POST") {
      json(res, 405, { code: 404, msg: "Invalid request method or path", data: null });
      return;
    }
    if (!b) {
      json(res, 200, { code: 400, msg: "Invalid parameters: the body must be a JSON object", data: null });
      return;
    }
    const tag = tagOf(text);
    const scenarios = scenariosOf(text, provider);
    const n = server.submission(tag);
    if (noCredits(text)) {
      json(res, 200, { code: 402, msg: "Insufficient credits. Please top up your account.", data: null });
      return;
    }
    if (scenarios.has("down")) {
      json(res, 200, { code: 455, msg: "System maintenance", data: null });
      return;
    }
    if (scenarios.has("submit_429") && n === 1) {
      json(res, 429, { code: 429, msg: "Rate limited: your call frequency is too high", data: null }, { "Retry-After": "1" });
      return;
    }
    if (scenarios.has("submit_5xx") && n === 1) {
      json(res, 500, { code: 500, msg: "Server error", data: null });
      return;
    }
    const bad = problem(b);
    if (bad) {
      json(res, 200, { ...bad, data: null });
      return;
    }
    const created: Task = { id: randomUUID().replaceAll("-", ""), tag, scenarios, body: b, reads: 0 };
    tasks.set(created.id, created);
    json(res, 200, { code: 200, msg: "success", data: { taskId: created.id } });
  });
}
