/**
 * A fake Luma Agents API, after Luma's documentation: the video generation guide
 * (docs.agents.lumalabs.ai/guides/videos/generation: `POST /v1/generations` with `type: "video"`,
 * `model: "ray-3.2"`, `video.{resolution, duration, loop, hdr, exr_export, start_frame, end_frame}`,
 * the constraint matrix, 201 with `state: "queued"`, presigned outputs that expire after an hour and
 * are minted again on each read), the error-handling guide (statuses 400/401/402/403/413/422/429/
 * 502/503 with a `detail`, async `failure_code` + `failure_reason`) and the SDK's types (Generation
 * `{id, created_at, model, state: queued|processing|completed|failed, type, failure_code,
 * failure_reason, output[{type, url}]}`; a frame is exactly one of url, data + media_type, generation_id).
 * The base URL is the API root, so paths are `/generations…` (with or without the `/v1` prefix).
 *
 * A generation's life, counted in reads (kit.ts `lifeStage`): queued, processing, completed.
 * Scenarios (`#fake:` in the prompt):
 *   submit_429      first submission of the tag: 429, Retry-After: 1
 *   submit_5xx      first submission of the tag: 502 (upstream service unavailable)
 *   down            every submission: 503
 *   safety_input    accepted, then failed `content_moderated` about the prompt from the first read
 *   safety_output   queued and processing, then failed `content_moderated` about the generated video
 *   expiring_output each minted output URL answers once, then 404
 *   unknown_status  `pending_review` (not a documented state) on the first two reads, then as usual
 *   malformed       a completed generation with an empty `output`, every time
 *   slow            queued for ever (the API has no cancel)
 * The key check reads the account's files (the SDK's `files.list`, `GET /files?limit=` → `{data,
 * has_more, next_cursor}`); this fake holds none.
 * Auth: `Authorization: Bearer <key>` for a key the KeyRing accepts (kit.ts: the platform's and
 * tenants' own), else 401. Control: GET /_fake/requests?tag=.
 */
import { randomUUID } from "node:crypto";
import { isoFile } from "../../media/fixtures";
import {
  FakeServer,
  json,
  lifeStage,
  type RequestKind,
  type RunningFake,
  readBody,
  type Scenario,
  scenariosOf,
  tagOf,
} from "./kit";

export const provider = "luma";

const ASPECTS = ["3:1", "2:1", "21:9", "16:9", "4:3", "3:2", "1:1", "3:4", "2:3", "9:16", "1:2", "1:3"];
// Luma's official SDK (luma-agents-python 0.3.0, from Luma's OpenAPI spec): VideoResolution is 540p | 720p | 1080p.
const SHORT_EDGE: Record<string, number> = { "540p": 540, "720p": 720, "1080p": 1080 };
const TOP_LEVEL = new Set([
  "prompt",
  "model",
  "type",
  "aspect_ratio",
  "video",
  "image_ref",
  "source",
  "style",
  "output_format",
  "user_id",
  "web_search",
]);
const VIDEO_FIELDS = new Set(["resolution", "duration", "loop", "hdr", "exr_export", "start_frame", "end_frame"]);

interface Generation {
  id: string;
  tag: string;
  scenarios: Set<Scenario>;
  reads: number;
  created_at: string;
  seconds: number;
  width: number;
  height: number;
}

type Body = Record<string, any>;

/** What the documentation says a request may not be: null when it is valid. */
function invalid(body: Body): { status: number; detail: string } | null {
  for (const k of Object.keys(body)) if (!TOP_LEVEL.has(k)) return { status: 400, detail: `Unknown field: ${k}` };
  if (typeof body.prompt !== "string" || body.prompt.length < 1 || body.prompt.length > 6000)
    return { status: 400, detail: "prompt must be 1-6000 characters" };
  if (body.model !== "ray-3.2") return { status: 400, detail: `model ${String(body.model)} does not make videos` };
  if (body.type !== "video") return { status: 400, detail: "type must be video" };
  if (body.aspect_ratio != null && !ASPECTS.includes(body.aspect_ratio))
    return { status: 400, detail: `aspect_ratio ${body.aspect_ratio} is not supported` };
  const v = body.video ?? {};
  if (typeof v !== "object") return { status: 400, detail: "video must be an object" };
  for (const k of Object.keys(v)) if (!VIDEO_FIELDS.has(k)) return { status: 400, detail: `Unknown field: video.${k}` };
  if (v.resolution != null && !(v.resolution in SHORT_EDGE))
    return { status: 400, detail: `resolution ${v.resolution} is not supported` };
  if (v.duration != null && !["5s", "10s"].includes(v.duration))
    return { status: 400, detail: `duration ${v.duration} is not supported` };
  for (const name of ["start_frame", "end_frame"]) {
    const f = v[name];
    if (f == null) continue;
    const set = ["url", "data", "generation_id"].filter((k) => typeof f[k] === "string" && f[k]);
    if (set.length !== 1) return { status: 422, detail: `${name} needs exactly one of url, data, generation_id` };
    if (f.data && !f.media_type) return { status: 422, detail: `${name}.media_type is required with data` };
    if (f.url && !/^https?:\/\//.test(f.url)) return { status: 422, detail: `${name}.url is not a URL` };
  }
  const anchored = v.start_frame != null || v.end_frame != null;
  if (v.duration === "10s" && (anchored || v.hdr)) return { status: 422, detail: "10s cannot be combined with frames or hdr" };
  if (v.loop && (v.duration === "10s" || v.hdr || v.end_frame)) return { status: 422, detail: "loop cannot be combined" };
  const byId = [v.start_frame, v.end_frame].filter((f) => f?.generation_id);
  if (byId.length > 0 && v.start_frame && v.end_frame)
    return { status: 422, detail: "a generation_id frame cannot be combined with another frame yet" };
  return null;
}

function dimensions(body: Body): [number, number] {
  const short = SHORT_EDGE[body.video?.resolution ?? "720p"] ?? 720;
  const [w, h] = String(body.aspect_ratio ?? "16:9")
    .split(":")
    .map(Number) as [number, number];
  const long = Math.round((short * Math.max(w, h)) / Math.min(w, h) / 2) * 2;
  return w >= h ? [long, short] : [short, long];
}

function mp4(seconds: number, width: number, height: number): Uint8Array {
  // Ray 3.2 on the Agents API is silent: a video track only.
  return isoFile({
    brand: "isom",
    movie: { timescale: 1000, duration: seconds * 1000 },
    tracks: [{ handler: "vide", width, height, timescale: 12800, duration: seconds * 12800 }],
  });
}

export async function start(): Promise<RunningFake> {
  const server = new FakeServer();
  const { log, files } = server;
  const generations = new Map<string, Generation>();

  const view = (g: Generation): Body => {
    const out: Body = { id: g.id, created_at: g.created_at, model: "ray-3.2", type: "video" };
    const s = g.scenarios;
    if (s.has("safety_input"))
      return {
        ...out,
        state: "failed",
        failure_code: "content_moderated",
        failure_reason: "Prompt violated content guidelines.",
      };
    const stage = lifeStage(g.reads, s);
    if (stage === "unknown") return { ...out, state: "pending_review" };
    if (stage === "queued") return { ...out, state: "queued" };
    if (stage === "running") return { ...out, state: "processing" };
    if (s.has("safety_output"))
      return {
        ...out,
        state: "failed",
        failure_code: "content_moderated",
        failure_reason: "The generated output was blocked by content moderation.",
      };
    if (s.has("malformed")) return { ...out, state: "completed", output: [] };
    // Each read mints a fresh presigned URL, as the guide says re-polling does.
    const url = files.add(mp4(g.seconds, g.width, g.height), "video/mp4", {
      once: s.has("expiring_output"),
      tag: g.tag,
      ext: "mp4",
    });
    return { ...out, state: "completed", output: [{ type: "video", url }] };
  };

  return server.listen(async (req, res, url) => {
    const path = url.pathname.replace(/^\/v1(?=\/)/, "");
    const raw = await readBody(req);
    const authorized = server.keys.accepts(provider, req.headers.authorization?.replace(/^Bearer /, ""));
    const record = (tag: string, kind: RequestKind, body: unknown) => log.record(tag, req, kind, body);

    if (path === "/generations" && req.method === "POST") {
      let body: Body;
      try {
        body = JSON.parse(raw.toString("utf8")) as Body;
      } catch {
        record("untagged", "submit", null);
        return json(res, 400, { detail: "Body is not JSON" });
      }
      const text = typeof body.prompt === "string" ? body.prompt : "";
      const tag = tagOf(text);
      record(tag, "submit", body);
      if (!authorized) return json(res, 401, { detail: "Invalid or missing API key" });
      const scenarios = scenariosOf(text, provider);
      const n = server.submission(tag);
      if (scenarios.has("submit_429") && n === 1)
        return json(res, 429, { detail: "Rate limit exceeded" }, { "Retry-After": "1", "X-RateLimit-Remaining": "0" });
      if (scenarios.has("submit_5xx") && n === 1) return json(res, 502, { detail: "Upstream service unavailable" });
      if (scenarios.has("down")) return json(res, 503, { detail: "Service unavailable" });
      const bad = invalid(body);
      if (bad) return json(res, bad.status, { detail: bad.detail });
      const anchored = body.video?.start_frame != null || body.video?.end_frame != null;
      const [width, height] = dimensions(body);
      const g: Generation = {
        id: randomUUID(),
        tag,
        scenarios,
        reads: 0,
        created_at: new Date().toISOString(),
        seconds: !anchored && body.video?.duration === "10s" ? 10 : 5,
        width,
        height,
      };
      generations.set(g.id, g);
      return json(res, 201, { id: g.id, created_at: g.created_at, model: "ray-3.2", type: "video", state: "queued" });
    }

    if (path === "/files" && req.method === "GET") {
      record("key-check", "list", null);
      if (!authorized) return json(res, 401, { detail: "Invalid or missing API key" });
      return json(res, 200, { data: [], has_more: false, next_cursor: null });
    }

    const m = /^\/generations\/([^/]+)$/.exec(path);
    if (m) {
      const g = generations.get(decodeURIComponent(m[1] as string));
      const tag = g?.tag ?? "untagged";
      record(tag, req.method === "GET" ? "status" : req.method === "DELETE" ? "cancel" : "other", null);
      if (!authorized) return json(res, 401, { detail: "Invalid or missing API key" });
      if (req.method !== "GET") return json(res, 405, { detail: "Method Not Allowed" });
      if (!g) return json(res, 404, { detail: "Generation not found" });
      g.reads++;
      return json(res, 200, view(g));
    }
    record("untagged", "other", null);
    json(res, 404, { detail: "Not Found" });
  });
}
