/**
 * The soak's recorded history: one JSON object a line, appended as things happen, so that
 * check.ts can judge a run from the file alone. Every line has `type` and `at` (ms since the
 * epoch). Written synchronously: a line is on disk before the next request starts, whatever
 * happens to the server meanwhile.
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";

/** The run as configured: tenants, receivers, duration. The first line of every history. */
export interface MetaRecord {
  type: "meta";
  at: number;
  traffic_seconds: number;
  base: string;
  tenants: { name: string; tenant_id: string; credits: string; chat: boolean; poor: boolean }[];
  /** Receiver name → how it answers; check.ts decides from this which callbacks were due. */
  receivers: Record<string, ReceiverPolicy>;
  /** Tenants with a webhook endpoint subscribed to task.succeeded / task.failed / task.canceled. */
  endpoint_tenants?: string[];
  /** Items of the soak's batch (0 or absent: none). */
  batch_items?: number;
  /** Items of the soak's batch from an uploaded file (0 or absent: none). */
  file_batch_items?: number;
}

export interface ReceiverPolicy {
  /** ok: 200 always; flaky: 500 for the first `times` deliveries of a task; slow: first delivery of a task held past the service's timeout; gone: 410. */
  mode: "ok" | "flaky" | "slow" | "gone";
  times?: number;
  hold_ms?: number;
}

/** The server's life: started, up (answering /healthz), killed (SIGKILL of wrangler and workerd), stopped. */
export interface ServerRecord {
  type: "server";
  at: number;
  event: "start" | "up" | "kill" | "stop";
  incarnation: number;
  pids?: number[];
}

export type Op =
  | "create"
  | "replay"
  | "conflict"
  | "read"
  | "read_foreign"
  | "list"
  | "cancel"
  | "chat"
  | "chat_stream"
  | "drain_read"
  | "drain_list"
  | "drain_cancel"
  | "batch_create"
  | "batch_read";

/** One HTTP exchange with the service (one attempt: a retry is another line). */
export interface RequestRecord {
  type: "request";
  /** When the request was sent. */
  at: number;
  /** When the answer (or the failure) was complete. */
  end: number;
  client: string;
  tenant: string;
  op: Op;
  method: string;
  path: string;
  /** null: no HTTP answer (connection refused or reset, timeout). */
  status: number | null;
  /** The error envelope's code, when the answer was an error. */
  code: string | null;
  task_id: string | null;
  idem_key: string | null;
  /** What the request asked for (a recipe of traffic.ts), for creates. */
  recipe?: string;
  /** The callback receiver a create named, if any. */
  receiver?: string;
  net_error?: string;
  /** Streams: whether `data: [DONE]` arrived. */
  stream_done?: boolean;
  /** Listings: the task ids of the page. */
  listed?: string[];
  /** Task reads: the status read. */
  task_status?: string;
}

/** One delivery a callback receiver got, and what it answered. */
export interface CallbackRecord {
  type: "callback";
  at: number;
  receiver: string;
  tenant: string;
  task_id: string | null;
  webhook_id: string | null;
  /** The status in the delivered envelope. */
  task_status: string | null;
  /** The receiver's answer; `aborted` when the service had gone before it answered. */
  answered: number;
  aborted: boolean;
  signature: "valid" | "invalid" | "unsigned";
  /** The nth delivery of this webhook-id at this receiver. */
  nth: number;
}

/** One event delivery a tenant's webhook endpoint got, and what it answered. */
export interface EventRecord {
  type: "event";
  at: number;
  tenant: string;
  webhook_id: string | null;
  /** The body's `type` (task.succeeded, …) and its data's task id and status. */
  event_type: string | null;
  task_id: string | null;
  task_status: string | null;
  answered: number;
  aborted: boolean;
  signature: "valid" | "invalid" | "unsigned";
  nth: number;
}

/** The soak's batch as it ended: its envelope's status and counts, its items, its output file's lines. */
export interface BatchRecord {
  type: "batch";
  at: number;
  tenant: string;
  batch_id: string | null;
  planned: number;
  status: string | null;
  counts: { total: number; queued: number; running: number; succeeded: number; failed: number; canceled: number } | null;
  items: { custom_id: string; task_id: string | null; status: string }[];
  /** In the file's order; null when it could not be read. */
  output_lines: { custom_id: string; task_id: string; status: string }[] | null;
}

/** The soak's batch from an uploaded file (file-batch.ts) as it ended. */
export interface FileBatchRecord {
  type: "file_batch";
  at: number;
  batch_id: string | null;
  planned: number;
  concurrency: number;
  /** The most items the envelope showed running at once, read every 250 ms. */
  most_running: number;
  status: string | null;
  counts: { total: number; queued: number; running: number; succeeded: number; failed: number; canceled: number } | null;
  items: { custom_id: string; task_id: string | null; status: string }[];
  /** In the file's order (whether each has an output text, an error); null when it could not be read. */
  output_lines: { custom_id: string; task_id: string; status: string; text: boolean; error: boolean }[] | null;
  /** What stopped it before its end (a refused request), or null. */
  error: string | null;
}

/** One request a fake upstream received, through the recording proxy, with its answer. */
export interface UpstreamRecord {
  type: "upstream";
  at: number;
  provider: string;
  kind: "submit" | "status" | "result" | "cancel" | "download" | "chat" | "other";
  method: string;
  path: string;
  status: number | null;
  /** The task this request is for, when the request says (fal: the `fal_webhook` URL). */
  task_id: string | null;
  /** The upstream's own job id in a submission's answer. */
  job_id: string | null;
  /** The service was gone (a crash) before the answer could be handed to it. */
  answer_lost?: boolean;
}

/** A task as the drain last read it. */
export interface TaskRecord {
  type: "task";
  at: number;
  tenant: string;
  task_id: string;
  idem_key: string | null;
  recipe: string | null;
  receiver: string | null;
  status: string;
  error_code: string | null;
  capability: string;
  /** The batch it is an item of, and the item's custom_id. */
  batch_id?: string | null;
  custom_id?: string | null;
  provider: string | null;
  mode: string | null;
  callback: { url: string; status: string; attempt_count: number; delivered_at: string | null; last_error: string | null } | null;
  billing: { charged_credits: string; refunded_credits: string; net_charged_credits: string } | null;
  /** The progress message of a task not yet terminal (what it says it waits for). */
  progress_message?: string | null;
}

/** A tenant's ledger, read after the drain. */
export interface LedgerRecord {
  type: "ledger";
  at: number;
  tenant: string;
  tenant_id: string;
  ledger: {
    totals: { granted: string; captured: string; reserved: string };
    balance: string;
    recomputed: { granted: string; captured: string; reserved: string };
    reservations: number;
    open_reservations: number;
  } | null;
  /** The balance as GET /admin/v1/tenants/{id} reports it. */
  tenant_balance: string | null;
  /** Credits granted through the operator API during the run. */
  granted_by_soak: string;
}

/** After the server stopped: a tenant's open reservation rows read from its persisted account object (state.ts). */
export interface StateRecord {
  type: "state";
  at: number;
  tenant: string;
  tenant_id: string;
  open_rows: { id: string; amount: string; created_at: string | null; lease_until: number | null }[];
}

/** After the drain: the tenant's request log, its entries that carry credits (GET /v1/requests, every page). */
export interface RequestLogRecord {
  type: "request_log";
  at: number;
  tenant: string;
  tenant_id: string;
  /** Entries read in all, and those with credits. */
  read: number;
  charged: { request_id: string; charged: string; settled: boolean; recovered: boolean; route: string }[];
}

/** After the server stopped: every settled ledger row of the tenant, with the request it names (state.ts). */
export interface LedgerRowsRecord {
  type: "ledger_rows";
  at: number;
  tenant: string;
  tenant_id: string;
  rows: { id: string; request_id: string | null; status: string; captured: string }[];
}

/** Phases of the run, for the reader of the history. */
export interface PhaseRecord {
  type: "phase";
  at: number;
  phase: "setup" | "traffic" | "drain" | "settle" | "ledgers" | "done";
  note?: string;
}

/** A provider outage the soak makes: from `start` to `end` every submission to it is refused with 503. */
export interface OutageRecord {
  type: "outage";
  at: number;
  provider: string;
  phase: "start" | "end";
}

/** `GET /v1/status` as read after the drain. */
export interface StatusRecord {
  type: "status";
  at: number;
  status: number;
  body: any;
}

export type HistoryRecord =
  | OutageRecord
  | StatusRecord
  | MetaRecord
  | ServerRecord
  | RequestRecord
  | CallbackRecord
  | EventRecord
  | BatchRecord
  | FileBatchRecord
  | UpstreamRecord
  | TaskRecord
  | LedgerRecord
  | StateRecord
  | RequestLogRecord
  | LedgerRowsRecord
  | PhaseRecord;

export class History {
  private lines = 0;
  constructor(readonly file: string) {
    writeFileSync(file, "");
  }
  write(record: HistoryRecord): void {
    appendFileSync(this.file, `${JSON.stringify(record)}\n`);
    this.lines++;
  }
  get count(): number {
    return this.lines;
  }
}

export function readHistory(file: string): HistoryRecord[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as HistoryRecord);
}
