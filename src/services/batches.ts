/**
 * Batches, for every door: create (every item validated first), read, the items, cancel (audited),
 * and a batch's tasks for `GET /v1/tasks?batch_id=`. The batch object (src/batches/) holds the
 * batch and paces its items; this is where a door's request becomes its calls.
 */

import { recordAudit } from "../audit/audit";
import { type AuditBy, audited } from "../audit/audited";
import { admitBatch, type BatchRequest, itemsInHand, type ValidateBody } from "../batches/admit-batch";
import type { BatchEnvelope, BatchItemView, ItemStatus } from "../batches/batch-record";
import { batchIndexOf, batchStubOf } from "../batches/batch-stub";
import { inputFileItems } from "../batches/input-file";
import type { Capability } from "../catalog/schema";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { invalidCursor } from "../errors/common";
import type { TaskScope } from "../keys/scope";
import { readObject } from "../lib/object-read";
import type { Envelope } from "../task-record/record";
import type { AdmissionContext } from "../tasks/admit";
import { readTaskEnvelope } from "../tasks/task-stub";

export type { BatchEnvelope, ItemStatus } from "../batches/batch-record";
export { isJsonLines, storeJsonLines } from "../batches/input-upload";
export interface BatchCreate {
  operation: Capability;
  items?: { custom_id: string; body: Record<string, unknown> }[];
  input_file_id?: string;
  max_credits?: string;
  concurrency?: number;
  callback_url?: string;
  callback_signing_key_id?: string;
  metadata?: Record<string, string>;
}

/** Validates every item and starts the batch; a retry with the same Idempotency-Key and body answers the same batch. */
export async function createBatch(
  ctx: AdmissionContext,
  body: BatchCreate,
  validate: ValidateBody,
): Promise<{ envelope: BatchEnvelope; replayed: boolean }> {
  const { items, input_file_id, ...rest } = body;
  // A file's items are streamed from R2 on each reading, never held whole.
  const inputs = items
    ? itemsInHand(items.map((i, index) => ({ custom_id: i.custom_id, body: i.body, place: { kind: "inline", index } })))
    : await inputFileItems(ctx.env, { tenant_id: ctx.caller.tenant_id, mode: ctx.caller.mode }, input_file_id as string);
  const req: BatchRequest = { ...rest, items: inputs, raw: body as unknown as Record<string, unknown> };
  const { note, ...admission } = ctx;
  const created = await admitBatch(admission, req, validate);
  if (note) note.batch_id = created.envelope.batch_id;
  return created;
}

function notFound(batchId: string): ApiError {
  return new ApiError("not_found", `Batch '${batchId}' does not exist.`, { param: "/batch_id" });
}

function stubIn(env: Env, batchId: string) {
  const stub = batchStubOf(env, batchId);
  if (!stub) throw notFound(batchId);
  return stub;
}

export async function readBatch(env: Env, batchId: string, scope: TaskScope): Promise<BatchEnvelope> {
  const envelope = await readObject(() => stubIn(env, batchId).read(scope));
  if (!envelope) throw notFound(batchId);
  return envelope;
}

/** Cancels what has not started, asks running tasks to stop, and writes `batch.cancel` to the audit log. */
export async function cancelBatch(env: Env, batchId: string, scope: TaskScope, by: AuditBy): Promise<BatchEnvelope> {
  const envelope = await stubIn(env, batchId).cancel(scope);
  if (!envelope) throw notFound(batchId);
  await recordAudit(env, scope.tenant_id, audited(by, "batch.cancel", batchId));
  return envelope;
}

// ---------------------------------------------------------------- pages of items

/** The cursor of a batch's pages: the batch and the last item's place, opaque to clients. */
function encodeCursor(batchId: string, seq: number): string {
  return btoa(JSON.stringify({ v: 1, b: batchId.slice(6, 18), s: seq }))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

function decodeCursor(batchId: string, cursor: string): number {
  const invalid = () => invalidCursor();
  let p: { v?: unknown; b?: unknown; s?: unknown };
  try {
    p = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")));
  } catch {
    throw invalid();
  }
  if (p?.v !== 1 || p.b !== batchId.slice(6, 18) || typeof p.s !== "number" || !Number.isInteger(p.s)) throw invalid();
  return p.s;
}

export interface BatchItemsQuery {
  status?: ItemStatus;
  limit: number;
  cursor?: string;
}

export async function listBatchItems(env: Env, batchId: string, scope: TaskScope, q: BatchItemsQuery) {
  const after = q.cursor ? decodeCursor(batchId, q.cursor) : undefined;
  const page = await stubIn(env, batchId).items(scope, { status: q.status, after, limit: q.limit });
  if (!page) throw notFound(batchId);
  return {
    object: "list" as const,
    data: page.data.map(
      (r): BatchItemView => ({
        object: "batch_item",
        custom_id: r.custom_id,
        task_id: r.task_id,
        status: r.status,
        ...(r.error_json ? { error: JSON.parse(r.error_json) } : {}),
      }),
    ),
    has_more: page.has_more,
    next_cursor: page.has_more && page.last !== null ? encodeCursor(batchId, page.last) : null,
  };
}

/** `GET /v1/tasks?batch_id=`: the batch's tasks in item order (items not started yet have none). */
export async function listBatchTasks(
  env: Env,
  batchId: string,
  scope: TaskScope,
  q: { limit: number; cursor?: string; status?: string },
) {
  let after = q.cursor ? decodeCursor(batchId, q.cursor) : undefined;
  const data: Envelope[] = [];
  let more = true;
  // Items without a task yet are passed over: read pages of items until the page of tasks is full.
  while (data.length < q.limit && more) {
    const page = await stubIn(env, batchId).items(scope, { after, limit: q.limit - data.length, started: true });
    if (!page) throw notFound(batchId);
    const tasks = await Promise.all(page.data.map((i) => (i.task_id ? readTaskEnvelope(env, i.task_id, scope) : null)));
    for (const t of tasks) if (t && (!q.status || t.status === q.status)) data.push(t);
    more = page.has_more;
    after = page.last ?? after;
  }
  return {
    data,
    has_more: more,
    next_cursor: more && after !== undefined ? encodeCursor(batchId, after) : null,
  };
}

// ---------------------------------------------------------------- the list of batches

function encodeListCursor(scope: TaskScope, last: { created_at: string; batch_id: string }): string {
  return btoa(JSON.stringify({ v: 1, t: scope.tenant_id.slice(-8), c: last.created_at, i: last.batch_id }))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

function decodeListCursor(scope: TaskScope, cursor: string): { created_at: string; batch_id: string } {
  const invalid = () => invalidCursor();
  let p: { v?: unknown; t?: unknown; c?: unknown; i?: unknown };
  try {
    p = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")));
  } catch {
    throw invalid();
  }
  if (p?.v !== 1 || p.t !== scope.tenant_id.slice(-8) || typeof p.c !== "string" || typeof p.i !== "string") throw invalid();
  return { created_at: p.c, batch_id: p.i };
}

/** The batches of a key's mode, newest first. A console session (both modes) reads both lists, merged. */
export async function listBatches(env: Env, scope: TaskScope, q: { limit: number; cursor?: string }) {
  const before = q.cursor ? decodeListCursor(scope, q.cursor) : undefined;
  const modes = scope.mode === "both" ? (["live", "test"] as const) : ([scope.mode] as const);
  const rows = (
    await Promise.all(modes.map((m) => batchIndexOf(env, scope.tenant_id, m).indexPage({ before, limit: q.limit + 1 })))
  )
    .flat()
    .sort((a, b) => (a.created_at === b.created_at ? (a.batch_id < b.batch_id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))
    .slice(0, q.limit + 1);
  const page = rows.slice(0, q.limit);
  const readOne = (batchId: string) => readObject(async () => (await batchStubOf(env, batchId)?.read(scope)) ?? null);
  const data = (await Promise.all(page.map((r) => readOne(r.batch_id)))).filter(
    (b): b is NonNullable<typeof b> => b !== null && b !== undefined,
  );
  const last = page[page.length - 1];
  const more = rows.length > q.limit;
  return { object: "list" as const, data, has_more: more, next_cursor: more && last ? encodeListCursor(scope, last) : null };
}
