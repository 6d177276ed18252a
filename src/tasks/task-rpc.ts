/** A task object's RPC surface, declared apart from its class so `Env` and callers need no object. */
import type { TaskLeaseSlice } from "../accounts/task-lease-stub";
import type { KeyMode } from "../keys/api-keys";
import type { TaskScope } from "../keys/scope";
import type { TaskAttemptsSlice } from "../request-log/task-attempts";
import type { Envelope, TaskError } from "../task-record/record";
import type { AttemptRow, DeliveryRow, RequeueOutcome } from "../webhooks/delivery-rows";
import type { CancelResult, CreateResult, RedeliverAnswer, TaskRead, TaskState } from "./task-answers";

type DeliveryWithAttempts = DeliveryRow & { attempts: AttemptRow[] };

export interface TaskRpc extends Rpc.DurableObjectBranded, TaskLeaseSlice, TaskAttemptsSlice {
  webhookDelivery(deliveryId: string): DeliveryWithAttempts | null;
  resendWebhookDelivery(deliveryId: string, wait: boolean): Promise<DeliveryWithAttempts | null>;
  requeueWebhookDelivery(deliveryId: string, atMs: number): Promise<RequeueOutcome | null>;
  /** The execution log (provider submissions, settlements, callback attempts), oldest first. */
  events(): { kind: string; detail: unknown }[];
  refuse(input: { request_hash: string; tenant_id: string; mode?: KeyMode; error: TaskError }): Promise<CreateResult>;
  replay(requestHash: string, mode?: KeyMode): Promise<CreateResult | null>;
  /** `plan_json`: the TaskPlan as JSON. */
  create(input: { request_hash: string; plan_json: string }): Promise<CreateResult>;
  /** The envelope if `scope` may see it. */
  read(scope: TaskScope): Promise<Envelope | null>;
  /** The envelope as served JSON, with what conditional reads need. */
  readJson(scope: TaskScope): Promise<TaskRead | null>;
  /** Status and progress only: what a wait or a stream polls. */
  readState(scope: TaskScope): TaskState | null;
  forgetArtifact(tenantId: string, artifactId: string): boolean;
  deleteOutputs(scope: TaskScope): Promise<CancelResult>;
  owner(): { tenant_id: string; mode: KeyMode } | null;
  cancel(scope: TaskScope, reason: string | null): Promise<CancelResult>;
  redeliver(scope: TaskScope, destinationId: string | null): Promise<RedeliverAnswer>;
  wake(provider: string, jobId: string): Promise<boolean>;
}
