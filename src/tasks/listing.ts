/**
 * One page of a tenant's tasks, newest first, with the filters of `GET /v1/tasks`; the REST
 * listing and the console's task list both call this. The cursor is opaque to clients: the
 * position of the page's last task, tagged with the tenant so that it cannot be replayed
 * against another listing.
 */

import { accountFor } from "../accounts/account-stub";
import type { Capability } from "../catalog/schema";
import type { Env } from "../env";
import { invalidCursor } from "../errors/common";
import type { KeyMode } from "../keys/api-keys";
import { tenantScope } from "../keys/scope";
import { sha256Hex } from "../lib/crypto";
import { invalidWindow, parseInstant } from "../lib/time-window";
import type { Envelope, TaskStatus } from "../task-record/record";
import { readTaskEnvelope, TASK_ID } from "./task-stub";
export interface TaskListQuery {
  status?: TaskStatus;
  capability?: Capability;
  /** ISO 8601 date or date-time (exclusive), as the client wrote it. */
  created_after?: string;
  created_before?: string;
  limit: number;
  cursor?: string;
  /** Only this batch's tasks, in item order (src/services/batches.ts answers it). */
  batch_id?: string;
  /** An API key lists its own mode's tasks; the console (no mode) lists both. */
  mode?: KeyMode;
}

export interface TaskListPage {
  data: Envelope[];
  has_more: boolean;
  next_cursor: string | null;
}

async function cursorTag(tenantId: string): Promise<string> {
  return (await sha256Hex(`cursor:${tenantId}`)).slice(0, 12);
}

function encodeCursor(c: object): string {
  return btoa(JSON.stringify(c)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

async function decodeCursor(cursor: string, tenantId: string): Promise<{ created_at: string; task_id: string }> {
  const invalid = () => invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")));
  } catch {
    throw invalid();
  }
  const p = parsed as { v?: unknown; t?: unknown; c?: unknown; i?: unknown };
  if (
    p?.v !== 1 ||
    p.t !== (await cursorTag(tenantId)) ||
    typeof p.c !== "string" ||
    typeof p.i !== "string" ||
    !TASK_ID.test(p.i)
  )
    throw invalid();
  return { created_at: p.c, task_id: p.i };
}

/** Throws ApiError `invalid_window` (a malformed or reversed window) or `invalid_cursor`. */
export async function listTaskPage(env: Env, tenantId: string, q: TaskListQuery): Promise<TaskListPage> {
  const after = parseInstant(q.created_after, "created_after");
  const before = parseInstant(q.created_before, "created_before");
  if (after && before && after >= before) {
    throw invalidWindow("created_after", "created_after must be earlier than created_before.", {
      created_after: q.created_after,
      created_before: q.created_before,
    });
  }
  const position = q.cursor ? await decodeCursor(q.cursor, tenantId) : undefined;
  const page = await accountFor(env, tenantId).listTasks({
    status: q.status,
    capability: q.capability,
    ...(q.mode ? { mode: q.mode } : {}),
    created_after: after,
    created_before: before,
    limit: q.limit,
    after: position,
  });
  const scope = q.mode ? { tenant_id: tenantId, mode: q.mode } : tenantScope(tenantId);
  const data = (await Promise.all(page.task_ids.map((id) => readTaskEnvelope(env, id, scope)))).filter(
    (e): e is Envelope => e !== null,
  );
  const next =
    page.has_more && page.last
      ? encodeCursor({ v: 1, t: await cursorTag(tenantId), c: page.last.created_at, i: page.last.task_id })
      : null;
  return { data, has_more: page.has_more, next_cursor: next };
}
