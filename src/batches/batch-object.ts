import { DurableObject } from "cloudflare:workers";
import type { Caller } from "../accounts/service";
import { accountFor } from "../accounts/service";
import { attemptDelivery, RETRY_SCHEDULE_MS } from "../callbacks/delivery";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { ERROR_CODES } from "../errors/codes";
import { dec, fmt } from "../lib/decimal";
import { policyFrom } from "../lib/url-policy";
import { artifactKey } from "../media/artifacts";
import { outputUrlExpiry, signOutputUrl } from "../media/signed-outputs";
import { OPERATIONS } from "../operations";
import { DEFAULT_RETENTION_DAYS, expiryAfter } from "../retention/days";
import { migratedSql } from "../storage/migrations";
import { admitOperation } from "../tasks/admit";
import type { Envelope } from "../tasks/record";
import { inScope, type TaskScope } from "../tasks/scope";
import { taskStub } from "../tasks/task-stub";
import {
  type AttemptRow,
  attemptRows,
  type DeliveryRow,
  deliveryRow,
  nextWebhookAt,
  type RequeueOutcome,
  rearm,
  recordEvent,
  requeue,
} from "../webhooks/delivery-rows";
import { reportDeliveries, runTaskWebhooks } from "../webhooks/task-deliveries";
import {
  type BatchCounts,
  type BatchEnvelope,
  type BatchRow,
  batchEnvelope,
  ITEM_ENDS,
  ITEM_STATUSES,
  type ItemEnd,
  type ItemStatus,
} from "./batch-record";
import { BATCH_MIGRATIONS } from "./batch-schema";
import { itemEndOf } from "./item-end";
import { batchIdOf, itemIdempotencyKey, itemTaskId } from "./names";
import { writeOutputFile } from "./output-file";

/** How long a running item may go without its task's push before the batch reads the task itself. */
export const CHECK_AFTER_MS = 30_000;
/** A pause when starting an item failed for a reason that passes (no Retry-After given). */
const DEFAULT_PAUSE_MS = 5_000;
/** How long the batch starts nothing after an item ended rate-limited by its upstream, without a Retry-After. */
export const RATE_LIMIT_PAUSE_MS = 10_000;
const RATE_LIMITED = new Set(["model_rate_limited", "rate_limited"]);

/** Whether the output file's retention is over and its bytes not yet deleted. */
function outputDue(b: BatchRow, nowMs: number): boolean {
  return (
    b.output_file_id !== null && b.output_expires_at !== null && !b.output_expired_at && Date.parse(b.output_expires_at) <= nowMs
  );
}

/** The pause an item's end asks of the whole batch: its upstream's Retry-After when the error carries one. */
function rateLimitPause(end: ItemEnd): number | null {
  const error = end.error as { code?: string; details?: { retry_after_seconds?: unknown } } | null;
  if (end.status !== "failed" || !error?.code || !RATE_LIMITED.has(error.code)) return null;
  const seconds = error.details?.retry_after_seconds;
  return typeof seconds === "number" && seconds > 0 ? Math.min(seconds * 1000, 3_600_000) : RATE_LIMIT_PAUSE_MS;
}

export interface NewBatch {
  tenant_id: string;
  idempotency_key: string;
  request_hash: string;
  operation: BatchRow["operation"];
  caller: Caller;
  concurrency: number;
  max_credits: string | null;
  estimated_credits: string;
  callback: BatchRow["callback"];
  metadata: Record<string, string>;
  origin: string;
  request_id: string;
}

export interface NewItem {
  seq: number;
  custom_id: string;
  /** The item's create body as sent (JSON). */
  body: string;
  estimate: string;
}

export type BatchAdmission = { kind: "new" } | { kind: "replay"; envelope: BatchEnvelope } | { kind: "conflict" };

export interface ItemPage {
  data: { custom_id: string; task_id: string | null; status: ItemStatus; error_json: string | null }[];
  last: number | null;
  has_more: boolean;
}

/**
 * One batch: its row, one row per item, and its pacing. The alarm starts queued items in order
 * while fewer than `concurrency` of them run, as ordinary tasks with derived Idempotency-Keys;
 * each task pushes its end here (src/tasks/task-runner.ts), and the alarm reads a task itself
 * only when its push is late (a lost push, a restart). The batch's spend is counted here, in the
 * same single-threaded object that starts the items, so `max_credits` is never passed.
 * Schema: docs/storage/batch-object.md.
 */
export class BatchObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  readonly batchId: string;
  private readonly webhooksInFlight = new Set<string>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = migratedSql(ctx, BATCH_MIGRATIONS);
    this.batchId = batchIdOf(ctx.id);
  }

  // ---------------------------------------------------------------- rows

  private row(): BatchRow | null {
    const r = this.sql.exec<Record<string, string | number | null>>("SELECT * FROM batch WHERE id = 1").toArray()[0];
    if (!r) return null;
    return {
      ...(r as unknown as BatchRow),
      caller: JSON.parse(r.caller as string),
      callback: r.callback === null ? null : JSON.parse(r.callback as string),
      callback_state: r.callback_state === null ? null : JSON.parse(r.callback_state as string),
      metadata: JSON.parse(r.metadata as string),
    };
  }

  /** The running totals on the batch row: a step never counts the items (a batch of 10,000 costs what one of 100 does). */
  private counts(b: BatchRow | null = this.row()): BatchCounts {
    return {
      total: b?.n_total ?? 0,
      queued: b?.n_queued ?? 0,
      running: b?.n_running ?? 0,
      succeeded: b?.n_succeeded ?? 0,
      failed: b?.n_failed ?? 0,
      canceled: b?.n_canceled ?? 0,
    };
  }

  /**
   * Moves `n` items from one status to another in the totals (`from` null: new items). Called in
   * the same transaction as the items' own change, so the totals always equal the rows.
   */
  private tally(from: ItemStatus | null, to: ItemStatus, n = 1): void {
    if (n === 0) return;
    const out = from ? `n_${from} = n_${from} - ?` : "n_total = n_total + ?";
    this.sql.exec(`UPDATE batch SET ${out}, n_${to} = n_${to} + ? WHERE id = 1`, n, n);
  }

  /** Rows changed by the statement just run. */
  private changes(): number {
    return this.sql.exec<{ n: number }>("SELECT changes() AS n").one().n;
  }

  private async present(b: BatchRow): Promise<BatchEnvelope> {
    const live = b.output_file_id && !b.output_expired_at && !outputDue(b, Date.now());
    const url = live
      ? await signOutputUrl(this.env, b.origin, b.output_file_id as string, outputUrlExpiry(Date.now())).catch(() => null)
      : null;
    return batchEnvelope(b, this.counts(b), url);
  }

  private visible(scope: TaskScope): BatchRow | null {
    const b = this.row();
    return b && b.status !== "admitting" && inScope(b, scope) ? b : null;
  }

  // ---------------------------------------------------------------- admission

  /** What a creation with this body finds here: nothing yet (or an unfinished admission of the same body), the batch, or a conflict. */
  async admission(requestHash: string): Promise<BatchAdmission> {
    const b = this.row();
    if (!b) return { kind: "new" };
    if (b.request_hash !== requestHash) return { kind: "conflict" };
    if (b.status === "admitting") return { kind: "new" };
    return { kind: "replay", envelope: await this.present(b) };
  }

  /** Writes the batch row (once); its items follow in chunks (addItems), then `seal` starts it. */
  begin(b: NewBatch): BatchAdmission["kind"] {
    const existing = this.row();
    if (existing)
      return existing.request_hash === b.request_hash ? (existing.status === "admitting" ? "new" : "replay") : "conflict";
    this.sql.exec(
      `INSERT INTO batch (id, batch_id, tenant_id, mode, idempotency_key, request_hash, operation, caller, status, concurrency,
        max_credits, estimated_credits, charged_credits, refunded_credits, callback, callback_state, metadata, origin, request_id,
        created_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?, 'admitting', ?, ?, ?, '0', '0', ?, NULL, ?, ?, ?, ?)`,
      this.batchId,
      b.tenant_id,
      b.caller.mode,
      b.idempotency_key,
      b.request_hash,
      b.operation,
      JSON.stringify(b.caller),
      b.concurrency,
      b.max_credits,
      b.estimated_credits,
      b.callback ? JSON.stringify(b.callback) : null,
      JSON.stringify(b.metadata),
      b.origin,
      b.request_id,
      new Date().toISOString(),
    );
    return "new";
  }

  /** Items by their place in the batch: a retried admission writes the same rows again, which changes nothing. */
  addItems(items: NewItem[]): void {
    this.ctx.storage.transactionSync(() => {
      let added = 0;
      for (const i of items) {
        this.sql.exec(
          "INSERT OR IGNORE INTO items (seq, custom_id, body, estimate, status, reserved, refunded) VALUES (?, ?, ?, ?, 'queued', '0', '0')",
          i.seq,
          i.custom_id,
          i.body,
          i.estimate,
        );
        added += this.changes();
      }
      this.tally(null, "queued", added);
    });
  }

  /** Every item written: the batch is visible and starts. */
  async seal(total: number): Promise<BatchEnvelope | null> {
    const b = this.row();
    if (!b) return null;
    if (b.status === "admitting") {
      if (this.counts().total !== total) throw new Error(`batch has ${this.counts().total} items, expected ${total}`);
      this.sql.exec("UPDATE batch SET status = 'queued' WHERE id = 1");
      await this.ctx.storage.setAlarm(Date.now());
    }
    return this.present(this.row() as BatchRow);
  }

  // ---------------------------------------------------------------- reads

  async read(scope: TaskScope): Promise<BatchEnvelope | null> {
    const b = this.visible(scope);
    return b ? this.present(b) : null;
  }

  /** Items in batch order after `after` (a seq), optionally of one status. Null: no such batch for `scope`. */
  items(scope: TaskScope, q: { status?: ItemStatus; after?: number; limit: number; started?: boolean }): ItemPage | null {
    if (!this.visible(scope)) return null;
    const rows = this.sql
      .exec<{ seq: number; custom_id: string; task_id: string | null; status: ItemStatus; error: string | null }>(
        `SELECT seq, custom_id, task_id, status, error FROM items WHERE seq > ? ${q.status ? "AND status = ?" : ""}
          ${q.started ? "AND task_id IS NOT NULL" : ""} ORDER BY seq LIMIT ?`,
        ...[q.after ?? -1, ...(q.status ? [q.status] : []), q.limit + 1],
      )
      .toArray();
    const page = rows.slice(0, q.limit);
    return {
      // The error as stored (JSON text): the door parses it, so the answer stays a plain RPC value.
      data: page.map((r) => ({ custom_id: r.custom_id, task_id: r.task_id, status: r.status, error_json: r.error })),
      last: page.length > 0 ? (page[page.length - 1]?.seq ?? null) : null,
      has_more: rows.length > q.limit,
    };
  }

  // ---------------------------------------------------------------- a tenant's list (index objects only)

  /** Lists a batch in this index (once). */
  indexBatch(batchId: string, createdAt: string): void {
    this.sql.exec("INSERT OR IGNORE INTO batch_index (batch_id, created_at) VALUES (?, ?)", batchId, createdAt);
  }

  /** Newest first, after the position of the last batch shown. */
  indexPage(q: { before?: { created_at: string; batch_id: string }; limit: number }): { batch_id: string; created_at: string }[] {
    const b = q.before;
    return this.sql
      .exec<{ batch_id: string; created_at: string }>(
        `SELECT batch_id, created_at FROM batch_index ${b ? "WHERE (created_at, batch_id) < (?, ?)" : ""}
          ORDER BY created_at DESC, batch_id DESC LIMIT ?`,
        ...(b ? [b.created_at, b.batch_id] : []),
        q.limit,
      )
      .toArray();
  }

  // ---------------------------------------------------------------- item ends

  /**
   * A task of this batch ended (pushed by the task, or read by the alarm): its row takes the end
   * once, and the alarm starts what can start next.
   */
  async itemEnded(taskId: string, end: ItemEnd): Promise<boolean> {
    const changed = this.recordEnd(taskId, end);
    if (changed) await this.ctx.storage.setAlarm(Date.now());
    return changed;
  }

  private recordEnd(taskId: string, end: ItemEnd): boolean {
    const item = this.sql
      .exec<{ seq: number; status: ItemStatus; reserved: string }>(
        "SELECT seq, status, reserved FROM items WHERE task_id = ?",
        taskId,
      )
      .toArray()[0];
    if (!item || ITEM_ENDS.has(item.status)) return false;
    const b = this.row() as BatchRow;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "UPDATE items SET status = ?, reserved = ?, refunded = ?, error = ?, result = ?, ended_at = ? WHERE seq = ?",
        end.status,
        end.reserved,
        end.refunded,
        end.error ? JSON.stringify(end.error) : null,
        JSON.stringify({ output: end.output, usage: end.usage, billing: end.billing }),
        new Date().toISOString(),
        item.seq,
      );
      this.tally(item.status, end.status);
      // The hold counted at the start becomes what the task held, and its refund is counted.
      const charged = dec(b.charged_credits).minus(item.reserved).plus(end.reserved);
      const refunded = dec(b.refunded_credits).plus(end.refunded);
      this.sql.exec("UPDATE batch SET charged_credits = ?, refunded_credits = ? WHERE id = 1", fmt(charged), fmt(refunded));
      const pause = rateLimitPause(end);
      // An upstream that rate-limits one item would rate-limit the next: the batch as a whole waits.
      if (pause !== null) {
        this.sql.exec("UPDATE batch SET paused_until = MAX(COALESCE(paused_until, 0), ?) WHERE id = 1", Date.now() + pause);
      }
    });
    return true;
  }

  // ---------------------------------------------------------------- cancel

  /**
   * Cancels the queued items at once, and asks each running task to stop; a task whose provider
   * cannot stop it finishes and is kept. Null: no such batch for `scope`.
   */
  async cancel(scope: TaskScope): Promise<BatchEnvelope | null> {
    const b = this.visible(scope);
    if (!b) return null;
    if (b.status === "completed" || b.status === "canceled") return this.present(b);
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      if (!b.cancel_requested_at)
        this.sql.exec("UPDATE batch SET cancel_requested_at = ?, status = 'canceling' WHERE id = 1", now);
      this.cancelQueued({
        code: "canceled",
        message: "The batch was canceled before this item started.",
        details: { reason: "batch_canceled" },
      });
    });
    const running = this.sql.exec<{ task_id: string }>("SELECT task_id FROM items WHERE status = 'running'").toArray();
    const taskScope = { tenant_id: b.tenant_id, mode: b.mode };
    await Promise.all(
      running.map(async ({ task_id }) => {
        const result = await taskStub(this.env, task_id)
          .cancel(taskScope, "batch canceled")
          .catch(() => null);
        if (result && result.kind !== "not_found" && ITEM_ENDS.has(result.envelope.status))
          this.recordEnd(task_id, itemEndOf(result.envelope));
      }),
    );
    await this.ctx.storage.setAlarm(Date.now());
    return this.present(this.row() as BatchRow);
  }

  private cancelQueued(error: Record<string, unknown>, limit?: number): void {
    this.sql.exec(
      `UPDATE items SET status = 'canceled', error = ?, ended_at = ? WHERE seq IN (SELECT seq FROM items WHERE status = 'queued' ORDER BY seq ${limit ? `LIMIT ${limit}` : ""})`,
      JSON.stringify(error),
      new Date().toISOString(),
    );
    this.tally("queued", "canceled", this.changes());
  }

  // ---------------------------------------------------------------- pacing

  override async alarm(): Promise<void> {
    let b = this.row();
    if (!b || b.status === "admitting") return;
    const now = Date.now();
    if (b.status === "queued" || b.status === "running" || b.status === "canceling") {
      if ((b.next_check_at ?? 0) <= now) await this.checkRunning(b);
      if (b.status !== "canceling" && (b.paused_until ?? 0) <= now) await this.startItems();
      b = this.row() as BatchRow;
      const c = this.counts();
      if (c.queued === 0 && c.running === 0) await this.finish(b);
    }
    b = this.row() as BatchRow;
    if (b.status === "completed" || b.status === "canceled") {
      await this.deliver(b);
      if (outputDue(b, Date.now())) await this.expireOutput(b);
    }
    await this.scheduleNext();
  }

  /** The output file's retention is over: its bytes are deleted; the envelope keeps its id and end, with no URL. */
  private async expireOutput(b: BatchRow): Promise<void> {
    // A failed delete leaves the row as it was, so the next alarm tries again.
    await this.env.ARTIFACTS.delete(artifactKey(b.output_file_id as string));
    this.sql.exec("UPDATE batch SET output_expired_at = ? WHERE id = 1", new Date().toISOString());
  }

  /** Reads the tasks of running items whose push is late: an ended one is recorded; one never made is queued again. */
  private async checkRunning(b: BatchRow): Promise<void> {
    const now = Date.now();
    const late = this.sql
      .exec<{ task_id: string; reserved: string; started_at: string }>(
        "SELECT task_id, reserved, started_at FROM items WHERE status = 'running' AND started_at <= ?",
        new Date(now - CHECK_AFTER_MS).toISOString(),
      )
      .toArray();
    const scope = { tenant_id: b.tenant_id, mode: b.mode };
    await Promise.all(
      late.map(async (item) => {
        const env = await taskStub(this.env, item.task_id)
          .read(scope)
          .catch(() => undefined);
        if (env === undefined) return;
        if (env === null) this.requeue(item.task_id);
        else if (ITEM_ENDS.has(env.status)) this.recordEnd(item.task_id, itemEndOf(env));
      }),
    );
    this.sql.exec("UPDATE batch SET next_check_at = ? WHERE id = 1", now + CHECK_AFTER_MS);
  }

  /** An item whose task was never made (its start was cut short): back in the queue, its hold given back. */
  private requeue(taskId: string): void {
    const item = this.sql
      .exec<{ seq: number; reserved: string }>("SELECT seq, reserved FROM items WHERE task_id = ? AND status = 'running'", taskId)
      .toArray()[0];
    if (!item) return;
    const b = this.row() as BatchRow;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "UPDATE items SET status = 'queued', task_id = NULL, reserved = '0', started_at = NULL WHERE seq = ?",
        item.seq,
      );
      this.tally("running", "queued");
      this.sql.exec("UPDATE batch SET charged_credits = ? WHERE id = 1", fmt(dec(b.charged_credits).minus(item.reserved)));
    });
  }

  /** Starts queued items, in order, into the free slots; an item past the budget ends canceled instead. */
  private async startItems(): Promise<void> {
    const b = this.row() as BatchRow;
    const spec = OPERATIONS.find((o) => o.capability === b.operation);
    if (!spec) throw new Error(`no operation for ${b.operation}`);
    const running = this.counts().running;
    const started: { seq: number; custom_id: string; body: string; task_id: string; key: string }[] = [];
    let charged = dec(b.charged_credits);
    const spent = () => charged.minus(dec(this.row()?.refunded_credits ?? "0"));
    const nowIso = new Date().toISOString();
    while (started.length < b.concurrency - running) {
      const next = this.sql
        .exec<{ seq: number; custom_id: string; body: string; estimate: string }>(
          "SELECT seq, custom_id, body, estimate FROM items WHERE status = 'queued' ORDER BY seq LIMIT 1",
        )
        .toArray()[0];
      if (!next) break;
      if (b.max_credits !== null && spent().plus(next.estimate).gt(b.max_credits)) {
        this.ctx.storage.transactionSync(() => {
          this.sql.exec(
            "UPDATE items SET status = 'canceled', error = ?, ended_at = ? WHERE seq = ?",
            JSON.stringify({
              code: "canceled",
              message: `Starting this item (up to ${next.estimate} credits) would take the batch past its max_credits (${b.max_credits}).`,
              details: { reason: "batch_budget_exhausted", estimate_credits: next.estimate, max_credits: b.max_credits },
            }),
            nowIso,
            next.seq,
          );
          this.tally("queued", "canceled");
        });
        continue;
      }
      const key = await itemIdempotencyKey(b.idempotency_key, next.custom_id);
      const taskId = itemTaskId(this.env, b.tenant_id, b.mode, key);
      charged = charged.plus(next.estimate);
      // Written before the task is made: a restart finds the item running and reads its task.
      this.ctx.storage.transactionSync(() => {
        this.sql.exec(
          "UPDATE items SET status = 'running', task_id = ?, reserved = ?, started_at = ? WHERE seq = ?",
          taskId,
          next.estimate,
          nowIso,
          next.seq,
        );
        this.tally("queued", "running");
        this.sql.exec(
          `UPDATE batch SET charged_credits = ?, status = CASE status WHEN 'queued' THEN 'running' ELSE status END,
            started_at = COALESCE(started_at, ?) WHERE id = 1`,
          fmt(charged),
          nowIso,
        );
      });
      started.push({ seq: next.seq, custom_id: next.custom_id, body: next.body, task_id: taskId, key });
    }
    await Promise.all(started.map((item) => this.startItem(b, spec, item)));
  }

  private async startItem(
    b: BatchRow,
    spec: (typeof OPERATIONS)[number],
    item: { seq: number; custom_id: string; body: string; task_id: string; key: string },
  ): Promise<void> {
    const raw = JSON.parse(item.body) as Record<string, unknown>;
    try {
      const { envelope } = await admitOperation(
        {
          env: this.env,
          caller: b.caller,
          requestId: b.request_id,
          idempotencyKey: item.key,
          batch: { batch_id: b.batch_id, custom_id: item.custom_id },
        },
        spec,
        spec.schema.parse(raw),
        raw,
      );
      this.adjustHold(item.task_id, envelope);
      if (ITEM_ENDS.has(envelope.status)) this.recordEnd(item.task_id, itemEndOf(envelope));
    } catch (e) {
      if (!(e instanceof ApiError) || ERROR_CODES[e.code].retryable) {
        // Passing trouble (a rate limit, a busy upstream, an admission still under way): the
        // whole batch waits as long as it was asked to, and the item starts again then.
        const waitMs = e instanceof ApiError && e.retryAfter !== undefined ? e.retryAfter * 1000 : DEFAULT_PAUSE_MS;
        this.requeue(item.task_id);
        const until = Date.now() + waitMs;
        this.sql.exec("UPDATE batch SET paused_until = MAX(COALESCE(paused_until, 0), ?) WHERE id = 1", until);
        return;
      }
      this.recordEnd(item.task_id, {
        status: "failed",
        reserved: "0",
        refunded: "0",
        error: e.toBody(b.request_id) as unknown as Record<string, unknown>,
        output: null,
        usage: null,
        billing: null,
      });
    }
  }

  /** The task's own hold may differ from the estimate made at the batch's creation (a price changed): count the task's. */
  private adjustHold(taskId: string, envelope: Envelope): void {
    const held = envelope.billing.charged_credits;
    const item = this.sql
      .exec<{ seq: number; reserved: string }>("SELECT seq, reserved FROM items WHERE task_id = ? AND status = 'running'", taskId)
      .toArray()[0];
    if (!item || dec(item.reserved).eq(held)) return;
    const b = this.row() as BatchRow;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("UPDATE items SET reserved = ? WHERE seq = ?", held, item.seq);
      this.sql.exec(
        "UPDATE batch SET charged_credits = ? WHERE id = 1",
        fmt(dec(b.charged_credits).minus(item.reserved).plus(held)),
      );
    });
  }

  // ---------------------------------------------------------------- completion

  /**
   * Every item ended: the output file is written (its id is derived, so a second write replaces
   * the first), then the status, the `batch.completed` event and the callback's state in one write.
   */
  private async finish(b: BatchRow): Promise<void> {
    // Kept as a task's outputs are: the tenant's retention from when it is stored, then deleted by this object's alarm.
    const days = (await accountFor(this.env, b.tenant_id).get())?.output_retention_days ?? DEFAULT_RETENTION_DAYS;
    const expiresAt = expiryAfter(Date.now(), days);
    const fileId = await writeOutputFile(this.env, b, this.sql, expiresAt);
    const now = new Date().toISOString();
    const done: BatchRow = {
      ...b,
      status: b.cancel_requested_at ? "canceled" : "completed",
      completed_at: now,
      output_file_id: fileId,
      output_expires_at: expiresAt,
      callback_state: b.callback
        ? {
            ...b.callback,
            status: "pending",
            attempt_count: 0,
            next_attempt_at: Date.now(),
            delivered_at: null,
            last_error: null,
            message_id: `msg_${this.ctx.id.toString()}`,
          }
        : null,
    };
    // The event's data is the envelope as the end leaves it; it is written with the end, in one transaction.
    const envelope = await this.present(done);
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "UPDATE batch SET status = ?, completed_at = ?, output_file_id = ?, output_expires_at = ?, callback_state = ? WHERE id = 1",
        done.status,
        now,
        fileId,
        expiresAt,
        done.callback_state ? JSON.stringify(done.callback_state) : null,
      );
      recordEvent(this.sql, "batch.completed", now, envelope);
    });
  }

  /** The completion's event to the webhook endpoints, and the POST of the envelope to the batch's callback_url. */
  private async deliver(b: BatchRow): Promise<void> {
    await Promise.all([this.deliverCallback(b), this.deliverWebhooks(b)]);
  }

  private async deliverWebhooks(b: BatchRow): Promise<void> {
    await runTaskWebhooks({
      // The delivery log names the batch as the holder of its deliveries (src/services/webhooks.ts).
      task_id: b.batch_id,
      mode: b.mode,
      sql: this.sql,
      account: accountFor(this.env, b.tenant_id),
      policy: policyFrom(this.env),
      data: async () => null,
      now: () => Date.now(),
      inFlight: this.webhooksInFlight,
    });
  }

  private async deliverCallback(b: BatchRow): Promise<void> {
    const cb = b.callback_state;
    if (cb?.status !== "pending" || (cb.next_attempt_at ?? 0) > Date.now()) return;
    let secrets: string[] | undefined;
    if (cb.signing_key_id) secrets = (await accountFor(this.env, b.tenant_id).signingKey(cb.signing_key_id))?.secrets;
    const attempt = cb.attempt_count + 1;
    // Counted before it goes out: a restart mid-attempt makes the next one, never an uncounted one.
    this.saveCallback({ ...cb, attempt_count: attempt, next_attempt_at: Date.now() + (RETRY_SCHEDULE_MS[attempt] ?? 60_000) });
    const body = JSON.stringify(await this.present(this.row() as BatchRow));
    const outcome = await attemptDelivery({
      url: cb.url,
      messageId: cb.message_id,
      body,
      secrets,
      policy: policyFrom(this.env),
      nowMs: Date.now(),
    });
    const now = Date.now();
    if (outcome.kind === "delivered") {
      this.saveCallback({
        ...cb,
        attempt_count: attempt,
        status: "delivered",
        next_attempt_at: null,
        delivered_at: new Date(now).toISOString(),
        last_error: null,
      });
    } else if (outcome.kind === "stop" || attempt >= RETRY_SCHEDULE_MS.length) {
      this.saveCallback({ ...cb, attempt_count: attempt, status: "failed", next_attempt_at: null, last_error: outcome.error });
    } else {
      const delay = Math.max(RETRY_SCHEDULE_MS[attempt] ?? 0, outcome.retryAfterMs ?? 0);
      this.saveCallback({ ...cb, attempt_count: attempt, next_attempt_at: now + delay, last_error: outcome.error });
    }
  }

  /** One of the batch's webhook deliveries with every attempt (the delivery log reads it here). */
  webhookDelivery(deliveryId: string): (DeliveryRow & { attempts: AttemptRow[] }) | null {
    const row = deliveryRow(this.sql, deliveryId);
    return row ? { ...row, attempts: attemptRows(this.sql, deliveryId) } : null;
  }

  /** As a task object's: one more attempt, now (`wait`) or from the alarm. */
  async resendWebhookDelivery(deliveryId: string, wait: boolean): Promise<(DeliveryRow & { attempts: AttemptRow[] }) | null> {
    if (!rearm(this.sql, deliveryId, Date.now())) return null;
    const b = this.row() as BatchRow;
    if (wait) await this.deliverWebhooks(b);
    await this.scheduleNext();
    return this.webhookDelivery(deliveryId);
  }

  /** As a task object's: a recover makes a failed delivery due at `atMs`, one still pending is left alone. */
  async requeueWebhookDelivery(deliveryId: string, atMs: number): Promise<RequeueOutcome | null> {
    const outcome = requeue(this.sql, deliveryId, atMs);
    if (outcome !== "queued") return outcome;
    const b = this.row() as BatchRow;
    await reportDeliveries({ task_id: b.batch_id, mode: b.mode, sql: this.sql, account: accountFor(this.env, b.tenant_id) });
    await this.scheduleNext();
    return outcome;
  }

  private saveCallback(state: NonNullable<BatchRow["callback_state"]>): void {
    this.sql.exec("UPDATE batch SET callback_state = ? WHERE id = 1", JSON.stringify(state));
  }

  /** The next thing the batch waits on: a free slot's pause, a late push, a callback retry, a webhook attempt. */
  private async scheduleNext(): Promise<void> {
    const b = this.row();
    if (!b) return;
    const now = Date.now();
    const times: number[] = [];
    if (b.status === "queued" || b.status === "running" || b.status === "canceling") {
      const c = this.counts();
      if (c.queued > 0 && b.status !== "canceling" && c.running < b.concurrency) times.push(Math.max(now, b.paused_until ?? 0));
      if (c.running > 0) times.push(Math.max(now + 1000, b.next_check_at ?? now + CHECK_AFTER_MS));
    } else {
      if (b.callback_state?.status === "pending") times.push(b.callback_state.next_attempt_at ?? now);
      if (b.output_expires_at && !b.output_expired_at) times.push(Date.parse(b.output_expires_at));
      const hooks = nextWebhookAt(this.sql, now);
      if (hooks !== null) times.push(hooks);
    }
    if (times.length > 0) await this.ctx.storage.setAlarm(Math.min(...times));
  }
}

export { ITEM_STATUSES };
