/** Starting queued items into the free slots, in order, each as an ordinary task with a derived Idempotency-Key. */
import type { Env } from "../../env";
import { ApiError } from "../../errors/api-error";
import { ERROR_CODES } from "../../errors/codes";
import { dec, fmt } from "../../lib/decimal";
import { OPERATIONS } from "../../operations";
import { admitOperation } from "../../tasks/admit";
import { type BatchRow, ITEM_ENDS } from "../batch-record";
import type { BatchStore } from "../batch-store";
import { itemEndOf } from "../item-end";
import { itemIdempotencyKey, itemTaskId } from "../names";
import { adjustHold, recordEnd, requeueItem } from "./item-ends";

/** A pause when starting an item failed for a reason that passes (no Retry-After given). */
const DEFAULT_PAUSE_MS = 5_000;

interface Started {
  seq: number;
  custom_id: string;
  body: string;
  task_id: string;
  key: string;
}

/** Starts queued items, in order, into the free slots; an item past the budget ends canceled instead. */
export async function startItems(env: Env, store: BatchStore): Promise<void> {
  const b = store.current();
  const spec = OPERATIONS.find((o) => o.capability === b.operation);
  if (!spec) throw new Error(`no operation for ${b.operation}`);
  const running = store.counts().running;
  const started: Started[] = [];
  let charged = dec(b.charged_credits);
  const spent = () => charged.minus(dec(store.row()?.refunded_credits ?? "0"));
  const nowIso = new Date().toISOString();
  while (started.length < b.concurrency - running) {
    const next = store.sql
      .exec<{ seq: number; custom_id: string; body: string; estimate: string }>(
        "SELECT seq, custom_id, body, estimate FROM items WHERE status = 'queued' ORDER BY seq LIMIT 1",
      )
      .toArray()[0];
    if (!next) break;
    if (b.max_credits !== null && spent().plus(next.estimate).gt(b.max_credits)) {
      store.transaction(() => {
        store.sql.exec(
          "UPDATE items SET status = 'canceled', error = ?, ended_at = ? WHERE seq = ?",
          JSON.stringify({
            code: "canceled",
            message: `Starting this item (up to ${next.estimate} credits) would take the batch past its max_credits (${b.max_credits}).`,
            details: { reason: "batch_budget_exhausted", estimate_credits: next.estimate, max_credits: b.max_credits },
          }),
          nowIso,
          next.seq,
        );
        store.tally("queued", "canceled");
      });
      continue;
    }
    const key = await itemIdempotencyKey(b.idempotency_key, next.custom_id);
    const taskId = itemTaskId(env, b.tenant_id, b.mode, key);
    charged = charged.plus(next.estimate);
    // Written before the task is made: a restart finds the item running and reads its task.
    store.transaction(() => {
      store.sql.exec(
        "UPDATE items SET status = 'running', task_id = ?, reserved = ?, started_at = ? WHERE seq = ?",
        taskId,
        next.estimate,
        nowIso,
        next.seq,
      );
      store.tally("queued", "running");
      store.sql.exec(
        `UPDATE batch SET charged_credits = ?, status = CASE status WHEN 'queued' THEN 'running' ELSE status END,
          started_at = COALESCE(started_at, ?) WHERE id = 1`,
        fmt(charged),
        nowIso,
      );
    });
    started.push({ seq: next.seq, custom_id: next.custom_id, body: next.body, task_id: taskId, key });
  }
  await Promise.all(started.map((item) => startItem(env, store, b, spec, item)));
}

async function startItem(
  env: Env,
  store: BatchStore,
  b: BatchRow,
  spec: (typeof OPERATIONS)[number],
  item: Started,
): Promise<void> {
  const raw = JSON.parse(item.body) as Record<string, unknown>;
  try {
    const { envelope } = await admitOperation(
      {
        env,
        caller: b.caller,
        requestId: b.request_id,
        idempotencyKey: item.key,
        batch: { batch_id: b.batch_id, custom_id: item.custom_id },
      },
      spec,
      spec.schema.parse(raw),
      raw,
    );
    adjustHold(store, item.task_id, envelope);
    if (ITEM_ENDS.has(envelope.status)) recordEnd(store, item.task_id, itemEndOf(envelope));
  } catch (e) {
    if (!(e instanceof ApiError) || ERROR_CODES[e.code].retryable) {
      // Passing trouble (a rate limit, a busy upstream, an admission still under way): the
      // whole batch waits as long as it was asked to, and the item starts again then.
      const waitMs = e instanceof ApiError && e.retryAfter !== undefined ? e.retryAfter * 1000 : DEFAULT_PAUSE_MS;
      requeueItem(store, item.task_id);
      store.pauseUntil(Date.now() + waitMs);
      return;
    }
    recordEnd(store, item.task_id, {
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
