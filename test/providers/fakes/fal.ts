/**
 * A fake fal queue, after fal's documentation: "Asynchronous Inference" (queue paths, status
 * answers with queue_position / logs / metrics, cancel answers), "Model Errors" (`detail` lists,
 * `X-Fal-Retryable`), "Request Error Types" (`error_type`, `X-Fal-Error-Type`), "Webhooks"
 * (Ed25519 signatures, JWKS) and each endpoint's API page (input fields, output shapes).
 *
 * Life of a request, counted in status reads (kit.ts `lifeStage`): IN_QUEUE, IN_PROGRESS, then
 * COMPLETED; the result is read from the app's `requests/{id}`. Inputs are checked against the
 * endpoint's documented fields: a wrong one makes the request end with a 422 `detail` list, as a
 * model's validation does. (Refusing fields the page does not list is stricter than fal.)
 *
 * Scenarios (`#fake:` in the prompt):
 *   submit_429      first submission of the tag: 429, Retry-After: 1
 *   submit_5xx      first submission of the tag: 500 with an `internal_server_error` detail, X-Fal-Retryable: true
 *   down            every submission: 503 `runner_scheduling_failure` (request error format)
 *   safety_input    the request ends at once; its result is 422 `content_policy_violation`
 *   safety_output   images come back with `has_nsfw_concepts: [true]` (image endpoints only)
 *   expiring_output each output URL serves once, then 404
 *   partial_output  the last image URL of a result answers 404 from the start (image endpoints)
 *   unknown_status  the status is "PENDING_RUNNER" (not in the docs) twice, then as usual
 *   malformed       the result answers 200 without its documented `images` / `video`
 *   slow            stays IN_QUEUE until canceled
 *   answer_lost     the request is queued but the connection drops before the answer
 * Control: GET /_fake/requests?tag=, GET /_fake/jobs?tag= (request ids), GET /.well-known/jwks.json, POST /_fake/sign-webhook
 * (body = webhook body; optional ?request_id=&user_id=&timestamp=) → {headers}.
 */
import { createHash, generateKeyPairSync, randomUUID, sign } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isoFile } from "../../media/fixtures";
import {
  dropConnection,
  FakeServer,
  json,
  lifeStage,
  png,
  type RunningFake,
  readBody,
  type Scenario,
  scenariosOf,
  tagOf,
} from "./kit";

export const provider = "fal";

export function bindings(url: string): Record<string, string> {
  return { PROVIDER_FAL_JWKS_URL: `${url}/.well-known/jwks.json` };
}

type Input = Record<string, unknown>;
type Issue = { loc: (string | number)[]; msg: string; type: string };
type Check = (value: unknown) => string | null;

const isUrl = (v: unknown) => typeof v === "string" && /^(https?:\/\/|data:)/.test(v);
const str: Check = (v) => (typeof v === "string" && v.length > 0 ? null : "Input should be a non-empty string");
const bool: Check = (v) => (typeof v === "boolean" ? null : "Input should be a valid boolean");
const int =
  (min: number, max: number): Check =>
  (v) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max
      ? null
      : `Input should be an integer from ${min} to ${max}`;
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === "string" && values.includes(v) ? null : `Input should be ${values.map((x) => `'${x}'`).join(", ")}`;
const url: Check = (v) => (isUrl(v) ? null : "Input should be a valid URL");
const urls: Check = (v) =>
  Array.isArray(v) && v.length > 0 && v.every(isUrl) ? null : "Input should be a non-empty list of URLs";
const any: Check = () => null;

const SIZE_ENUM: Record<string, [number, number]> = {
  square_hd: [1024, 1024],
  square: [512, 512],
  portrait_4_3: [768, 1024],
  portrait_16_9: [576, 1024],
  landscape_4_3: [1024, 768],
  landscape_16_9: [1024, 576],
};
const imageSize =
  (auto: boolean): Check =>
  (v) => {
    if (typeof v === "string") return v in SIZE_ENUM || (auto && v === "auto") ? null : "Input should be a known image size";
    const o = v as { width?: unknown; height?: unknown } | null;
    return o && Number.isInteger(o.width) && Number.isInteger(o.height) && (o.width as number) > 0 && (o.height as number) > 0
      ? null
      : "Input should be an image size name or {width, height}";
  };
const FLUX_ASPECTS = ["21:9", "16:9", "4:3", "3:2", "1:1", "2:3", "3:4", "9:16", "9:21"];
const seed = int(0, Number.MAX_SAFE_INTEGER);

interface Endpoint {
  kind: "image" | "video";
  required: string[];
  fields: Record<string, Check>;
  /** Output size when the input names none: [width, height] or megapixels for an aspect ratio. */
  defaultSize?: [number, number];
  megapixels?: number;
}

const FLUX2 = {
  prompt: str,
  seed,
  safety_tolerance: oneOf("1", "2", "3", "4", "5"),
  enable_safety_checker: bool,
  output_format: oneOf("jpeg", "png"),
  sync_mode: bool,
};
const KONTEXT = {
  prompt: str,
  seed,
  guidance_scale: any,
  sync_mode: bool,
  num_images: int(1, 4),
  output_format: oneOf("jpeg", "png"),
  safety_tolerance: oneOf("1", "2", "3", "4", "5", "6"),
  enhance_prompt: bool,
  aspect_ratio: oneOf(...FLUX_ASPECTS),
};
const GPT = {
  prompt: str,
  quality: oneOf("auto", "low", "medium", "high"),
  num_images: int(1, 4),
  output_format: oneOf("jpeg", "png", "webp"),
  sync_mode: bool,
};
const KLING = {
  prompt: str,
  duration: oneOf(...Array.from({ length: 28 }, (_, i) => String(i + 3))),
  resolution: oneOf("720p", "1080p"),
  generate_audio: bool,
  negative_prompt: str,
  cfg_scale: any,
};
const PIXVERSE = {
  prompt: str,
  duration: int(1, 15),
  resolution: oneOf("360p", "540p", "720p", "1080p"),
  negative_prompt: any,
  style: oneOf("anime", "3d_animation", "clay", "comic", "cyberpunk"),
  seed: int(0, 2_147_483_647),
  generate_audio_switch: bool,
};

/** The endpoints the catalog routes to fal, with the fields their API pages document. */
const ENDPOINTS: Record<string, Endpoint> = {
  "fal-ai/flux-2-pro": {
    kind: "image",
    required: ["prompt"],
    fields: { ...FLUX2, image_size: imageSize(false) },
    defaultSize: [1024, 768],
  },
  "fal-ai/flux-2-pro/edit": {
    kind: "image",
    required: ["prompt", "image_urls"],
    fields: { ...FLUX2, image_size: imageSize(true), image_urls: urls },
    defaultSize: [1024, 1024],
  },
  "fal-ai/flux-pro/kontext": {
    kind: "image",
    required: ["prompt", "image_url"],
    fields: { ...KONTEXT, image_url: url },
    megapixels: 1,
  },
  "fal-ai/flux-pro/kontext/text-to-image": { kind: "image", required: ["prompt"], fields: KONTEXT, megapixels: 1 },
  "fal-ai/flux-pro/v1.1-ultra": {
    kind: "image",
    required: ["prompt"],
    fields: { ...KONTEXT, enable_safety_checker: bool, image_url: url, image_prompt_strength: any, raw: bool },
    megapixels: 4,
  },
  "openai/gpt-image-2": {
    kind: "image",
    required: ["prompt"],
    fields: { ...GPT, image_size: imageSize(false) },
    defaultSize: [1024, 768],
  },
  "openai/gpt-image-2/edit": {
    kind: "image",
    required: ["prompt", "image_urls"],
    fields: { ...GPT, image_size: imageSize(true), image_urls: urls, mask_url: url },
    defaultSize: [1024, 1024],
  },
  "fal-ai/kling-video/v4/text-to-video": {
    kind: "video",
    required: ["prompt"],
    fields: { ...KLING, aspect_ratio: oneOf("16:9", "9:16", "1:1") },
  },
  "fal-ai/kling-video/v4/image-to-video": {
    kind: "video",
    required: ["start_image_url"],
    fields: { ...KLING, start_image_url: url, end_image_url: url },
  },
  "fal-ai/pixverse/v6/text-to-video": {
    kind: "video",
    required: ["prompt"],
    fields: { ...PIXVERSE, aspect_ratio: oneOf("16:9", "4:3", "1:1", "3:4", "9:16") },
  },
  "fal-ai/pixverse/v6/image-to-video": {
    kind: "video",
    required: ["prompt", "image_url"],
    fields: { ...PIXVERSE, image_url: url },
  },
  "fal-ai/pixverse/v6/extend": { kind: "video", required: ["prompt", "video_url"], fields: { ...PIXVERSE, video_url: url } },
};

function validate(spec: Endpoint, input: Input): Issue[] {
  const issues: Issue[] = [];
  for (const field of spec.required) {
    if (input[field] === undefined) issues.push({ loc: ["body", field], msg: "Field required", type: "missing" });
  }
  for (const [field, value] of Object.entries(input)) {
    const check = spec.fields[field];
    if (!check) {
      issues.push({ loc: ["body", field], msg: "Extra inputs are not permitted", type: "extra_forbidden" });
      continue;
    }
    const msg = check(value);
    if (msg) issues.push({ loc: ["body", field], msg, type: "value_error" });
  }
  return issues;
}

function sizeOf(spec: Endpoint, input: Input): [number, number] {
  const size = input.image_size;
  if (size && typeof size === "object") {
    const o = size as { width: number; height: number };
    return [o.width, o.height];
  }
  if (typeof size === "string" && SIZE_ENUM[size]) return SIZE_ENUM[size] as [number, number];
  if (spec.megapixels) {
    const [w, h] = (typeof input.aspect_ratio === "string" ? input.aspect_ratio : "16:9").split(":").map(Number) as [
      number,
      number,
    ];
    const pixels = spec.megapixels * 1024 * 1024;
    const width = Math.round(Math.sqrt((pixels * w) / h) / 16) * 16;
    return [width, Math.round((width * h) / w / 16) * 16];
  }
  return spec.defaultSize ?? [1024, 1024];
}

/** Video frame size: the tier names the short edge; the aspect ratio (16:9 when none) the long one. */
function frameOf(input: Input): [number, number] {
  const short = Number(/^(\d+)p$/.exec(String(input.resolution ?? "720p"))?.[1] ?? 720);
  const [w, h] = String(input.aspect_ratio ?? "16:9")
    .split(":")
    .map(Number) as [number, number];
  const long = Math.round((short * Math.max(w, h)) / Math.min(w, h) / 2) * 2;
  return w >= h ? [long, short] : [short, long];
}

function mp4(seconds: number, width: number, height: number): Uint8Array {
  return isoFile({
    brand: "isom",
    movie: { timescale: 1000, duration: seconds * 1000 },
    tracks: [
      { handler: "vide", width, height, timescale: 12800, duration: seconds * 12800 },
      { handler: "soun", timescale: 48000, duration: seconds * 48000 },
    ],
  });
}

interface Outcome {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Job {
  id: string;
  endpoint: string;
  root: string;
  tag: string;
  scenarios: Set<Scenario>;
  input: Input;
  issues: Issue[];
  reads: number;
  canceled: boolean;
  /** Ended on its own (a fake started with `webhooks`), however often it was read. */
  ended: boolean;
  outcome?: Outcome;
}

function appRoot(endpoint: string): string {
  return endpoint.split("/").slice(0, 2).join("/");
}

function detailError(loc: (string | number)[], msg: string, type: string) {
  return { detail: [{ loc, msg, type, url: `https://docs.fal.ai/errors/#${type}` }] };
}

export interface FalFakeOptions {
  /**
   * Run jobs on their own as fal does: a job submitted with `fal_webhook` ends `afterMs` after its
   * submission whether or not it is read, and fal's signed webhook is then POSTed to that URL,
   * retried with backoff (fal: 10 times over 2 h; here every 0.5–8 s) until it is answered 2xx.
   */
  webhooks?: { afterMs: number; attempts?: number };
}

function keyOf(req: IncomingMessage): string | null {
  const m = /^Key (.+)$/.exec(req.headers.authorization ?? "");
  return m ? (m[1] as string) : null;
}

export async function start(options: FalFakeOptions = {}): Promise<RunningFake> {
  const server = new FakeServer();
  const { log, files } = server;
  const jobs = new Map<string, Job>();
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const jwk = { ...publicKey.export({ format: "jwk" }), kid: "fake-fal-1", use: "sig", alg: "EdDSA" };

  const urlsOf = (job: Job) => {
    const at = `${server.base}/${job.root}/requests/${job.id}`;
    return { request_id: job.id, response_url: at, status_url: `${at}/status`, cancel_url: `${at}/cancel` };
  };

  /** The result, made once when the request ends (outputs are stored once, so `expiring_output` holds). */
  function finish(job: Job): Outcome {
    if (job.outcome) return job.outcome;
    const spec = ENDPOINTS[job.endpoint] as Endpoint;
    const once = job.scenarios.has("expiring_output");
    if (job.canceled) {
      job.outcome = { status: 499, body: { detail: "Request was cancelled", error_type: "client_cancelled" } };
    } else if (job.issues.length > 0) {
      job.outcome = { status: 422, body: { detail: job.issues } };
    } else if (job.scenarios.has("safety_input")) {
      job.outcome = {
        status: 422,
        body: detailError(
          ["body", "prompt"],
          "The content could not be processed because it contained material flagged by a content checker.",
          "content_policy_violation",
        ),
        headers: { "X-Fal-Retryable": "false" },
      };
    } else if (job.scenarios.has("malformed")) {
      job.outcome = { status: 200, body: { seed: 42 } };
    } else if (spec.kind === "image") {
      const [width, height] = sizeOf(spec, job.input);
      const count = typeof job.input.num_images === "number" ? job.input.num_images : 1;
      const images = Array.from({ length: count }, (_, i) => {
        const bytes = png(width, height, i);
        const added = files.add(bytes, "image/png", { once, tag: job.tag, ext: "png" });
        // A file id the store never held: 404 from the first download.
        const gone = job.scenarios.has("partial_output") && i === count - 1;
        const fileUrl = gone ? added.replace("/_files/", "/_files/gone-") : added;
        return { url: fileUrl, content_type: "image/png", file_name: `${i}.png`, file_size: bytes.length, width, height };
      });
      const flagged = job.scenarios.has("safety_output");
      job.outcome = {
        status: 200,
        body: { images, seed: 1234567, has_nsfw_concepts: images.map(() => flagged), prompt: job.input.prompt },
      };
    } else {
      const seconds = Number(job.input.duration ?? 5);
      const [width, height] = frameOf(job.input);
      const bytes = mp4(seconds, width, height);
      const fileUrl = files.add(bytes, "video/mp4", { once, tag: job.tag, ext: "mp4" });
      job.outcome = {
        status: 200,
        body: { video: { url: fileUrl, content_type: "video/mp4", file_name: "output.mp4", file_size: bytes.length } },
      };
    }
    return job.outcome;
  }

  const stageOf = (job: Job) => (job.ended ? "done" : lifeStage(job.reads, job.scenarios));
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  /** fal's webhook for a request that ended: `{request_id, gateway_request_id, status: OK | ERROR, payload}`. */
  async function deliver(job: Job, hook: string, attempt: number): Promise<void> {
    const outcome = finish(job);
    const ok = outcome.status < 400;
    const body = Buffer.from(
      JSON.stringify({
        request_id: job.id,
        gateway_request_id: job.id,
        status: ok ? "OK" : "ERROR",
        payload: ok ? outcome.body : null,
        ...(ok ? {} : { error: `Invalid status code: ${outcome.status}` }),
      }),
    );
    let answered = 0;
    try {
      const res = await fetch(hook, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...webhookHeaders(job.id, "fake-user", body) },
        body,
        signal: AbortSignal.timeout(5_000),
      });
      answered = res.status;
    } catch {}
    if (answered >= 200 && answered < 300) return;
    if (attempt + 1 >= (options.webhooks?.attempts ?? 10)) return;
    later(Math.min(500 * 2 ** attempt, 8_000), () => void deliver(job, hook, attempt + 1));
  }

  function webhookHeaders(requestId: string, userId: string, body: Buffer, timestamp = String(Math.floor(Date.now() / 1000))) {
    const digest = createHash("sha256").update(body).digest("hex");
    const signature = sign(null, Buffer.from(`${requestId}\n${userId}\n${timestamp}\n${digest}`), privateKey).toString("hex");
    return {
      "X-Fal-Webhook-Request-Id": requestId,
      "X-Fal-Webhook-User-Id": userId,
      "X-Fal-Webhook-Timestamp": timestamp,
      "X-Fal-Webhook-Signature": signature,
    };
  }

  /** Requests that end at once: invalid input, a refused prompt, or a cancellation. */
  const endsAtOnce = (job: Job) => job.canceled || job.issues.length > 0 || job.scenarios.has("safety_input");

  function status(job: Job, withLogs: boolean) {
    const at = new Date().toISOString();
    const logs = (messages: string[]) =>
      withLogs ? messages.map((message) => ({ message, level: "INFO", source: "USER", timestamp: at })) : null;
    if (!endsAtOnce(job)) {
      const stage = stageOf(job);
      if (stage === "unknown") return { status: "PENDING_RUNNER", ...urlsOf(job) };
      if (stage === "queued") {
        return { status: "IN_QUEUE", queue_position: job.scenarios.has("slow") ? 1 : 2, ...urlsOf(job) };
      }
      if (stage === "running") {
        return { status: "IN_PROGRESS", logs: logs(["Loading model", "Generating: 40%"]), ...urlsOf(job) };
      }
    }
    const outcome = finish(job);
    const error = outcome.status >= 400 ? (outcome.body as { detail?: unknown; error_type?: string }) : undefined;
    return {
      status: "COMPLETED",
      logs: logs(["Done"]),
      metrics: { inference_time: 1.25 },
      ...(error ? { error: `Invalid status code: ${outcome.status}`, error_type: error.error_type ?? null } : {}),
      ...urlsOf(job),
    };
  }

  const fake = await server.listen(async (req, res, url) => {
    if (req.method === "GET" && url.pathname === "/.well-known/jwks.json") {
      json(res, 200, { keys: [jwk] });
      return;
    }
    if (req.method === "GET" && url.pathname === "/_fake/jobs") {
      const tag = url.searchParams.get("tag");
      json(
        res,
        200,
        [...jobs.values()].filter((j) => j.tag === tag).map((j) => j.id),
      );
      return;
    }
    if (req.method === "POST" && url.pathname === "/_fake/sign-webhook") {
      const body = await readBody(req);
      let fromBody: string | undefined;
      try {
        fromBody = (JSON.parse(body.toString("utf8")) as { request_id?: string }).request_id;
      } catch {}
      const requestId = url.searchParams.get("request_id") ?? fromBody ?? "fake-request";
      const userId = url.searchParams.get("user_id") ?? "fake-user";
      const timestamp = url.searchParams.get("timestamp") ?? undefined;
      json(res, 200, { headers: webhookHeaders(requestId, userId, body, timestamp) });
      return;
    }

    if (req.method === "GET" && url.pathname === "/v1/models/pricing") {
      // The platform API's unit prices (docs "Platform APIs", /v1/models/pricing): "Authentication: Required".
      log.record("key-check", req, "list", null);
      if (!server.keys.accepts(provider, keyOf(req))) {
        json(res, 401, { error: { type: "authorization_error", message: "Invalid API key" } });
        return;
      }
      const ids = url.searchParams.getAll("endpoint_id").flatMap((v) => v.split(","));
      json(res, 200, {
        prices: ids
          .filter((id) => ENDPOINTS[id])
          .map((endpoint_id) => ({ endpoint_id, unit_price: 0.03, unit: "megapixels", currency: "USD" })),
        next_cursor: null,
        has_more: false,
      });
      return;
    }

    if (req.method === "GET" && url.pathname === "/v1/models") {
      // The platform API's model search (docs "Platform APIs", /v1/models): "Authentication: Optional",
      // so a key fal does not know is not refused: the caller is served as anonymous.
      log.record("key-check", req, "list", null);
      json(res, 200, {
        models: Object.keys(ENDPOINTS)
          .slice(0, Number(url.searchParams.get("limit") ?? 50))
          .map((endpoint_id) => ({ endpoint_id, metadata: { status: "active" } })),
        next_cursor: null,
        has_more: false,
      });
      return;
    }

    const follow = /^\/([^/]+\/[^/]+)\/requests\/([^/]+)(\/status|\/cancel)?$/.exec(url.pathname);
    const job = follow ? jobs.get(decodeURIComponent(follow[2] as string)) : undefined;
    const endpoint = url.pathname.replace(/^\/+|\/+$/g, "");
    const kind = follow
      ? follow[3] === "/status"
        ? "status"
        : follow[3] === "/cancel"
          ? "cancel"
          : "result"
      : ENDPOINTS[endpoint]
        ? "submit"
        : "other";
    const raw = req.method === "POST" ? await readBody(req) : Buffer.alloc(0);
    let body: unknown = null;
    try {
      body = raw.length > 0 ? JSON.parse(raw.toString("utf8")) : null;
    } catch {}
    const tag = job?.tag ?? tagOf(typeof (body as Input | null)?.prompt === "string" ? ((body as Input).prompt as string) : "");
    log.record(tag, req, kind, body);

    if (!server.keys.accepts(provider, keyOf(req))) {
      json(res, 401, { detail: server.keys.echo(keyOf(req)) ?? "Authentication is required to access this application." });
      return;
    }

    if (!follow) {
      const spec = ENDPOINTS[endpoint];
      if (req.method !== "POST" || !spec) {
        json(res, 404, { detail: `Application '${endpoint}' not found` });
        return;
      }
      if (!body || typeof body !== "object" || Array.isArray(body)) {
        json(res, 422, detailError(["body"], "Input should be a valid dictionary", "dict_type"));
        return;
      }
      const input = body as Input;
      const scenarios = scenariosOf(typeof input.prompt === "string" ? input.prompt : "", provider);
      const n = server.submission(tag);
      if (scenarios.has("down")) {
        json(
          res,
          503,
          { detail: "No runner could be allocated to handle the request.", error_type: "runner_scheduling_failure" },
          { "X-Fal-Error-Type": "runner_scheduling_failure" },
        );
        return;
      }
      if (scenarios.has("submit_429") && n === 1) {
        json(res, 429, { detail: "Too many requests: concurrency limit reached." }, { "Retry-After": "1" });
        return;
      }
      if (scenarios.has("submit_5xx") && n === 1) {
        json(res, 500, detailError(["body"], "Internal server error", "internal_server_error"), { "X-Fal-Retryable": "true" });
        return;
      }
      const created: Job = {
        id: randomUUID(),
        endpoint,
        root: appRoot(endpoint),
        tag,
        scenarios,
        input,
        issues: validate(spec, input),
        reads: 0,
        canceled: false,
        ended: false,
      };
      jobs.set(created.id, created);
      const hook = url.searchParams.get("fal_webhook");
      if (options.webhooks && hook && !scenarios.has("slow")) {
        later(options.webhooks.afterMs, () => {
          created.ended = true;
          void deliver(created, hook, 0);
        });
      }
      if (scenarios.has("answer_lost")) {
        dropConnection(res);
        return;
      }
      json(res, 200, { status: "IN_QUEUE", queue_position: 2, gateway_request_id: created.id, ...urlsOf(created) });
      return;
    }

    // Follow-ups address the app (`owner/app`), never the endpoint's sub-path.
    if (!job || job.root !== follow[1]) {
      json(res, 404, { detail: "Request not found" });
      return;
    }
    if (kind === "status" && req.method === "GET") {
      job.reads++;
      json(res, 200, status(job, url.searchParams.get("logs") === "1"));
      return;
    }
    if (kind === "cancel" && req.method === "PUT") {
      if (job.outcome || (!endsAtOnce(job) && stageOf(job) === "done")) {
        json(res, 400, { status: "ALREADY_COMPLETED" });
        return;
      }
      job.canceled = true;
      json(res, 202, { status: "CANCELLATION_REQUESTED" });
      return;
    }
    if (kind === "result" && req.method === "GET") {
      const done = job.outcome || endsAtOnce(job) || stageOf(job) === "done";
      if (!done) {
        json(res, 400, { detail: "Request is still in progress" });
        return;
      }
      const outcome = finish(job);
      json(res, outcome.status, outcome.body, outcome.headers);
      return;
    }
    json(res, 405, { detail: "Method Not Allowed" });
  });
  return {
    ...fake,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await fake.close();
    },
  };
}
