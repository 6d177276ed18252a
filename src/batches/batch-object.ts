import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import type { TaskScope } from "../keys/scope";
import { migratedSql } from "../storage/migrations";
import {
  type DeliveryHolder,
  type DeliveryWithAttempts,
  deliveryWithAttempts,
  requeueDelivery,
  resendEndpointDelivery,
} from "../tasks/webhook-redelivery";
import type { RequeueOutcome } from "../webhooks/delivery-rows";
import { type BatchEnvelope, ITEM_STATUSES, type ItemEnd } from "./batch-record";
import type { BatchRpc } from "./batch-rpc";
import { BATCH_MIGRATIONS } from "./batch-schema";
import { BatchStore } from "./batch-store";
import { type IndexEntry, type ItemPage, type ItemQuery, indexBatch, indexPage, itemPage } from "./item-pages";
import { batchIdOf } from "./names";
import { outputDue, presentBatch } from "./present";
import { addBatchItems, type BatchAdmission, beginBatch, type NewBatch, type NewItem, sealBatch } from "./steps/admission";
import { cancelBatch } from "./steps/cancel";
import { checkRunning } from "./steps/check";
import { deliverBatch, deliverWebhooks } from "./steps/deliver";
import { expireOutput, finishBatch } from "./steps/finish";
import { recordEnd } from "./steps/item-ends";
import { scheduleNext } from "./steps/schedule";
import { startItems } from "./steps/start";

export type { BatchAdmission, ItemPage, NewBatch, NewItem };

/**
 * One batch: its row, one row per item, and its pacing. The alarm starts queued items in order
 * while fewer than `concurrency` of them run, as ordinary tasks with derived Idempotency-Keys;
 * each task pushes its end here (src/tasks/task-runner.ts), and the alarm reads a task itself
 * only when its push is late (a lost push, a restart). The batch's spend is counted here, in the
 * same single-threaded object that starts the items, so `max_credits` is never passed.
 * The steps live in ./steps; the rows in ./batch-store.ts. Schema: docs/storage/batch-object.md.
 */
export class BatchObject extends DurableObject<Env> implements BatchRpc {
  private readonly store: BatchStore;
  readonly batchId: string;
  private readonly webhooksInFlight = new Set<string>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new BatchStore(migratedSql(ctx, BATCH_MIGRATIONS), ctx.storage);
    this.batchId = batchIdOf(ctx.id);
  }

  // ---------------------------------------------------------------- admission

  /** What a creation with this body finds here: nothing yet (or an unfinished admission of the same body), the batch, or a conflict. */
  async admission(requestHash: string): Promise<BatchAdmission> {
    const b = this.store.row();
    if (!b) return { kind: "new" };
    if (b.request_hash !== requestHash) return { kind: "conflict" };
    if (b.status === "admitting") return { kind: "new" };
    return { kind: "replay", envelope: await presentBatch(this.env, this.store, b) };
  }

  /** Writes the batch row (once); its items follow in chunks (addItems), then `seal` starts it. */
  begin(b: NewBatch): BatchAdmission["kind"] {
    return beginBatch(this.store, this.batchId, b);
  }

  /** Items by their place in the batch: a retried admission writes the same rows again, which changes nothing. */
  addItems(items: NewItem[]): void {
    addBatchItems(this.store, items);
  }

  /** Every item written: the batch is visible and starts. */
  async seal(total: number): Promise<BatchEnvelope | null> {
    const b = this.store.row();
    if (!b) return null;
    if (b.status === "admitting") await sealBatch(this.store, total);
    return presentBatch(this.env, this.store, this.store.current());
  }

  // ---------------------------------------------------------------- reads

  async read(scope: TaskScope): Promise<BatchEnvelope | null> {
    const b = this.store.visible(scope);
    return b ? presentBatch(this.env, this.store, b) : null;
  }

  /** Items in batch order after `after` (a seq), optionally of one status. Null: no such batch for `scope`. */
  items(scope: TaskScope, q: ItemQuery): ItemPage | null {
    return this.store.visible(scope) ? itemPage(this.store.sql, q) : null;
  }

  // ---------------------------------------------------------------- a tenant's list (index objects only)

  /** Lists a batch in this index (once). */
  indexBatch(batchId: string, createdAt: string): void {
    indexBatch(this.store.sql, batchId, createdAt);
  }

  /** Newest first, after the position of the last batch shown. */
  indexPage(q: { before?: IndexEntry; limit: number }): IndexEntry[] {
    return indexPage(this.store.sql, q);
  }

  // ---------------------------------------------------------------- item ends

  /**
   * A task of this batch ended (pushed by the task, or read by the alarm): its row takes the end
   * once, and the alarm starts what can start next.
   */
  async itemEnded(taskId: string, end: ItemEnd): Promise<boolean> {
    const changed = recordEnd(this.store, taskId, end);
    if (changed) await this.store.wake();
    return changed;
  }

  // ---------------------------------------------------------------- cancel

  /**
   * Cancels the queued items at once, and asks each running task to stop; a task whose provider
   * cannot stop it finishes and is kept. Null: no such batch for `scope`.
   */
  async cancel(scope: TaskScope): Promise<BatchEnvelope | null> {
    const b = this.store.visible(scope);
    if (!b) return null;
    if (b.status === "completed" || b.status === "canceled") return presentBatch(this.env, this.store, b);
    await cancelBatch(this.env, this.store, b);
    return presentBatch(this.env, this.store, this.store.current());
  }

  // ---------------------------------------------------------------- pacing

  override async alarm(): Promise<void> {
    let b = this.store.row();
    if (!b || b.status === "admitting") return;
    const now = Date.now();
    if (b.status === "queued" || b.status === "running" || b.status === "canceling") {
      if ((b.next_check_at ?? 0) <= now) await checkRunning(this.env, this.store, b);
      if (b.status !== "canceling" && (b.paused_until ?? 0) <= now) await startItems(this.env, this.store);
      b = this.store.current();
      const c = this.store.counts();
      if (c.queued === 0 && c.running === 0) await finishBatch(this.env, this.store, b, `msg_${this.ctx.id.toString()}`);
    }
    b = this.store.current();
    if (b.status === "completed" || b.status === "canceled") {
      await deliverBatch(this.env, this.store, b, this.webhooksInFlight);
      if (outputDue(b, Date.now())) await expireOutput(this.env, this.store, b);
    }
    await scheduleNext(this.store);
  }

  // ---------------------------------------------------------------- webhook deliveries

  /** One of the batch's webhook deliveries with every attempt (the delivery log reads it here). */
  webhookDelivery(deliveryId: string): DeliveryWithAttempts | null {
    return deliveryWithAttempts(this.store.sql, deliveryId);
  }

  /** As a task object's: one more attempt, now (`wait`) or from the alarm. */
  resendWebhookDelivery(deliveryId: string, wait: boolean): Promise<DeliveryWithAttempts | null> {
    return resendEndpointDelivery(this.deliveries, deliveryId, wait);
  }

  /** As a task object's: a recover makes a failed delivery due at `atMs`, one still pending is left alone. */
  requeueWebhookDelivery(deliveryId: string, atMs: number): Promise<RequeueOutcome | null> {
    const owner = () => {
      const b = this.store.current();
      return { id: b.batch_id, tenant_id: b.tenant_id, mode: b.mode };
    };
    return requeueDelivery(this.env, this.deliveries, owner, deliveryId, atMs);
  }

  /** What redelivery runs here: the batch's webhook attempts and its alarm. */
  private get deliveries(): DeliveryHolder {
    return {
      sql: this.store.sql,
      deliver: () => deliverWebhooks(this.env, this.store, this.store.current(), this.webhooksInFlight),
      schedule: () => scheduleNext(this.store),
    };
  }
}

export { ITEM_STATUSES };
