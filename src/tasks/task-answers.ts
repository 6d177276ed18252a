/** What the task object answers over RPC: a create's result, a cancel's, a redelivery's, and the reads. */
import type { ReserveRefusal } from "../accounts/ledger-answers";
import type { RedeliverResult } from "../destinations/redeliver-result";
import type { Progress } from "../providers/types";
import type { Envelope, TaskError, TaskStatus } from "../task-record/record";

export type CreateResult =
  | { kind: "created"; envelope: Envelope }
  | { kind: "replay"; envelope: Envelope }
  | { kind: "in_progress" }
  | { kind: "conflict" }
  | ({ kind: "refused" } & (ReserveRefusal extends infer R ? (R extends unknown ? Omit<R, "ok"> : never) : never))
  /** Refused by content review before anything was reserved; `recorded` on the first refusal only. */
  | { kind: "rejected"; error: TaskError; recorded: boolean };

export type RedeliverAnswer =
  | { kind: "not_found" }
  | { kind: "ok"; envelope: Envelope }
  | Exclude<RedeliverResult, { kind: "ok" }>;

export type CancelResult = { kind: "not_found" } | { kind: "ok"; envelope: Envelope } | { kind: "conflict"; envelope: Envelope };

/** `GET /v1/tasks/{id}`'s answer, made by the object: the body as sent and its strong ETag. */
export interface TaskRead {
  body: string;
  etag: string;
  status: TaskStatus;
  change_seq: number;
  resolved_model: string;
  deprecated: boolean;
}

/** What a client following the task sees change (src/tasks/follow.ts). */
export interface TaskState {
  status: TaskStatus;
  progress: Progress;
  /** The record's `change_seq`: raised whenever `status` or `progress` changes. */
  seq: number;
}
