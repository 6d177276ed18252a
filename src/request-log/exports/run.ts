/**
 * Runs a tenant's exports from its directory object: on its alarm (every export with new entries
 * at least every RUN_EVERY_MS) and on demand. A run reads the entries written since the export's
 * cursors — the hours the directory lists, then each hour's shard, oldest write first — sends them
 * as one batch, and moves the cursors only when the batch was taken: delivery is at least once.
 *
 * Cursors are per hour and count a shard's writes (`seq`), not arrival times, because an entry is
 * written after its answer (a stream's end, a task's note): one that arrived earlier may be
 * written after a later one. An hour stays open, read again at each run, until two hours after it
 * began; an entry written later than that into an hour already closed is not exported.
 */
import type { Env } from "../../env";
import type { LogRow } from "../entry";
import { hourShard } from "../log-stub";
import { hourOf } from "../shards";
import { withTaskAttempts } from "../task-attempts";
import {
  cursorsOf,
  type ExportRecord,
  exportRow,
  exportRows,
  recordFailure,
  recordIdle,
  recordSuccess,
  sealedHeaders,
} from "./export-rows";
import { sendOtlp, sendToDestination } from "./send";

/** Entries one run sends at most; a run cut there goes on at once. */
export const BATCH = 500;

interface Read {
  rows: LogRow[];
  /** hour → the last seq read of it. */
  sent: Map<number, number>;
  /** Every hour up to this one has been read to its end and can no longer change. */
  doneHour: number;
  more: boolean;
}

/** The directory's hours this export has still to read, oldest first. */
function openHours(sql: SqlStorage, e: ExportRecord, nowMs: number): number[] {
  return sql
    .exec<{ hour: number }>(
      "SELECT hour FROM hours WHERE hour > ? AND hour >= ? AND expires_at > ? ORDER BY hour",
      e.done_hour,
      hourOf(e.created_at),
      nowMs,
    )
    .toArray()
    .map((r) => r.hour);
}

async function readNew(env: Env, sql: SqlStorage, e: ExportRecord, nowMs: number): Promise<Read> {
  const cursors = cursorsOf(sql, e.export_id);
  const closing = hourOf(nowMs) - 2;
  const rows: LogRow[] = [];
  const sent = new Map<number, number>();
  let incomplete: number | null = null;
  for (const hour of openHours(sql, e, nowMs)) {
    const room = BATCH - rows.length;
    if (room <= 0) {
      incomplete = hour;
      break;
    }
    const page = await hourShard(env, e.tenant_id, hour).after({
      seq: cursors.get(hour) ?? 0,
      since: e.created_at,
      mode: e.mode,
      limit: room,
    });
    for (const { seq, ...row } of page.rows) {
      rows.push(row);
      sent.set(hour, seq);
    }
    if (page.rows.length === room) {
      incomplete = hour;
      break;
    }
  }
  const doneHour = incomplete === null ? closing : Math.min(closing, incomplete - 1);
  return { rows, sent, doneHour, more: incomplete !== null };
}

async function runOnce(env: Env, sql: SqlStorage, exportId: string, nowMs: () => number): Promise<void> {
  const e = exportRow(sql, exportId);
  if (!e) return;
  const read = await readNew(env, sql, e, nowMs());
  if (read.rows.length === 0) {
    recordIdle(sql, exportId, read.doneHour, nowMs());
    return;
  }
  // A task create's attempts are the task's own, read as they now stand.
  const rows = await withTaskAttempts(env, e.tenant_id, read.rows);
  const error =
    e.kind === "otlp" ? await sendOtlp(env, e, sealedHeaders(sql, exportId), rows) : await sendToDestination(env, e, rows);
  // Deleted while its batch was out: nothing is left to record.
  if (!exportRow(sql, exportId)) return;
  if (error) recordFailure(sql, exportId, error, nowMs());
  else recordSuccess(sql, exportId, { ...read, delivered: read.rows.length, nowMs: nowMs() });
}

/**
 * The runs of one directory object. Runs of one export take turns (the alarm's and an on-demand
 * one never send the same entries at once); different exports run side by side.
 */
export class ExportRunner {
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly env: Env,
    private readonly sql: SqlStorage,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs the export after any run of it already under way; errors are the export's `last_error`. */
  run(exportId: string): Promise<void> {
    const before = this.running.get(exportId) ?? Promise.resolve();
    const next = before.then(() =>
      runOnce(this.env, this.sql, exportId, this.now).catch((err) => {
        recordFailure(this.sql, exportId, `export failed: ${String(err).slice(0, 200)}`, this.now());
      }),
    );
    this.running.set(exportId, next);
    void next.then(() => {
      if (this.running.get(exportId) === next) this.running.delete(exportId);
    });
    return next;
  }

  /** Every export whose time has come and that has hours to read. */
  async runDue(): Promise<void> {
    const nowMs = this.now();
    const due = exportRows(this.sql).filter((e) => e.next_run_at <= nowMs && openHours(this.sql, e, nowMs).length > 0);
    await Promise.all(due.map((e) => this.run(e.export_id)));
  }

  /** When the alarm should run the next export (null: none has anything to read until a new hour comes). */
  nextRunAt(): number | null {
    const nowMs = this.now();
    const times = exportRows(this.sql)
      .filter((e) => openHours(this.sql, e, nowMs).length > 0)
      .map((e) => Math.max(e.next_run_at, nowMs));
    return times.length ? Math.min(...times) : null;
  }
}
