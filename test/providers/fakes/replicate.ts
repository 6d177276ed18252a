/**
 * A fake Replicate, written from Replicate's HTTP API reference (replicate.com/docs/reference/http)
 * and its topic pages (prediction lifecycle, rate limits, webhooks):
 *   POST /models/{owner}/{name}/predictions  create on an official model, `{input, webhook?, webhook_events_filter?}` → 201
 *   POST /predictions                        create on a version, `{version, input, …}` → 201
 *   GET  /predictions/{id}                   the prediction object
 *   POST /predictions/{id}/cancel            the prediction object (finished ones are left as they are)
 *   GET  /predictions                        newest first, 100 a page, `{next, previous, results}`,
 *                                            `created_after` / `created_before` filters, opaque `cursor`
 * Paths are answered with or without the `/v1` prefix. Every call needs `Authorization: Bearer <key>`
 * (401 `{"title":"Unauthenticated","detail":"You did not pass a valid authentication token","status":401}`).
 * Errors are problem+json; input validation answers 422 with `invalid_fields`, checked against the
 * black-forest-labs/flux-2-pro input schema (prompt, input_images ≤ 8, aspect_ratio, resolution,
 * width/height 256-2048 with aspect_ratio "custom", safety_tolerance 1-5, seed, output_format, output_quality).
 *
 * Scenarios (`#fake:` in the prompt; see kit.ts), in Replicate's shapes:
 *   ok               starting on status read 1, processing (with logs) on read 2, succeeded on read 3;
 *                    the output is one URL (the model's output schema is a single URI) to a real PNG
 *                    of the requested size
 *   submit_429       the tag's first create: 429 `{"detail":"Request was throttled. Expected available in 1 second."}`, Retry-After: 1
 *   submit_5xx       the tag's first create: 500 problem+json
 *   down             every create: 503 problem+json
 *   safety_input     created, then failed on read 1 before it started, with Replicate's E005 wording
 *   safety_output    runs, then fails at the end with a safety checker's NSFW wording
 *   expiring_output  the output URL answers once, then 404 (Replicate deletes files after an hour)
 *   unknown_status   reads 1 and 2 answer status "queued", which the documentation does not list
 *   malformed        every read of the prediction: a body that is not JSON, or JSON without `status`
 *   slow             stays "starting" until canceled
 *   answer_lost      the prediction is created, but the connection drops before the 201 answer
 * Requests are recorded by the `#tag:` of their prediction's prompt: create "submit", reads "status"
 * (or "result" once the prediction had finished), cancel "cancel", list "list" (under the tags of
 * the predictions the page holds), output files "download".
 * A prediction is answered with the fields of Replicate's OpenAPI `Prediction` (its generated clients'
 * model): the webhook it was created with is kept here but never shown, in one prediction or the list.
 * Webhooks are not sent: the service's public address in tests is not reachable from here. The
 * `Prefer: wait` and `Cancel-After` headers are recorded but not acted on (creates answer at once).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  dropConnection,
  FakeServer,
  fakeKey,
  json,
  lifeStage,
  png,
  type RunningFake,
  readBody,
  type Scenario,
  scenariosOf,
  tagOf,
} from "./kit";

export const provider = "replicate";

/** The fake account's webhook signing secret (Standard Webhooks `whsec_<base64>`, as Replicate hands it out). */
export const REPLICATE_FAKE_WEBHOOK_SECRET = "whsec_cmVwbGljYXRlLWZha2Utd2ViaG9vay1zZWNyZXQtMDE=";

export function bindings(): Record<string, string> {
  return { PROVIDER_REPLICATE_WEBHOOK_SECRET: REPLICATE_FAKE_WEBHOOK_SECRET };
}

/** Replicate's wording for a flagged input or output (error code E005). */
export const FLAGGED_MESSAGE = "The input or output was flagged as sensitive. Please try again with different inputs. (E005)";
/** A safety checker's wording when every generated image was blocked. */
export const NSFW_MESSAGE = "NSFW content detected. Try running it again, or try a different prompt.";
/** A status the documentation does not list. */
export const UNLISTED_STATUS = "queued";

const PAGE_SIZE = 100;
const TERMINAL = new Set(["succeeded", "failed", "canceled", "aborted"]);
const ASPECT_RATIOS = ["1:1", "16:9", "3:2", "2:3", "4:5", "5:4", "9:16", "3:4", "4:3", "custom", "match_input_image"];
const OUTPUT_FORMATS = ["webp", "jpg", "png"];
const VERSION = "00b07c32e314ceb5152c1d08e73400e6a61d7d22ba60a405fc76314fc807910c";

interface FakePrediction {
  seq: number;
  id: string;
  model: string;
  version: string;
  input: Record<string, unknown>;
  tag: string;
  scenarios: Set<Scenario>;
  reads: number;
  created: number;
  started: number | null;
  completed: number | null;
  status: string;
  output: string | null;
  error: string | null;
  logs: string;
  webhook: string | null;
  webhookEvents: string[] | null;
  width: number;
  height: number;
}

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

function problem(res: ServerResponse, status: number, title: string, detail: string, extra: Record<string, unknown> = {}) {
  res.writeHead(status, { "Content-Type": "application/problem+json" }).end(JSON.stringify({ title, detail, status, ...extra }));
}

/** The size flux-2-pro would make: width/height with "custom", else the ratio at the resolution's megapixels. */
function sizeOf(input: Record<string, unknown>): { width: number; height: number } {
  const round16 = (n: number) => Math.max(16, Math.round(n / 16) * 16);
  const ratio = typeof input.aspect_ratio === "string" ? input.aspect_ratio : "1:1";
  if (ratio === "custom") return { width: round16(Number(input.width)), height: round16(Number(input.height)) };
  const m = /^(\d+):(\d+)$/.exec(ratio);
  const mp = Number(/^(\d+(?:\.\d+)?) ?MP$/i.exec(String(input.resolution ?? "1 MP"))?.[1] ?? 1);
  const [a, b] = m ? [Number(m[1]), Number(m[2])] : [1, 1];
  let width = Math.sqrt((mp * 1024 * 1024 * a) / b);
  let height = (width * b) / a;
  const scale = Math.min(1, 2048 / Math.max(width, height));
  width *= scale;
  height *= scale;
  return { width: Math.min(2048, round16(width)), height: Math.min(2048, round16(height)) };
}

/** The flux-2-pro input schema's checks, as `invalid_fields` entries. */
function invalidFields(input: unknown): { type: string; field: string; description: string }[] {
  if (!input || typeof input !== "object" || Array.isArray(input)) {
    return [{ type: "required", field: "", description: "input is required" }];
  }
  const i = input as Record<string, unknown>;
  const out: { type: string; field: string; description: string }[] = [];
  const int = (v: unknown) => typeof v === "number" && Number.isInteger(v);
  if (typeof i.prompt !== "string" || i.prompt.length === 0)
    out.push({ type: "required", field: "input", description: "prompt is required" });
  if (i.aspect_ratio !== undefined && !ASPECT_RATIOS.includes(String(i.aspect_ratio))) {
    out.push({
      type: "enum",
      field: "input.aspect_ratio",
      description: `aspect_ratio must be one of the following: ${ASPECT_RATIOS.map((r) => `"${r}"`).join(", ")}`,
    });
  }
  for (const side of ["width", "height"]) {
    const v = i[side];
    if (v !== undefined && (!int(v) || (v as number) < 256 || (v as number) > 2048)) {
      out.push({ type: "number_range", field: `input.${side}`, description: "Must be an integer between 256 and 2048" });
    }
    if (i.aspect_ratio === "custom" && v === undefined) {
      out.push({ type: "required", field: "input", description: `${side} is required when aspect_ratio is custom` });
    }
  }
  if (i.input_images !== undefined) {
    const images = i.input_images;
    if (!Array.isArray(images) || images.some((u) => typeof u !== "string" || !/^(https?:\/\/|data:)/.test(u))) {
      out.push({ type: "format", field: "input.input_images", description: "Must be a list of URIs" });
    } else if (images.length > 8) {
      out.push({ type: "array_max_items", field: "input.input_images", description: "Must have at most 8 items" });
    }
  }
  if (i.output_format !== undefined && !OUTPUT_FORMATS.includes(String(i.output_format))) {
    out.push({
      type: "enum",
      field: "input.output_format",
      description: 'output_format must be one of the following: "webp", "jpg", "png"',
    });
  }
  if (
    i.safety_tolerance !== undefined &&
    (!int(i.safety_tolerance) || (i.safety_tolerance as number) < 1 || (i.safety_tolerance as number) > 5)
  ) {
    out.push({ type: "number_range", field: "input.safety_tolerance", description: "Must be an integer between 1 and 5" });
  }
  if (i.seed !== undefined && !int(i.seed))
    out.push({ type: "invalid_type", field: "input.seed", description: "Invalid type. Expected: integer" });
  return out;
}

function newId(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  let id = "";
  for (let i = 0; i < 26; i++) id += alphabet[Math.floor(Math.random() * alphabet.length)];
  return id;
}

export async function start(): Promise<RunningFake> {
  const server = new FakeServer();
  const { log, files } = server;
  const predictions = new Map<string, FakePrediction>();
  const ordered: FakePrediction[] = [];
  let seq = 0;

  function view(p: FakePrediction): Record<string, unknown> {
    const done = TERMINAL.has(p.status);
    const started = p.started ?? p.completed;
    return {
      id: p.id,
      model: p.model,
      version: p.version,
      input: p.input,
      logs: p.logs,
      output: p.output,
      data_removed: false,
      error: p.error,
      source: "api",
      status: p.status,
      created_at: iso(p.created),
      started_at: iso(p.started),
      completed_at: iso(p.completed),
      urls: {
        cancel: `${server.base}/predictions/${p.id}/cancel`,
        get: `${server.base}/predictions/${p.id}`,
        web: `https://replicate.com/p/${p.id}`,
      },
      metrics:
        done && started !== null && p.completed !== null
          ? { predict_time: (p.completed - started) / 1000, total_time: (p.completed - p.created) / 1000 }
          : {},
    };
  }

  function finish(p: FakePrediction, status: string, error: string | null = null) {
    p.status = status;
    p.error = error;
    p.completed = Date.now();
  }

  /** One status read moves the prediction along its scenario. */
  function advance(p: FakePrediction) {
    if (TERMINAL.has(p.status)) return;
    p.reads++;
    if (p.scenarios.has("safety_input")) {
      // Refused before the model ran: no started_at, no predict_time.
      finish(p, "failed", FLAGGED_MESSAGE);
      return;
    }
    switch (lifeStage(p.reads, p.scenarios)) {
      case "unknown":
        p.status = UNLISTED_STATUS;
        return;
      case "queued":
        p.status = "starting";
        return;
      case "running":
        p.status = "processing";
        p.started ??= Date.now();
        p.logs = `Using seed: ${Number(p.input.seed ?? 42)}\nGenerating image...\n 50%|█████     | 14/28 [00:03<00:03, 4.21it/s]\n`;
        return;
      case "done": {
        p.started ??= Date.now();
        if (p.scenarios.has("safety_output")) {
          p.logs += "Running safety checker...\n";
          finish(p, "failed", NSFW_MESSAGE);
          return;
        }
        p.logs += "100%|██████████| 28/28 [00:06<00:00, 4.20it/s]\n";
        p.output = files.add(png(p.width, p.height, p.seq), "image/png", {
          once: p.scenarios.has("expiring_output"),
          tag: p.tag,
          ext: "png",
        });
        finish(p, "succeeded");
        return;
      }
    }
  }

  async function create(req: IncomingMessage, res: ServerResponse, model: string | null) {
    const raw = await readBody(req);
    let body: any;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      log.record("untagged", req, "submit", null);
      return problem(res, 400, "Invalid JSON", "The request body is not valid JSON.");
    }
    const prompt = typeof body?.input?.prompt === "string" ? body.input.prompt : "";
    const tag = tagOf(prompt);
    log.record(tag, req, "submit", body);
    if (req.headers.authorization !== `Bearer ${fakeKey(provider)}`) return unauthenticated(res);
    let version = VERSION;
    if (model === null) {
      // POST /predictions: `version` is `owner/name:id`, `owner/name` or the bare 64-character id.
      const v = typeof body?.version === "string" ? body.version : "";
      const m = /^([\w.-]+\/[\w.-]+)(?::(\w+))?$/.exec(v);
      if (!m && !/^[0-9a-f]{64}$/.test(v)) {
        return problem(
          res,
          422,
          "Invalid version or not permitted",
          "The specified version does not exist (or perhaps you don't have permission to use it?)",
        );
      }
      model = m ? (m[1] as string) : "black-forest-labs/flux-2-pro";
      version = m?.[2] ?? (m ? VERSION : v);
    }
    const scenarios = scenariosOf(prompt, provider);
    const n = server.submission(tag);
    if (scenarios.has("down")) {
      return problem(res, 503, "Service Unavailable", "Replicate is temporarily unavailable. Please try again later.");
    }
    if (scenarios.has("submit_429") && n === 1) {
      return json(res, 429, { detail: "Request was throttled. Expected available in 1 second." }, { "Retry-After": "1" });
    }
    if (scenarios.has("submit_5xx") && n === 1) {
      return problem(res, 500, "Internal Server Error", "An unexpected error occurred. Please try again.");
    }
    const invalid = invalidFields(body?.input);
    if (invalid.length > 0) {
      return problem(
        res,
        422,
        "Input validation failed",
        invalid.map((f) => `- ${f.field || "input"}: ${f.description}\n`).join(""),
        {
          invalid_fields: invalid,
        },
      );
    }
    if (body.webhook !== undefined && (typeof body.webhook !== "string" || !/^https?:\/\//.test(body.webhook))) {
      return problem(res, 422, "Input validation failed", "- webhook: Must be a valid URL\n", {
        invalid_fields: [{ type: "format", field: "webhook", description: "Must be a valid URL" }],
      });
    }
    const size = sizeOf(body.input);
    const p: FakePrediction = {
      seq: ++seq,
      id: newId(),
      model,
      version,
      input: body.input,
      tag,
      scenarios,
      reads: 0,
      created: Date.now(),
      started: null,
      completed: null,
      status: "starting",
      output: null,
      error: null,
      logs: "",
      webhook: typeof body.webhook === "string" ? body.webhook : null,
      webhookEvents: Array.isArray(body.webhook_events_filter) ? body.webhook_events_filter : null,
      ...size,
    };
    predictions.set(p.id, p);
    ordered.push(p);
    if (scenarios.has("answer_lost")) return dropConnection(res);
    json(res, 201, view(p));
  }

  function unauthenticated(res: ServerResponse) {
    problem(res, 401, "Unauthenticated", "You did not pass a valid authentication token");
  }

  function notFound(res: ServerResponse) {
    problem(res, 404, "Not found", "The requested resource could not be found.");
  }

  function read(req: IncomingMessage, res: ServerResponse, p: FakePrediction | undefined) {
    const wasDone = p ? TERMINAL.has(p.status) : false;
    log.record(p?.tag ?? "untagged", req, wasDone ? "result" : "status", null);
    if (req.headers.authorization !== `Bearer ${fakeKey(provider)}`) return unauthenticated(res);
    if (!p) return notFound(res);
    if (p.scenarios.has("malformed")) {
      p.reads++;
      // Alternately not JSON at all, and JSON that lacks the documented fields.
      if (p.reads % 2 === 1) {
        res.writeHead(200, { "Content-Type": "application/json" }).end("<html><body>upstream hiccup</body></html>");
      } else {
        json(res, 200, { id: p.id, urls: view(p).urls });
      }
      return;
    }
    advance(p);
    json(res, 200, view(p));
  }

  function cancel(req: IncomingMessage, res: ServerResponse, p: FakePrediction | undefined) {
    log.record(p?.tag ?? "untagged", req, "cancel", null);
    if (req.headers.authorization !== `Bearer ${fakeKey(provider)}`) return unauthenticated(res);
    if (!p) return notFound(res);
    if (!TERMINAL.has(p.status)) finish(p, "canceled");
    json(res, 200, view(p));
  }

  type Cursor = { before: number } | { after: number };
  const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString("base64url");
  function decodeCursor(s: string | null): Cursor | null {
    if (!s) return null;
    try {
      const c = JSON.parse(Buffer.from(s, "base64url").toString("utf8"));
      return typeof c?.before === "number" || typeof c?.after === "number" ? c : null;
    } catch {
      return null;
    }
  }

  function list(req: IncomingMessage, res: ServerResponse, url: URL) {
    const authorized = req.headers.authorization === `Bearer ${fakeKey(provider)}`;
    const after = url.searchParams.get("created_after");
    const before = url.searchParams.get("created_before");
    const afterMs = after ? Date.parse(after) : Number.NEGATIVE_INFINITY;
    const beforeMs = before ? Date.parse(before) : Number.POSITIVE_INFINITY;
    const cursorText = url.searchParams.get("cursor");
    const cursor = decodeCursor(cursorText);
    if (!authorized || (after && Number.isNaN(afterMs)) || (before && Number.isNaN(beforeMs)) || (cursorText && !cursor)) {
      log.record("untagged", req, "list", null);
      if (!authorized) return unauthenticated(res);
      return problem(
        res,
        400,
        "Invalid request",
        cursorText && !cursor ? "Invalid cursor." : "Dates must be in ISO 8601 format.",
      );
    }
    const matching = ordered.filter((p) => p.created >= afterMs && p.created < beforeMs);
    // Newest first; a cursor continues before (next) or after (previous) the page it came from.
    let page: FakePrediction[];
    if (cursor && "after" in cursor) {
      page = matching
        .filter((p) => p.seq > cursor.after)
        .slice(0, PAGE_SIZE)
        .reverse();
    } else {
      const older = matching.filter((p) => (cursor ? p.seq < cursor.before : true)).reverse();
      page = older.slice(0, PAGE_SIZE);
    }
    const link = (c: Cursor) => {
      const q = new URLSearchParams();
      if (after) q.set("created_after", after);
      if (before) q.set("created_before", before);
      q.set("cursor", encodeCursor(c));
      return `${server.base}/predictions?${q}`;
    };
    const last = page[page.length - 1];
    const first = page[0];
    const next = last && matching.some((p) => p.seq < last.seq) ? link({ before: last.seq }) : null;
    const previous = first && matching.some((p) => p.seq > first.seq) ? link({ after: first.seq }) : null;
    const tags = new Set(page.map((p) => p.tag));
    if (tags.size === 0) tags.add("untagged");
    for (const tag of tags) log.record(tag, req, "list", null);
    json(res, 200, { next, previous, results: page.map(view) });
  }

  return server.listen(async (req, res, url) => {
    const path = url.pathname.replace(/^\/v1(?=\/)/, "").replace(/\/+$/, "");
    const method = req.method ?? "GET";
    const createOn = /^\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(path);
    if (method === "POST" && createOn) {
      return create(req, res, `${decodeURIComponent(createOn[1] as string)}/${decodeURIComponent(createOn[2] as string)}`);
    }
    if (method === "POST" && path === "/predictions") return create(req, res, null);
    if (method === "GET" && path === "/predictions") return list(req, res, url);
    const one = /^\/predictions\/([^/]+)$/.exec(path);
    if (method === "GET" && one) return read(req, res, predictions.get(one[1] as string));
    const cancelOne = /^\/predictions\/([^/]+)\/cancel$/.exec(path);
    if (method === "POST" && cancelOne) return cancel(req, res, predictions.get(cancelOne[1] as string));
    log.record("untagged", req, "other", null);
    notFound(res);
  });
}
