/**
 * The request log as every door uses it (docs/request-log.md): a door writes an entry for each
 * authenticated request once it has answered (`logCall`), and the REST routes, MCP tools and the
 * console read it (`listRequests`, `getRequest`). Entries are written in batches per isolate
 * (src/request-log/record.ts), after the answer, never on its path.
 */
import type { z } from "@hono/zod-openapi";
import type { Caller } from "../accounts/caller";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { invalidCursor } from "../errors/common";
import { requestNotFound } from "../errors/not-found";
import type { TaskScope } from "../keys/scope";
import { readObject } from "../lib/object-read";
import { requestIdTime } from "../lib/request-ids";
import { loggedBody, readHead } from "../request-log/bodies";
import { type Attempt, type Door, entryOf, type LogRow, type RequestEntry, type Stage } from "../request-log/entry";
import { hourShard, logDirectory } from "../request-log/log-stub";
import type { RequestNote } from "../request-log/note";
import { type LogFilters, statusRange } from "../request-log/query";
import { recordEntry } from "../request-log/record";
import { DAY_MS, DEFAULT_LOG_RETENTION_DAYS, HOUR_MS, hourOf } from "../request-log/shards";
import type { Envelope } from "../task-record/record";
import { taskStub } from "../tasks/task-stub";
import type { RequestListQuery as WireListQuery } from "./contracts/request-log";
import { OPERATIONS } from "./operations";

export type { Attempt, Door, RequestEntry, Stage } from "../request-log/entry";
export { noteAttempt, type RequestNote } from "../request-log/note";
export { statusRange } from "../request-log/query";

/** What a door knows of a call once it has answered it. */
export interface LoggedCall {
  door: Door;
  requestId: string;
  /** Ms since the epoch: when the request arrived. */
  at: number;
  method: string;
  /** The declared route (`POST /v1/images/generations`), or the tool (`MCP text_to_image`). */
  route: string;
  caller: Caller;
  status: number;
  errorCode: string | null;
  userAgent: string | null;
  note: RequestNote;
  /** The request's body as sent (kept only when the tenant logs bodies). */
  requestBody?: string | null;
  /** A copy of the answer (`response.clone()`), taken only when the tenant logs bodies. */
  response?: Response | null;
  replayOf?: string | null;
}

/** Whether the tenant keeps bodies: a door clones the answer only then. */
export function logsBodies(caller: Caller): boolean {
  return (caller.request_log?.body ?? "off") !== "off";
}

/** Writes the call's entry after the answer: waits for what the note still waits on (a stream's end), then batches it. */
export function logCall(env: Env, call: LoggedCall, waitUntil: (p: Promise<unknown>) => void): void {
  if (env.REQUEST_LOG_RECORDING === "off") return;
  const settings = call.caller.request_log;
  const bodies = settings?.body ?? "off";
  const retention = settings?.retention_days ?? DEFAULT_LOG_RETENTION_DAYS;
  const write = (row: LogRow) => recordEntry(env, call.caller.tenant_id, retention, row, waitUntil);
  const row = (requestBody: string | null, responseBody: string | null): LogRow => ({
    request_id: call.requestId,
    at: call.at,
    method: call.method,
    route: call.route,
    status: call.status,
    error_code: call.errorCode ?? call.note.error_code ?? null,
    duration_ms: Math.max(0, Date.now() - call.at),
    key_id: call.caller.key_id,
    mode: call.caller.mode,
    door: call.door,
    model: call.note.model ?? null,
    task_id: call.note.task_id ?? null,
    batch_id: call.note.batch_id ?? null,
    // A task's hold until the ledger settles it; a chat call's charge only once the ledger has it.
    charged: call.note.task_id ? (call.note.charged ?? null) : null,
    settled: false,
    recovered: false,
    user_agent: call.userAgent,
    replay_of: call.replayOf ?? null,
    attempts: call.note.attempts ?? null,
    request_body: requestBody,
    response_body: responseBody,
  });
  if (bodies === "off" && !call.note.settled) {
    write(row(null, null));
    return;
  }
  waitUntil(
    (async () => {
      const responseText = call.response ? readHead(call.response).catch(() => null) : Promise.resolve(null);
      await call.note.settled?.catch(() => {});
      const [req, res] = await Promise.all([
        loggedBody(call.requestBody ?? null, bodies),
        responseText.then((t) => loggedBody(t, bodies)),
      ]);
      write(row(req, res));
    })(),
  );
}

// ------------------------------------------------------------------ reading

export interface RequestListQuery extends Omit<LogFilters, "mode"> {
  cursor?: string;
  limit: number;
}

export interface RequestDetail extends RequestEntry {
  attempts: Attempt[];
  /** A task create's work after the provider (storing, delivering, callbacks); empty otherwise. */
  stages: Stage[];
  request_body?: string | null;
  response_body?: string | null;
}

/** The query as the wire gives it (times in ISO 8601, `status` as `200` or `4xx`), as the log reads it. */
export function listQueryOf(q: z.output<typeof WireListQuery>): RequestListQuery {
  const { since, until, status, ...rest } = q;
  const range = status === undefined ? null : statusRange(status);
  return {
    ...rest,
    ...(since ? { since: Date.parse(since) } : {}),
    ...(until ? { until: Date.parse(until) } : {}),
    ...(range ? { status: range } : {}),
  };
}

/** Shards asked at once when a listing or a lookup walks back through the hours. */
const FAN_OUT = 8;

interface Cursor {
  h: number;
  at: number;
  seq: number;
}

function encodeCursor(c: Cursor): string {
  return btoa(JSON.stringify(c)).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

function decodeCursor(value: string): Cursor {
  try {
    const c = JSON.parse(atob(value.replaceAll("-", "+").replaceAll("_", "/"))) as Cursor;
    if ([c.h, c.at, c.seq].every((n) => Number.isInteger(n))) return c;
  } catch {}
  throw invalidCursor();
}

/** The hours a scope's query may reach, newest first: within the retention window and `since`/`until`. */
async function hoursOf(env: Env, tenantId: string, since?: number, until?: number): Promise<number[]> {
  const now = Date.now();
  const from = hourOf(since ?? now - 365 * DAY_MS);
  const to = hourOf(until === undefined ? now + HOUR_MS : until - 1);
  return to < from ? [] : logDirectory(env, tenantId).hours(from, to);
}

function modeOf(scope: TaskScope) {
  return scope.mode === "both" ? {} : { mode: scope.mode };
}

/** The log newest first, filtered, a page of `limit` with an opaque cursor for the next. */
export async function listRequests(env: Env, scope: TaskScope, query: RequestListQuery) {
  const cursor = query.cursor ? decodeCursor(query.cursor) : null;
  const { cursor: _c, limit, ...filters } = query;
  let hours = await hoursOf(env, scope.tenant_id, filters.since, filters.until);
  if (cursor) hours = hours.filter((h) => h <= cursor.h);
  const rows: (LogRow & { seq: number; hour: number })[] = [];
  for (let i = 0; i < hours.length && rows.length <= limit; i += FAN_OUT) {
    const group = hours.slice(i, i + FAN_OUT);
    const pages = await Promise.all(
      group.map((hour) =>
        hourShard(env, scope.tenant_id, hour).page({
          ...filters,
          ...modeOf(scope),
          limit: limit + 1,
          ...(cursor && cursor.h === hour ? { before: { at: cursor.at, seq: cursor.seq } } : {}),
        }),
      ),
    );
    pages.forEach((page, j) => {
      for (const r of page.rows) rows.push({ ...r, hour: group[j] as number });
    });
  }
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const more = rows.length > limit && last;
  return {
    object: "list" as const,
    data: page.map((r) => entryOf(r)),
    has_more: Boolean(more),
    next_cursor: more ? encodeCursor({ h: last.hour, at: last.at, seq: last.seq }) : null,
  };
}

/** Where an id of this service's making says it was written (`req_` + its time): null for another id. */
function hourOfOwnId(requestId: string): number | null {
  const at = requestIdTime(requestId);
  return at === null ? null : hourOf(at);
}

async function findRow(env: Env, scope: TaskScope, requestId: string): Promise<LogRow | null> {
  const inScope = (row: LogRow | null) => (row && (scope.mode === "both" || row.mode === scope.mode) ? row : null);
  const own = hourOfOwnId(requestId);
  if (own !== null) {
    const row = inScope(await hourShard(env, scope.tenant_id, own).byId(requestId));
    if (row) return row;
  }
  // A caller's own X-Request-Id: the hours are searched newest first, FAN_OUT at a time.
  const hours = (await hoursOf(env, scope.tenant_id)).filter((h) => h !== own);
  for (let i = 0; i < hours.length; i += FAN_OUT) {
    const found = await Promise.all(hours.slice(i, i + FAN_OUT).map((h) => hourShard(env, scope.tenant_id, h).byId(requestId)));
    const row = found.map(inScope).find((r) => r !== null);
    if (row) return row;
  }
  return null;
}

/** One entry with its attempts (a task's as it goes on) and, where kept, its bodies; 404 outside the scope. */
export async function getRequest(env: Env, scope: TaskScope, requestId: string): Promise<RequestDetail> {
  const row = await findRow(env, scope, requestId);
  if (!row) throw requestNotFound(requestId);
  return detailOf(env, scope, row);
}

async function detailOf(env: Env, scope: TaskScope, row: LogRow): Promise<RequestDetail> {
  let attempts = row.attempts ?? [];
  let stages: Stage[] = [];
  const entry = entryOf(row);
  if (row.task_id && row.status < 300) {
    const task = await readObject(() =>
      taskStub(env, row.task_id as string).attempts({ tenant_id: scope.tenant_id, mode: row.mode }),
    );
    if (task) {
      attempts = task.attempts;
      stages = task.stages;
    }
  }
  return {
    ...entry,
    attempts,
    stages,
    ...(row.request_body !== null || row.response_body !== null
      ? { request_body: row.request_body, response_body: row.response_body }
      : {}),
  };
}

/** The logged row itself (what a replay runs again); null outside the scope. */
export function loggedRow(env: Env, scope: TaskScope, requestId: string): Promise<LogRow | null> {
  return findRow(env, scope, requestId);
}

// ------------------------------------------------------------------ replay

/** What a replay sends: the logged call's route and a body for it. */
export interface ReplayPlan {
  path: string;
  body: Record<string, unknown>;
}

function notReplayable(requestId: string, why: string): ApiError {
  return new ApiError("invalid_request", `Request '${requestId}' cannot be run again: ${why}`, { param: "request_id" });
}

function hasRedaction(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasRedaction);
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    return record.redacted === true || Object.values(record).some(hasRedaction);
  }
  // A secret replaced inside a text (a key pasted into a prompt) leaves it not whole either.
  return typeof value === "string" && value.includes("[secret]");
}

/** A task's own stored request: what a create is run again with when its body was not kept whole. */
async function taskRequest(env: Env, scope: TaskScope, row: LogRow) {
  if (!row.task_id) return null;
  const taskId = row.task_id;
  return readObject(() => taskStub(env, taskId).read({ tenant_id: scope.tenant_id, mode: row.mode }));
}

/** The path a logged route runs again on: a REST create or chat call, or a media tool call through MCP. */
const REPLAYABLE = new Map<string, string>([
  ["POST /v1/chat/completions", "/v1/chat/completions"],
  ...OPERATIONS.map((o): [string, string] => [`POST ${o.path}`, o.path]),
  ...OPERATIONS.map((o): [string, string] => [`MCP ${o.capability}`, o.path]),
]);

/**
 * The path a logged call ran: a REST route's own, a media tool's create; for a create the console
 * made on the tenant's behalf (`CONSOLE POST /console/tasks/new`), the path of its task's
 * operation. null for anything else (a read, another tool).
 */
async function pathOf(row: LogRow, task: () => Promise<Envelope | null>): Promise<string | null> {
  const direct = REPLAYABLE.get(row.route);
  if (direct) return direct;
  if (row.door !== "console") return null;
  const capability = (await task())?.capability;
  return OPERATIONS.find((o) => o.capability === capability)?.path ?? null;
}

/**
 * What running a logged row again sends (the REST replay and the console's Run again alike): a task
 * create or a chat call, with its logged body when the tenant kept it whole, else — for a task —
 * the task's own stored input. `model` replaces the model it named; `accepts` narrows the paths
 * (the console runs task creates only).
 */
export async function replayPlanOf(
  env: Env,
  scope: TaskScope,
  row: LogRow,
  model?: string,
  accepts: (path: string) => boolean = () => true,
): Promise<ReplayPlan> {
  const requestId = row.request_id;
  // Read once, and only when needed: the path of a console create, or a body not kept whole.
  let read: Promise<Envelope | null> | undefined;
  const task = () => {
    read ??= taskRequest(env, scope, row);
    return read;
  };
  const path = await pathOf(row, task);
  if (!path || !accepts(path)) throw notReplayable(requestId, "only task creates and chat calls can be.");
  let body: Record<string, unknown> | null = null;
  if (row.request_body !== null) {
    try {
      const parsed = JSON.parse(row.request_body) as unknown;
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed) && !hasRedaction(parsed)) {
        // A tool call's arguments carry its idempotency key beside the body: the replay has its own.
        const { idempotency_key: _key, ...fields } = parsed as Record<string, unknown>;
        body = row.door === "mcp" ? fields : (parsed as Record<string, unknown>);
      }
    } catch {
      // A body cut at 64 KiB is not whole: the task's own input is used instead, where there is one.
    }
  }
  const stored = body ? null : await task();
  if (stored)
    body = {
      ...stored.input,
      model: stored.model,
      ...(Object.keys(stored.metadata).length ? { metadata: stored.metadata } : {}),
    };
  if (!body) throw notReplayable(requestId, 'its body was not logged whole (request_body_logging "full" keeps it).');
  return { path, body: model ? { ...body, model } : body };
}

/** `replayPlanOf` for a request id of `scope`: 404 outside it. */
export async function replayPlan(env: Env, scope: TaskScope, requestId: string, model?: string): Promise<ReplayPlan> {
  const row = await findRow(env, scope, requestId);
  if (!row) throw requestNotFound(requestId);
  return replayPlanOf(env, scope, row, model);
}
