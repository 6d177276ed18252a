/** What every admission step is given: the request's context and the fields common to every create. */
import type { Caller } from "../../accounts/caller";
import type { AuditActor } from "../../audit/audit-store";
import type { Env } from "../../env";
import type { RequestNote } from "../../request-log/note";
import type { ProviderPreferences } from "../../routing/preferences";
import type { TaskPlan } from "../../task-record/record";

export interface AdmissionContext {
  env: Env;
  caller: Caller;
  requestId: string;
  idempotencyKey: string | undefined;
  /** Who the audit log names for what admission records (a content review refusal); default: the caller's key. */
  actor?: AuditActor;
  /** The batch this task is an item of (src/batches/). */
  batch?: TaskPlan["batch"];
  /** The request's log note (src/request-log/note.ts): the door writes what admission tells it. */
  note?: RequestNote;
}

/** Fields of every create that are not the operation's own: kept out of card rules and the echoed input. */
export const COMMON_FIELDS = new Set([
  "metadata",
  "callback_url",
  "callback_signing_key_id",
  "max_credits",
  "quote_id",
  "deadline_seconds",
  "output_retention_days",
  "output_destination_id",
  "models",
  "provider",
]);

export interface CommonFields {
  metadata?: Record<string, string>;
  callback_url?: string;
  callback_signing_key_id?: string;
  max_credits?: string;
  quote_id?: string;
  deadline_seconds?: number;
  output_retention_days?: number;
  output_destination_id?: string;
  models?: string[];
  provider?: ProviderPreferences;
}
