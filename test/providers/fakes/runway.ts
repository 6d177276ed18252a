/**
 * A fake Runway developer API, after Runway's documentation: the official SDK's types
 * (runwayml/sdk-node: `POST /v1/image_to_video` with the Gen-4 Turbo fields, answered `{id}`;
 * `GET /v1/tasks/{id}` answering PENDING, THROTTLED, RUNNING with `progress`, SUCCEEDED with
 * `output[]`, FAILED with `failure` and `failureCode`, CANCELLED; `DELETE /v1/tasks/{id}`
 * answered 204), the "API Errors" table (400 with an `error` member, 401, 404, 405, 429, 502–504)
 * and the "Task failures" page (SAFETY.INPUT.* and SAFETY.OUTPUT.* codes).
 *
 * Every call must carry `X-Runway-Version: 2024-11-06` (400 otherwise) and
 * `Authorization: Bearer fakeKey("runway")` (401 otherwise).
 *
 * A task's life, counted in reads: PENDING, THROTTLED, RUNNING (progress 0.45), then SUCCEEDED.
 * Every SUCCEEDED read issues fresh output URLs, as Runway's do (they expire in 24–48 h and a new
 * read signs new ones). Outputs are real MP4 files at the ratio's pixel size.
 *
 * Scenarios (`#fake:` in promptText):
 *   submit_429      first submission of the tag: 429, Retry-After: 1
 *   submit_5xx      first submission of the tag: 502 (load shedding)
 *   down            every submission: 503
 *   safety_input    accepted, then FAILED with SAFETY.INPUT.TEXT from the first read
 *   safety_output   PENDING, THROTTLED, RUNNING, then FAILED with SAFETY.OUTPUT.VIDEO
 *   expiring_output each output URL answers once, then 404 (each read still issues a fresh one)
 *   unknown_status  "PREPARING" (not a listed status) on the first two reads, then as usual
 *   malformed       SUCCEEDED without `output`, on every read
 *   slow            PENDING until it is cancelled (then CANCELLED)
 * Control: GET /_fake/requests?tag=.
 */
import { randomUUID } from "node:crypto";
import { isoFile } from "../../media/fixtures";
import {
  FakeServer,
  fakeKey,
  json,
  type RequestKind,
  type RunningFake,
  readBody,
  type Scenario,
  scenariosOf,
  tagOf,
} from "./kit";

export const provider = "runway";

const VERSION = "2024-11-06";
/** Gen-4 Turbo's output sizes (the SDK's `ratio` values). */
const RATIOS = ["1280:720", "720:1280", "1104:832", "832:1104", "960:960", "1584:672"];
const FIELDS = new Set(["model", "promptImage", "promptText", "ratio", "duration", "seed", "contentModeration"]);

type Body = Record<string, unknown>;

/** A video track only: Gen-4 Turbo makes no audio. */
function mp4(seconds: number, width: number, height: number): Uint8Array {
  return isoFile({
    brand: "isom",
    movie: { timescale: 1000, duration: seconds * 1000 },
    tracks: [{ handler: "vide", width, height, timescale: 12800, duration: seconds * 12800 }],
  });
}

/** "A HTTPS URL" on a domain name (Runway refuses IP hosts), or a data URI. */
function isAsset(v: unknown): boolean {
  if (typeof v !== "string" || v.length > 2048 * 4) return false;
  if (/^data:image\/(?:png|jpeg|webp);base64,/.test(v)) return true;
  try {
    const u = new URL(v);
    return u.protocol === "https:" && !/^[\d.]+$|^\[/.test(u.hostname) && v.length <= 2048;
  } catch {
    return false;
  }
}

/** The first problem with a Gen-4 Turbo body, in Runway's 400 style, or null. */
function problem(body: Body): string | null {
  for (const k of Object.keys(body)) if (!FIELDS.has(k)) return `Unrecognized key in body: "${k}"`;
  if (body.model !== "gen4_turbo") return "Invalid model: expected 'gen4_turbo'";
  const img = body.promptImage;
  const imageOk = Array.isArray(img)
    ? img.length === 1 &&
      !!img[0] &&
      typeof img[0] === "object" &&
      (img[0] as Body).position === "first" &&
      isAsset((img[0] as Body).uri)
    : isAsset(img);
  if (!imageOk) return "promptImage: Invalid URL. Only HTTPS URLs on a domain, or data URIs, are allowed.";
  if (body.promptText !== undefined) {
    if (typeof body.promptText !== "string" || body.promptText.length === 0 || body.promptText.length > 1000) {
      return "promptText: must be a non-empty string of at most 1000 characters";
    }
  }
  if (!RATIOS.includes(body.ratio as string)) return `ratio: must be one of ${RATIOS.join(", ")}`;
  if (
    body.duration !== undefined &&
    (!Number.isInteger(body.duration) || (body.duration as number) < 2 || (body.duration as number) > 10)
  ) {
    return "duration: must be an integer from 2 to 10";
  }
  if (
    body.seed !== undefined &&
    (!Number.isInteger(body.seed) || (body.seed as number) < 0 || (body.seed as number) > 4294967295)
  ) {
    return "seed: must be an integer from 0 to 4294967295";
  }
  return null;
}

interface Task {
  id: string;
  tag: string;
  scenarios: Set<Scenario>;
  body: Body;
  reads: number;
  createdAt: string;
  cancelled: boolean;
}

export async function start(): Promise<RunningFake> {
  const server = new FakeServer();
  const { log, files } = server;
  const tasks = new Map<string, Task>();

  /** The task's state at its current read count, without output URLs (so reading it has no side effect). */
  function state(task: Task): Body {
    const head = { id: task.id, createdAt: task.createdAt };
    if (task.cancelled) return { ...head, status: "CANCELLED" };
    const s = task.scenarios;
    if (s.has("safety_input")) {
      return {
        ...head,
        status: "FAILED",
        failure: "The prompt text did not pass content moderation.",
        failureCode: "SAFETY.INPUT.TEXT",
      };
    }
    // A SUCCEEDED answer without `output` from the first read on.
    if (s.has("malformed")) return { ...head, status: "SUCCEEDED" };
    let r = task.reads;
    if (s.has("unknown_status")) {
      if (r <= 2) return { ...head, status: "PREPARING" };
      r -= 2;
    }
    if (s.has("slow") || r <= 1) return { ...head, status: "PENDING" };
    if (r === 2) return { ...head, status: "THROTTLED" };
    if (r === 3) return { ...head, status: "RUNNING", progress: 0.45 };
    if (s.has("safety_output")) {
      return {
        ...head,
        status: "FAILED",
        failure: "The generated video did not pass content moderation.",
        failureCode: "SAFETY.OUTPUT.VIDEO",
      };
    }
    return { ...head, status: "SUCCEEDED" };
  }

  function answer(task: Task): Body {
    const now = state(task);
    if (now.status !== "SUCCEEDED" || task.scenarios.has("malformed")) return now;
    const [w, h] = String(task.body.ratio).split(":").map(Number) as [number, number];
    const seconds = typeof task.body.duration === "number" ? task.body.duration : 5;
    // A fresh URL on every read, as Runway signs new ones each time the task is fetched.
    const url = files.add(mp4(seconds, w, h), "video/mp4", {
      once: task.scenarios.has("expiring_output"),
      tag: task.tag,
      ext: "mp4",
    });
    return { ...now, output: [url] };
  }

  return server.listen(async (req, res, url) => {
    const taskMatch = /^\/v1\/tasks\/([^/]+)$/.exec(url.pathname);
    const isSubmit = url.pathname === "/v1/image_to_video";
    const raw = req.method === "POST" ? await readBody(req) : Buffer.alloc(0);
    let body: unknown = null;
    try {
      body = raw.length > 0 ? JSON.parse(raw.toString("utf8")) : null;
    } catch {}
    const task = taskMatch ? tasks.get(decodeURIComponent(taskMatch[1] as string)) : undefined;
    const prompt = typeof (body as Body | null)?.promptText === "string" ? ((body as Body).promptText as string) : "";
    const kind: RequestKind = isSubmit
      ? "submit"
      : taskMatch && req.method === "DELETE"
        ? "cancel"
        : taskMatch
          ? "status"
          : "other";
    log.record(task?.tag ?? tagOf(prompt), req, kind, body);

    const auth = req.headers.authorization;
    if (auth !== `Bearer ${fakeKey(provider)}`) {
      json(res, 401, { error: "The provided API key is not valid." });
      return;
    }
    if (req.headers["x-runway-version"] !== VERSION) {
      json(res, 400, { error: `The X-Runway-Version header must be set to a valid API version, e.g. ${VERSION}.` });
      return;
    }

    if (taskMatch) {
      if (!task) {
        json(res, 404, { error: "Task not found." });
        return;
      }
      if (req.method === "GET") {
        task.reads++;
        json(res, 200, answer(task));
        return;
      }
      if (req.method === "DELETE") {
        const status = state(task).status;
        // Cancels a waiting or running task; deletes any other, which cannot be read again.
        if (status === "PENDING" || status === "THROTTLED" || status === "RUNNING" || status === "PREPARING")
          task.cancelled = true;
        else tasks.delete(task.id);
        res.writeHead(204).end();
        return;
      }
      json(res, 405, { error: "Method not allowed." });
      return;
    }

    if (!isSubmit) {
      json(res, 404, { error: "Not found." });
      return;
    }
    if (req.method !== "POST") {
      json(res, 405, { error: "Method not allowed." });
      return;
    }
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      json(res, 400, { error: "The request body must be a JSON object." });
      return;
    }
    const input = body as Body;
    const tag = tagOf(prompt);
    const scenarios = scenariosOf(prompt, provider);
    const n = server.submission(tag);
    if (scenarios.has("down")) {
      json(res, 503, { error: "Service unavailable." });
      return;
    }
    if (scenarios.has("submit_429") && n === 1) {
      json(res, 429, { error: "You have exceeded the rate limit." }, { "Retry-After": "1" });
      return;
    }
    if (scenarios.has("submit_5xx") && n === 1) {
      json(res, 502, { error: "Bad gateway." });
      return;
    }
    const issue = problem(input);
    if (issue) {
      json(res, 400, { error: issue });
      return;
    }
    const created: Task = {
      id: randomUUID(),
      tag,
      scenarios,
      body: input,
      reads: 0,
      createdAt: new Date().toISOString(),
      cancelled: false,
    };
    tasks.set(created.id, created);
    json(res, 200, { id: created.id });
  });
}
