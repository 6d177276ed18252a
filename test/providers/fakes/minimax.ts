/**
 * A fake of MiniMax's media endpoints, written from MiniMax's API reference (platform.minimax.io:
 * speech-t2a-http, music generation, video generation, file retrieve, error codes) and its official
 * MCP client (MiniMax-AI/MiniMax-MCP, minimax_mcp/server.py and client.py):
 *   POST /v1/t2a_v2                          synchronous speech → {data: {audio, status: 2}, extra_info, trace_id, base_resp}
 *   POST /v1/music_generation                synchronous music  → {data: {audio, status: 2}, extra_info, trace_id, base_resp}
 *   POST /v1/video_generation                → {task_id, base_resp}
 *   GET  /v1/query/video_generation?task_id= → {task_id, status: Preparing|Queueing|Processing|Success|Fail, file_id, base_resp}
 *   GET  /v1/files/retrieve?file_id=         → {file: {file_id, bytes, created_at, filename, purpose, download_url}, base_resp}
 *   GET  /v1/models                          → {object: "list", data: [{id, object: "model", created, owned_by}]} ("List
 *                                              Models", OpenAI-compatible): the key check, for any key the KeyRing accepts
 * Auth is `Authorization: Bearer <key>`. Errors come as HTTP 200 with `base_resp.status_code != 0`
 * (1002 rate limit, 1004 auth, 1008 balance, 1024 internal, 1026 input / 1027 output sensitive,
 * 2013 invalid parameters); `down` is an HTTP 503 from the gateway in front. MiniMax documents no
 * Retry-After: the fake adds `Retry-After: 1` to its 1002 so that `submit_429` can check it is honoured.
 * `audio` is hex (the default output_format) or a URL served from /_files (output_format "url").
 * This fake's own markers (`#fake:<marker>` in the text, optionally `@minimax`):
 *   audio_url        a URL answer carries the URL in `data.audio_url`, where MiniMax's official CLI
 *                    reads it, instead of `data.audio` (where its MCP server reads it)
 *   code_<n>         every submission is refused with base_resp.status_code n (the errorcode page's
 *                    codes, and those the official CLI knows: 1028/1030 quota exhausted, 2061 model
 *                    not on the plan)
 *   code_<n>_once    only the tag's first submission is
 *   task_failed      the video task ends with status "Failed" (as the CLI's types spell it) instead of Success
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isoFile, mp3, wav } from "../../media/fixtures";
import { FakeServer, fakeKey, json, lifeStage, type RequestKind, readBody, type Scenario, scenariosOf, tagOf } from "./kit";

export const provider = "minimax";

/** MiniMax's system voices as the catalog lists them; `clone_demo_*` samples exist nowhere upstream. */
const VOICES = new Set(
  (
    JSON.parse(String(readFileSync(new URL("../../../catalog-data/voices/minimax.json", import.meta.url).pathname))) as {
      voice_id: string;
    }[]
  )
    .map((v) => v.voice_id)
    .filter((v) => !v.startsWith("clone_demo_")),
);
const SPEECH_MODELS = new Set([
  "speech-2.8-hd",
  "speech-2.8-turbo",
  "speech-2.6-hd",
  "speech-2.6-turbo",
  "speech-02-hd",
  "speech-02-turbo",
]);
const MUSIC_MODELS = new Set(["music-2.6", "music-2.5", "music-2.0", "music-1.5"]);
const EMOTIONS = new Set(["happy", "sad", "angry", "fearful", "disgusted", "surprised", "neutral", "calm", "fluent", "whisper"]);
const SPEECH_RATES = new Set([8000, 16000, 22050, 24000, 32000, 44100]);
const MUSIC_RATES = new Set([16000, 24000, 32000, 44100]);
const BITRATES = new Set([32000, 64000, 128000, 256000]);
const RESOLUTIONS = new Set(["512P", "720P", "768P", "1080P"]);

let seq = 0;
const traceId = () => `${Date.now().toString(16)}${(++seq).toString(16).padStart(8, "0")}`.padEnd(32, "0");
const ok = { status_code: 0, status_msg: "success" };

function fail(res: ServerResponse, code: number, msg: string, headers: Record<string, string> = {}) {
  json(res, 200, { trace_id: traceId(), base_resp: { status_code: code, status_msg: msg } }, headers);
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** The status_msg MiniMax sends with each code this fake can answer (errorcode page; CLI tests). */
const CODE_MESSAGES: Record<number, string> = {
  1000: "unknown error",
  1001: "request timeout",
  1002: "rate limit",
  1008: "insufficient balance",
  1024: "internal error",
  1028: "quota exhausted",
  1030: "quota exhausted",
  1033: "system error",
  1039: "token limit",
  1041: "conn limit",
  2013: "invalid params",
  2045: "rate growth limit",
  2056: "usage limit exceeded",
  2061: "model not supported by your token plan",
};

/** This fake's own markers in a text (see the header): a marker applies to this fake unless it names another. */
function markers(text: string): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(/#fake:([a-z0-9_]+)(?:@([a-z0-9-]+))?/g)) {
    if (m[2] === undefined || m[2] === provider) found.add(m[1] as string);
  }
  return found;
}

/** A `code_<n>` / `code_<n>_once` marker's refusal; true when answered. */
function refusedByCode(res: ServerResponse, own: Set<string>, priorSubmits: number): boolean {
  for (const marker of own) {
    const m = /^code_(\d+)(_once)?$/.exec(marker);
    const code = m ? Number(m[1]) : Number.NaN;
    if (!m || !(code in CODE_MESSAGES) || (m[2] && priorSubmits > 0)) continue;
    fail(res, code, CODE_MESSAGES[code] as string);
    return true;
  }
  return false;
}

/** The scenarios about the submission; a refusal is answered and true returned. */
function refused(res: ServerResponse, scenarios: Set<Scenario>, priorSubmits: number, own = new Set<string>()): boolean {
  if (refusedByCode(res, own, priorSubmits)) return true;
  if (scenarios.has("down")) {
    res
      .writeHead(503, { "Content-Type": "text/html" })
      .end("<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>");
    return true;
  }
  if (scenarios.has("submit_429") && priorSubmits === 0) {
    fail(res, 1002, "rate limit exceeded(RPM)", { "Retry-After": "1" });
    return true;
  }
  if (scenarios.has("submit_5xx") && priorSubmits === 0) {
    fail(res, 1024, "internal error");
    return true;
  }
  if (scenarios.has("safety_input")) {
    fail(res, 1026, "input new_sensitive");
    return true;
  }
  return false;
}

function speechProblem(b: any): string | null {
  if (!SPEECH_MODELS.has(b?.model)) return "invalid params, model";
  if (typeof b.text !== "string" || b.text.length === 0 || b.text.length >= 10_000) return "invalid params, text";
  if (b.stream !== undefined && b.stream !== false) return "this fake serves stream=false only";
  const v = b.voice_setting;
  if (!v || !VOICES.has(v.voice_id)) return "voice id not exist";
  if (v.speed !== undefined && !(v.speed >= 0.5 && v.speed <= 2)) return "invalid params, speed";
  if (v.vol !== undefined && !(v.vol > 0 && v.vol <= 10)) return "invalid params, vol";
  if (v.pitch !== undefined && !(Number.isInteger(v.pitch) && v.pitch >= -12 && v.pitch <= 12)) return "invalid params, pitch";
  if (v.emotion !== undefined && !EMOTIONS.has(v.emotion)) return "invalid params, emotion";
  const a = b.audio_setting ?? {};
  if (a.format !== undefined && !["mp3", "pcm", "flac", "wav"].includes(a.format)) return "invalid params, format";
  if (a.sample_rate !== undefined && !SPEECH_RATES.has(a.sample_rate)) return "invalid params, sample_rate";
  if (a.bitrate !== undefined && !BITRATES.has(a.bitrate)) return "invalid params, bitrate";
  if (a.channel !== undefined && ![1, 2].includes(a.channel)) return "invalid params, channel";
  if (b.output_format !== undefined && !["url", "hex"].includes(b.output_format)) return "invalid params, output_format";
  return null;
}

function musicProblem(b: any): string | null {
  if (!MUSIC_MODELS.has(b?.model)) return "invalid params, model";
  if (typeof b.prompt !== "string" || b.prompt.length === 0 || b.prompt.length > 2000) return "invalid params, prompt";
  const lyrics = typeof b.lyrics === "string" && b.lyrics.length > 0;
  if (b.is_instrumental === true && lyrics) return "invalid params, lyrics must be empty for instrumental music";
  if (b.is_instrumental !== true && !lyrics && b.lyrics_optimizer !== true) return "invalid params, lyrics is required";
  if (lyrics && b.lyrics.length > 3500) return "invalid params, lyrics";
  const a = b.audio_setting ?? {};
  if (a.format !== undefined && !["mp3", "wav", "pcm"].includes(a.format)) return "invalid params, format";
  if (a.sample_rate !== undefined && !MUSIC_RATES.has(a.sample_rate)) return "invalid params, sample_rate";
  if (a.bitrate !== undefined && !BITRATES.has(a.bitrate)) return "invalid params, bitrate";
  if (b.output_format !== undefined && !["url", "hex"].includes(b.output_format)) return "invalid params, output_format";
  return null;
}

function audioFile(format: string): { bytes: Uint8Array; type: string } {
  if (format === "wav") return { bytes: wav({ rate: 32000, channels: 1, seconds: 1 }), type: "audio/wav" };
  return { bytes: mp3({ frames: 40 }), type: "audio/mpeg" };
}

interface VideoTask {
  tag: string;
  scenarios: Set<Scenario>;
  /** Ends "Failed" (base_resp 0, the reason in status_msg) instead of Success. */
  failed: boolean;
  reads: number;
  fileId?: string;
  seconds: number;
  width: number;
  height: number;
}

export async function start() {
  const server = new FakeServer();
  const { log, files } = server;
  const tasks = new Map<string, VideoTask>();
  const videoFiles = new Map<string, { url: string; tag: string; bytes: number }>();
  const tagOfTask = new Map<string, string>();
  const record = (tag: string, req: IncomingMessage, kind: RequestKind, body: unknown) => log.record(tag, req, kind, body);

  return server.listen(async (req, res, url) => {
    const raw = await readBody(req);
    if (req.method === "GET" && url.pathname === "/v1/models") {
      record("key-check", req, "list", null);
      if (!server.keys.accepts(provider, req.headers.authorization?.replace(/^Bearer /, ""))) {
        fail(res, 1004, "login fail: Please carry the API secret key in the 'Authorization' field of the request header");
        return;
      }
      json(res, 200, {
        object: "list",
        data: [{ id: "MiniMax-M2.7", object: "model", created: 1773799200, owned_by: "minimax" }],
      });
      return;
    }
    if (req.headers.authorization !== `Bearer ${fakeKey(provider)}`) {
      fail(res, 1004, "login fail: Please carry the API secret key in the 'Authorization' field of the request header");
      return;
    }
    let body: any = null;
    if (req.method === "POST") {
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        fail(res, 2013, "invalid params, body is not JSON");
        return;
      }
    }

    if (req.method === "POST" && (url.pathname === "/v1/t2a_v2" || url.pathname === "/v1/music_generation")) {
      const speech = url.pathname === "/v1/t2a_v2";
      const text = String((speech ? body?.text : body?.prompt) ?? "");
      const tag = tagOf(text);
      const scenarios = scenariosOf(text, provider);
      const prior = log.count(tag, "submit");
      const own = markers(text);
      record(tag, req, "submit", body);
      if (refused(res, scenarios, prior, own)) return;
      const problem = speech ? speechProblem(body) : musicProblem(body);
      if (problem) return fail(res, 2013, problem);
      if (scenarios.has("safety_output")) return fail(res, 1027, "output new_sensitive");
      if (scenarios.has("malformed")) return json(res, 200, { data: { status: 2 }, trace_id: traceId(), base_resp: ok });
      const format = String(body.audio_setting?.format ?? "mp3");
      const file = audioFile(format);
      const asUrl = body.output_format === "url";
      const audio = asUrl
        ? files.add(file.bytes, file.type, { tag, once: scenarios.has("expiring_output"), ext: format })
        : hex(file.bytes);
      const data = asUrl && own.has("audio_url") ? { audio_url: audio, status: 2 } : { audio, status: 2 };
      const extra = speech
        ? {
            audio_length: 1045,
            audio_sample_rate: body.audio_setting?.sample_rate ?? 32000,
            audio_size: file.bytes.length,
            bitrate: body.audio_setting?.bitrate ?? 128000,
            word_count: text.split(/\s+/).filter(Boolean).length,
            invisible_character_ratio: 0,
            usage_characters: [...text].length,
            audio_format: format,
            audio_channel: body.audio_setting?.channel ?? 1,
          }
        : {
            music_duration: 1045,
            music_sample_rate: body.audio_setting?.sample_rate ?? 44100,
            music_channel: 2,
            bitrate: body.audio_setting?.bitrate ?? 256000,
            music_size: file.bytes.length,
          };
      return json(res, 200, { data, extra_info: extra, trace_id: traceId(), base_resp: ok });
    }

    if (req.method === "POST" && url.pathname === "/v1/video_generation") {
      const prompt = String(body?.prompt ?? "");
      const tag = tagOf(prompt);
      const scenarios = scenariosOf(prompt, provider);
      const prior = log.count(tag, "submit");
      const own = markers(prompt);
      record(tag, req, "submit", body);
      if (refused(res, scenarios, prior, own)) return;
      if (typeof body?.model !== "string" || !body.model) return fail(res, 2013, "invalid params, model");
      if (!prompt && !body.first_frame_image) return fail(res, 2013, "invalid params, prompt");
      if (body.resolution !== undefined && !RESOLUTIONS.has(body.resolution))
        return fail(res, 2013, "invalid params, resolution");
      if (body.duration !== undefined && ![6, 10].includes(body.duration)) return fail(res, 2013, "invalid params, duration");
      for (const f of ["first_frame_image", "last_frame_image"]) {
        if (body[f] !== undefined && !/^(https?:\/\/|data:image\/)/.test(String(body[f])))
          return fail(res, 2013, `invalid params, ${f}`);
      }
      const id = `${Date.now()}${(++seq).toString().padStart(4, "0")}`;
      const p = body.resolution === "1080P" ? 1080 : body.resolution === "512P" ? 512 : 768;
      tasks.set(id, {
        tag,
        scenarios,
        failed: own.has("task_failed"),
        reads: 0,
        seconds: body.duration ?? 6,
        width: Math.round((p * 16) / 9 / 2) * 2,
        height: p,
      });
      tagOfTask.set(id, tag);
      return json(res, 200, { task_id: id, base_resp: ok });
    }

    if (req.method === "GET" && url.pathname === "/v1/query/video_generation") {
      const id = url.searchParams.get("task_id") ?? "";
      const task = tasks.get(id);
      record(task?.tag ?? "untagged", req, "status", null);
      if (!task) return fail(res, 2013, "invalid params, task_id not found");
      if (task.scenarios.has("malformed")) {
        res.writeHead(200, { "Content-Type": "text/html" }).end("<html>upstream connect error</html>");
        return;
      }
      task.reads++;
      const stage = lifeStage(task.reads, task.scenarios);
      const status =
        stage === "unknown"
          ? "Rendering"
          : stage === "queued"
            ? task.reads === 1
              ? "Preparing"
              : "Queueing"
            : stage === "running"
              ? "Processing"
              : "Success";
      if (stage === "done" && task.scenarios.has("safety_output")) {
        return json(res, 200, {
          task_id: id,
          status: "Fail",
          file_id: "",
          base_resp: { status_code: 1027, status_msg: "output new_sensitive" },
        });
      }
      if (stage === "done" && task.failed) {
        return json(res, 200, {
          task_id: id,
          status: "Failed",
          file_id: "",
          base_resp: { status_code: 0, status_msg: "video generation failed" },
        });
      }
      if (status === "Success" && !task.fileId) {
        const bytes = isoFile({
          brand: "isom",
          movie: { timescale: 1000, duration: task.seconds * 1000 },
          tracks: [{ handler: "vide", width: task.width, height: task.height, timescale: 12800, duration: task.seconds * 12800 }],
        });
        task.fileId = `${Date.now()}${(++seq).toString().padStart(4, "0")}`;
        const fileUrl = files.add(bytes, "video/mp4", { tag: task.tag, once: task.scenarios.has("expiring_output"), ext: "mp4" });
        videoFiles.set(task.fileId, { url: fileUrl, tag: task.tag, bytes: bytes.length });
      }
      return json(res, 200, {
        task_id: id,
        status,
        ...(status === "Success" ? { file_id: task.fileId, video_width: task.width, video_height: task.height } : {}),
        base_resp: ok,
      });
    }

    if (req.method === "GET" && url.pathname === "/v1/files/retrieve") {
      const id = url.searchParams.get("file_id") ?? "";
      const file = videoFiles.get(id);
      record(file?.tag ?? "untagged", req, "result", null);
      if (!file) return fail(res, 2013, "invalid params, file_id not found");
      return json(res, 200, {
        file: {
          file_id: Number(id),
          bytes: file.bytes,
          created_at: Math.floor(Date.now() / 1000),
          filename: "output.mp4",
          purpose: "video_generation",
          download_url: file.url,
        },
        base_resp: ok,
      });
    }

    res.writeHead(404, { "Content-Type": "text/plain" }).end("404 page not found");
  });
}
