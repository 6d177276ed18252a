/**
 * The task object's RPC, typed once. Workers RPC rewrites an answer's type into what it can
 * serialize and cannot express the free-form parts of an envelope (metadata, provider output), so
 * a stub's answers are given back here as the types the object really returns, and nowhere else.
 */
import type { KeyMode } from "../accounts/api-keys";
import type { AttemptRow, DeliveryRow, RequeueOutcome } from "../webhooks/delivery-rows";
import type { Envelope } from "./record";
import type { TaskScope } from "./scope";
import type { CancelResult, CreateResult, RedeliverAnswer, TaskObject, TaskRead, TaskState } from "./task-object";

export interface TaskRpc {
  /** The envelope if `scope` may see it. */
  read(scope: TaskScope): Promise<Envelope | null>;
  /** The envelope as served JSON, with what conditional reads need. */
  readJson(scope: TaskScope): Promise<TaskRead | null>;
  /** Status and progress only: what a wait or a stream polls. */
  readState(scope: TaskScope): Promise<TaskState | null>;
  cancel(scope: TaskScope, reason: string | null): Promise<CancelResult>;
  deleteOutputs(scope: TaskScope): Promise<CancelResult>;
  replay(requestHash: string, mode: KeyMode): Promise<CreateResult | null>;
  create(input: Parameters<TaskObject["create"]>[0]): Promise<CreateResult>;
  refuse(input: Parameters<TaskObject["refuse"]>[0]): Promise<CreateResult>;
  owner(): Promise<{ tenant_id: string; mode: KeyMode } | null>;
  forgetArtifact(tenantId: string, artifactId: string): Promise<boolean>;
  wake(provider: string, jobId: string): Promise<boolean>;
  webhookDelivery(deliveryId: string): Promise<(DeliveryRow & { attempts: AttemptRow[] }) | null>;
  resendWebhookDelivery(deliveryId: string, wait: boolean): Promise<(DeliveryRow & { attempts: AttemptRow[] }) | null>;
  requeueWebhookDelivery(deliveryId: string, atMs: number): Promise<RequeueOutcome | null>;
  redeliver(scope: TaskScope, destinationId: string | null): Promise<RedeliverAnswer>;
}

export function taskRpc(stub: DurableObjectStub<TaskObject>): TaskRpc {
  return {
    read: (scope) => stub.read(scope) as unknown as Promise<Envelope | null>,
    readJson: (scope) => stub.readJson(scope) as unknown as Promise<TaskRead | null>,
    readState: (scope) => stub.readState(scope) as unknown as Promise<TaskState | null>,
    cancel: (scope, reason) => stub.cancel(scope, reason) as unknown as Promise<CancelResult>,
    deleteOutputs: (scope) => stub.deleteOutputs(scope) as unknown as Promise<CancelResult>,
    replay: (hash, mode) => stub.replay(hash, mode) as unknown as Promise<CreateResult | null>,
    create: (input) => stub.create(input) as unknown as Promise<CreateResult>,
    refuse: (input) => stub.refuse(input) as unknown as Promise<CreateResult>,
    owner: () => stub.owner() as unknown as Promise<{ tenant_id: string; mode: KeyMode } | null>,
    forgetArtifact: (tenantId, artifactId) => stub.forgetArtifact(tenantId, artifactId),
    wake: (provider, jobId) => stub.wake(provider, jobId),
    webhookDelivery: (id) => stub.webhookDelivery(id) as unknown as Promise<(DeliveryRow & { attempts: AttemptRow[] }) | null>,
    resendWebhookDelivery: (id, wait) =>
      stub.resendWebhookDelivery(id, wait) as unknown as Promise<(DeliveryRow & { attempts: AttemptRow[] }) | null>,
    requeueWebhookDelivery: (id, atMs) => stub.requeueWebhookDelivery(id, atMs),
    redeliver: (scope, id) => stub.redeliver(scope, id) as unknown as Promise<RedeliverAnswer>,
  };
}
