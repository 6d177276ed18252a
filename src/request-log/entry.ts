/**
 * What the request log keeps of one call (docs/request-log.md): the entry every authenticated
 * `/v1` request leaves, whichever door it came through, and the provider attempts it made.
 */
import type { KeyMode } from "../keys/api-keys";

export type Door = "rest" | "mcp" | "console";
export type AttemptOutcome = "accepted" | "refused" | "failed" | "succeeded" | "timeout";

/** One call to a provider on the request's behalf. */
export interface Attempt {
  provider: string;
  upstream_model: string;
  key: "tenant" | "platform";
  started_at: string;
  duration_ms: number | null;
  outcome: AttemptOutcome;
  http_status: number | null;
  error: { code: string; message: string } | null;
}

/**
 * A task's work after the provider, for an export's spans: storing the outputs, delivering them to
 * a storage destination, each attempt of its callback.
 */
export interface Stage {
  name: "store_outputs" | "deliver_outputs" | "deliver_callback";
  started_at: string;
  /** Null while it is under way. */
  duration_ms: number | null;
  outcome: "succeeded" | "failed" | "pending";
  error: string | null;
}

/** An entry as it is written (one row of a shard). */
export interface LogRow {
  request_id: string;
  /** Ms since the epoch: when the request arrived (its hour names the shard). */
  at: number;
  method: string;
  route: string;
  status: number;
  error_code: string | null;
  duration_ms: number;
  key_id: string;
  mode: KeyMode;
  door: Door;
  model: string | null;
  task_id: string | null;
  batch_id: string | null;
  /** Decimal credits: what the ledger settled for the request (a task's hold until then); null: nothing yet. */
  charged: string | null;
  /** Whether `charged` is the ledger's settled figure. */
  settled: boolean;
  user_agent: string | null;
  replay_of: string | null;
  /** Rebuilt from the ledger: the request's own entry was lost with its isolate. */
  recovered: boolean;
  /** A chat call's upstream calls (a task's are read from the task as it goes on). */
  attempts: Attempt[] | null;
  /** Kept only when the tenant logs bodies (src/request-log/bodies.ts): the first 64 KiB of each. */
  request_body: string | null;
  response_body: string | null;
}

/** The wire form of an entry (`GET /v1/requests`): the row's fields, its time as ISO 8601 and its credits. */
export type RequestEntry = Omit<LogRow, "at" | "charged" | "settled" | "attempts" | "request_body" | "response_body"> & {
  object: "request";
  created_at: string;
  credits: { charged: string; settled: boolean; held?: string } | null;
};

export function entryOf(row: LogRow): RequestEntry {
  return {
    object: "request",
    request_id: row.request_id,
    created_at: new Date(row.at).toISOString(),
    method: row.method,
    route: row.route,
    status: row.status,
    error_code: row.error_code,
    duration_ms: row.duration_ms,
    key_id: row.key_id,
    mode: row.mode,
    door: row.door,
    model: row.model,
    task_id: row.task_id,
    batch_id: row.batch_id,
    // A task's hold is not a charge: until the ledger settles the request it has charged nothing yet.
    credits:
      row.charged === null
        ? null
        : row.settled
          ? { charged: row.charged, settled: true }
          : { charged: "0", held: row.charged, settled: false },
    user_agent: row.user_agent,
    replay_of: row.replay_of,
    recovered: row.recovered,
  };
}
