/**
 * A fake Black Forest Labs API, after BFL's documentation: the API reference (docs.bfl.ai
 * api-reference, OpenAPI at api.bfl.ai/openapi.json: each model's request fields, the answer
 * `{id, polling_url, cost, input_mp, output_mp}`, `GET /v1/get_result?id=` answering
 * `{id, status, result, progress, details, preview}`), the integration guide (use the returned
 * polling_url; result URLs expire after ten minutes) and the help centre's error table (400/422
 * invalid input, 402 insufficient credits, 403 key without access, 429 concurrency limit, 500, 503).
 *
 * A task's life, counted in result reads (kit.ts `lifeStage`): Pending without progress, Pending
 * with progress, then Ready with `result.sample`. Bodies are checked against each endpoint's
 * documented fields and answered 422 `{detail: [{loc, msg, type}]}` as BFL's FastAPI validation
 * does; refusing fields the reference does not list is stricter than BFL may be.
 *
 * Scenarios (`#fake:` in the prompt):
 *   submit_429      first submission of the tag: 429, Retry-After: 1 (`rate_limit_exceeded`)
 *   submit_5xx      first submission of the tag: 500
 *   down            every submission: 503
 *   safety_input    accepted, then "Request Moderated" from the first read (input flagged; not charged)
 *   safety_output   Pending as usual, then "Content Moderated" where Ready would be
 *   expiring_output result.sample answers once, then 404 (delivery URLs expire)
 *   unknown_status  "Processing" (not a documented status) on the first two reads, then as usual
 *   malformed       a Ready answer without result.sample, every time
 *   slow            Pending until the test gives up (BFL has no cancel)
 *   answer_lost     the task is created but the connection drops before the answer
 *   no_credits      (this fake only) every submission: 402 `insufficient_credits`
 *   task_error_<reason>  (this fake only) accepted, then `{status: "Error", error: <reason>, message}` from
 *                   the first read, with a reason the error-handling guide lists: content_policy_violation
 *                   (prompt or image flagged), generation_timeout, internal_error, invalid_image
 * Auth: `x-key` must be fakeKey("bfl"): without the header 403 "Not authenticated", with another
 * key 401 `invalid_api_key`. Control: GET /_fake/requests?tag=.
 */
import { randomUUID } from "node:crypto";
import {
  dropConnection,
  FakeServer,
  fakeKey,
  json,
  lifeStage,
  png,
  type RequestKind,
  type RunningFake,
  readBody,
  type Scenario,
  scenariosOf,
  tagOf,
} from "./kit";

export const provider = "bfl";

type Body = Record<string, unknown>;
type Issue = { type: string; loc: (string | number)[]; msg: string };
type Check = (value: unknown) => string | null;

const str: Check = (v) => (typeof v === "string" ? null : "Input should be a valid string");
const bool: Check = (v) => (typeof v === "boolean" ? null : "Input should be a valid boolean");
const int =
  (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): Check =>
  (v) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max
      ? null
      : `Input should be an integer from ${min} to ${max}`;
const num =
  (min: number, max: number): Check =>
  (v) =>
    typeof v === "number" && v >= min && v <= max ? null : `Input should be a number from ${min} to ${max}`;
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === "string" && values.includes(v) ? null : `Input should be ${values.map((x) => `'${x}'`).join(" or ")}`;
const uri: Check = (v) =>
  typeof v === "string" && /^https?:\/\/\S+$/.test(v) && v.length <= 2083 ? null : "Input should be a valid URL";
/** "Base64 encoded image or URL" (Kontext, FLUX.2 reference images). */
const image: Check = (v) =>
  typeof v === "string" && (/^https?:\/\/\S+$/.test(v) || /^[A-Za-z0-9+/]{16,}={0,2}$/.test(v))
    ? null
    : "Input should be a URL or a base64 encoded image";
/** Ultra's image_prompt is base64. */
const b64: Check = (v) =>
  typeof v === "string" && /^[A-Za-z0-9+/]{16,}={0,2}$/.test(v) ? null : "Input should be a base64 encoded image";
/** "Aspect ratio of the image between 21:9 and 9:21". */
const ratio: Check = (v) => {
  const m = typeof v === "string" ? /^(\d+):(\d+)$/.exec(v) : null;
  const r = m ? Number(m[1]) / Number(m[2]) : Number.NaN;
  return Number.isFinite(r) && r <= 21 / 9 + 1e-9 && r >= 9 / 21 - 1e-9 ? null : "Aspect ratio must be between 21:9 and 9:21";
};
/** FLUX.2 sizes: at least 64 px, multiples of 16. */
const edge: Check = (v) =>
  Number.isInteger(v) && (v as number) >= 64 && (v as number) % 16 === 0 ? null : "Must be a multiple of 16, at least 64";

const nullable =
  (check: Check): Check =>
  (v) =>
    v === null ? null : check(v);

const WEBHOOK = { webhook_url: nullable(uri), webhook_secret: nullable(str) };
const refs = (n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [i === 0 ? "input_image" : `input_image_${i + 1}`, nullable(image)]));

const FLUX2 = {
  prompt: str,
  ...refs(8),
  seed: nullable(int()),
  width: nullable(edge),
  height: nullable(edge),
  safety_tolerance: int(0, 5),
  output_format: nullable(oneOf("jpeg", "png")),
  prompt_upsampling: nullable(bool),
  ...WEBHOOK,
};
const KONTEXT = {
  prompt: str,
  ...refs(4),
  seed: nullable(int()),
  aspect_ratio: nullable(ratio),
  output_format: nullable(oneOf("jpeg", "png")),
  prompt_upsampling: bool,
  safety_tolerance: int(0, 6),
  ...WEBHOOK,
};
const ULTRA = {
  prompt: nullable(str),
  prompt_upsampling: bool,
  seed: nullable(int()),
  aspect_ratio: ratio,
  safety_tolerance: int(0, 6),
  output_format: nullable(oneOf("jpeg", "png")),
  raw: bool,
  image_prompt: nullable(b64),
  image_prompt_strength: num(0, 1),
  ...WEBHOOK,
};

interface Endpoint {
  fields: Record<string, Check>;
  required: string[];
  /** Output size: exact width/height (FLUX.2), or megapixels at an aspect ratio (Kontext ~1 MP, Ultra ~4 MP). */
  size: "exact" | { megapixels: number; aspect: string };
  /** Credits per task, for a plausible `cost` (1 credit = $0.01). */
  credits: number;
}

/** The endpoints the catalog routes to BFL, and their FLUX siblings. */
const ENDPOINTS: Record<string, Endpoint> = {
  "flux-2-pro": { fields: FLUX2, required: ["prompt"], size: "exact", credits: 3 },
  "flux-2-max": { fields: FLUX2, required: ["prompt"], size: "exact", credits: 7 },
  "flux-2-flex": {
    fields: { ...FLUX2, guidance: num(1.5, 10), steps: int(1, 50) },
    required: ["prompt"],
    size: "exact",
    credits: 5,
  },
  "flux-kontext-pro": { fields: KONTEXT, required: ["prompt"], size: { megapixels: 1, aspect: "1:1" }, credits: 4 },
  "flux-kontext-max": { fields: KONTEXT, required: ["prompt"], size: { megapixels: 1, aspect: "1:1" }, credits: 8 },
  "flux-pro-1.1-ultra": { fields: ULTRA, required: [], size: { megapixels: 4, aspect: "16:9" }, credits: 6 },
};

function validate(spec: Endpoint, body: Body): Issue[] {
  const issues: Issue[] = [];
  for (const field of spec.required) {
    if (body[field] === undefined) issues.push({ type: "missing", loc: ["body", field], msg: "Field required" });
  }
  for (const [field, value] of Object.entries(body)) {
    const check = spec.fields[field];
    if (!check) {
      issues.push({ type: "extra_forbidden", loc: ["body", field], msg: "Extra inputs are not permitted" });
      continue;
    }
    const msg = check(value);
    if (msg) issues.push({ type: "value_error", loc: ["body", field], msg });
  }
  if (spec.size === "exact" && typeof body.width === "number" && typeof body.height === "number") {
    if (body.width * body.height > 2048 * 2048) {
      issues.push({ type: "value_error", loc: ["body", "width"], msg: "Total pixels cannot exceed 4MP" });
    }
  }
  return issues;
}

function sizeOf(spec: Endpoint, body: Body): [number, number] {
  if (spec.size === "exact") {
    const w = typeof body.width === "number" && body.width > 0 ? body.width : 1024;
    const h = typeof body.height === "number" && body.height > 0 ? body.height : 1024;
    return [w, h];
  }
  const [a, b] = (typeof body.aspect_ratio === "string" ? body.aspect_ratio : spec.size.aspect).split(":").map(Number) as [
    number,
    number,
  ];
  const pixels = spec.size.megapixels * 1024 * 1024;
  const width = Math.round(Math.sqrt((pixels * a) / b) / 16) * 16;
  return [width, Math.round((width * b) / a / 16) * 16];
}

/** This fake's own marker, `#fake:no_credits` (optionally `@bfl`): the account is out of credits. */
function noCredits(text: string): boolean {
  for (const m of text.matchAll(/#fake:no_credits(?:@([a-z0-9-]+))?/g)) if (m[1] === undefined || m[1] === provider) return true;
  return false;
}

/** The failure reasons BFL's error-handling guide lists for a task that ends `Error`, with its wording. */
const TASK_ERRORS: Record<string, string> = {
  content_policy_violation: "The prompt violated content policy",
  generation_timeout: "The generation took too long",
  internal_error: "An internal error occurred",
  invalid_image: "The input image could not be processed",
};

/** This fake's own marker, `#fake:task_error_<reason>` (optionally `@bfl`): the task ends `Error` with that reason. */
function taskError(text: string): string | undefined {
  for (const m of text.matchAll(/#fake:task_error_([a-z_]+)(?:@([a-z0-9-]+))?/g)) {
    if ((m[2] === undefined || m[2] === provider) && Object.hasOwn(TASK_ERRORS, m[1] as string)) return m[1];
  }
  return undefined;
}

interface Task {
  id: string;
  endpoint: string;
  tag: string;
  scenarios: Set<Scenario>;
  body: Body;
  reads: number;
  ready?: Body;
  error?: string;
}

export async function start(): Promise<RunningFake> {
  const server = new FakeServer();
  const { log, files } = server;
  const tasks = new Map<string, Task>();

  /** The Ready answer, made once (its file is stored once, so `expiring_output` holds). */
  function ready(task: Task): Body {
    if (task.ready) return task.ready;
    const spec = ENDPOINTS[task.endpoint] as Endpoint;
    const seed = typeof task.body.seed === "number" ? task.body.seed : 424242;
    const prompt = task.body.prompt ?? "";
    if (task.scenarios.has("malformed")) {
      task.ready = { id: task.id, status: "Ready", result: { prompt, seed }, progress: null, details: null, preview: null };
      return task.ready;
    }
    const [width, height] = sizeOf(spec, task.body);
    const sample = files.add(png(width, height), "image/png", {
      once: task.scenarios.has("expiring_output"),
      tag: task.tag,
      ext: "png",
    });
    const now = Date.now() / 1000;
    task.ready = {
      id: task.id,
      status: "Ready",
      result: { sample, prompt, seed, start_time: now - 4, end_time: now, duration: 4 },
      progress: null,
      details: null,
      preview: null,
    };
    return task.ready;
  }

  function answer(task: Task): Body {
    const plain = { id: task.id, result: null, details: null, preview: null };
    if (task.error) {
      return { ...plain, status: "Error", progress: null, error: task.error, message: TASK_ERRORS[task.error] };
    }
    if (task.scenarios.has("safety_input")) {
      return { ...plain, status: "Request Moderated", progress: null, details: { "Moderation Reasons": ["Content"] } };
    }
    const stage = lifeStage(task.reads, task.scenarios);
    if (stage === "unknown") return { ...plain, status: "Processing", progress: null };
    if (stage === "queued") return { ...plain, status: "Pending", progress: null };
    if (stage === "running") return { ...plain, status: "Pending", progress: 0.4 };
    if (task.scenarios.has("safety_output")) {
      return { ...plain, status: "Content Moderated", progress: null, details: { "Moderation Reasons": ["Content"] } };
    }
    return ready(task);
  }

  return server.listen(async (req, res, url) => {
    const submit = /^\/v1\/([a-z0-9.-]+)$/.exec(url.pathname);
    const isResult = url.pathname === "/v1/get_result";
    const raw = req.method === "POST" ? await readBody(req) : Buffer.alloc(0);
    let body: unknown = null;
    try {
      body = raw.length > 0 ? JSON.parse(raw.toString("utf8")) : null;
    } catch {}
    const task = isResult ? tasks.get(url.searchParams.get("id") ?? "") : undefined;
    const prompt = typeof (body as Body | null)?.prompt === "string" ? ((body as Body).prompt as string) : "";
    const kind: RequestKind = isResult ? "status" : submit && !isResult ? "submit" : "other";
    log.record(task?.tag ?? tagOf(prompt), req, kind, body);

    const key = req.headers["x-key"];
    if (key === undefined) {
      json(res, 403, { detail: "Not authenticated" });
      return;
    }
    if (key !== fakeKey("bfl")) {
      json(res, 401, { error: "invalid_api_key", message: "The provided API key is invalid or expired" });
      return;
    }

    if (isResult) {
      if (req.method !== "GET") {
        json(res, 405, { detail: "Method Not Allowed" });
        return;
      }
      const id = url.searchParams.get("id");
      if (!id) {
        json(res, 422, { detail: [{ type: "missing", loc: ["query", "id"], msg: "Field required" }] });
        return;
      }
      if (!task) {
        json(res, 200, { id, status: "Task not found", result: null, progress: null, details: null, preview: null });
        return;
      }
      task.reads++;
      json(res, 200, answer(task));
      return;
    }

    const spec = submit ? ENDPOINTS[submit[1] as string] : undefined;
    if (!submit || !spec) {
      json(res, 404, { detail: "Not Found" });
      return;
    }
    if (req.method !== "POST") {
      json(res, 405, { detail: "Method Not Allowed" });
      return;
    }
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      json(res, 422, { detail: [{ type: "model_attributes_type", loc: ["body"], msg: "Input should be a valid dictionary" }] });
      return;
    }
    const input = body as Body;
    const tag = tagOf(prompt);
    const scenarios = scenariosOf(prompt, provider);
    const n = server.submission(tag);
    if (noCredits(prompt)) {
      json(res, 402, { error: "insufficient_credits", message: "Your account does not have enough credits" });
      return;
    }
    if (scenarios.has("down")) {
      json(res, 503, { detail: "Service Unavailable" });
      return;
    }
    if (scenarios.has("submit_429") && n === 1) {
      json(
        res,
        429,
        { error: "rate_limit_exceeded", message: "Too many concurrent requests", retry_after: 1 },
        { "Retry-After": "1" },
      );
      return;
    }
    if (scenarios.has("submit_5xx") && n === 1) {
      json(res, 500, { detail: "Internal Server Error" });
      return;
    }
    const issues = validate(spec, input);
    if (issues.length > 0) {
      json(res, 422, { detail: issues });
      return;
    }
    const error = taskError(prompt);
    const created: Task = {
      id: randomUUID(),
      endpoint: submit[1] as string,
      tag,
      scenarios,
      body: input,
      reads: 0,
      ...(error ? { error } : {}),
    };
    tasks.set(created.id, created);
    if (scenarios.has("answer_lost")) {
      dropConnection(res);
      return;
    }
    const [width, height] = sizeOf(spec, input);
    const outputMp = Math.round(((width * height) / 1_000_000) * 100) / 100;
    json(res, 200, {
      id: created.id,
      polling_url: `${server.base}/v1/get_result?id=${created.id}`,
      cost: spec.credits,
      input_mp: 0,
      output_mp: outputMp,
    });
  });
}
