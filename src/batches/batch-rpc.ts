/** A batch object (one batch, or one tenant's batch index): its RPC surface, declared apart from its class so `Env` needs no object. */
import type { TaskScope } from "../keys/scope";
import type { AttemptRow, DeliveryRow, RequeueOutcome } from "../webhooks/delivery-rows";
import type { BatchEnvelope, ItemEnd } from "./batch-record";
import type { IndexEntry, ItemPage, ItemQuery } from "./item-pages";
import type { BatchAdmission, NewBatch, NewItem } from "./steps/admission";

type DeliveryWithAttempts = DeliveryRow & { attempts: AttemptRow[] };

export interface BatchRpc extends Rpc.DurableObjectBranded {
  admission(requestHash: string): Promise<BatchAdmission>;
  begin(b: NewBatch): BatchAdmission["kind"];
  addItems(items: NewItem[]): void;
  seal(total: number): Promise<BatchEnvelope | null>;
  read(scope: TaskScope): Promise<BatchEnvelope | null>;
  items(scope: TaskScope, q: ItemQuery): ItemPage | null;
  indexBatch(batchId: string, createdAt: string): void;
  indexPage(q: { before?: IndexEntry; limit: number }): IndexEntry[];
  itemEnded(taskId: string, end: ItemEnd): Promise<boolean>;
  cancel(scope: TaskScope): Promise<BatchEnvelope | null>;
  webhookDelivery(deliveryId: string): DeliveryWithAttempts | null;
  resendWebhookDelivery(deliveryId: string, wait: boolean): Promise<DeliveryWithAttempts | null>;
  requeueWebhookDelivery(deliveryId: string, atMs: number): Promise<RequeueOutcome | null>;
}
