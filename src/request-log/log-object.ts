import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import type { KeyMode } from "../keys/api-keys";
import { migratedSql } from "../storage/migrations";
import type { Attempt, LogRow } from "./entry";
import { deleteExportRow, type ExportRecord, exportRow, exportRows, insertExport, type NewExport } from "./exports/export-rows";
import { ExportRunner } from "./exports/run";
import type { RequestLogRpc } from "./log-rpc";
import { REQUEST_LOG_MIGRATIONS } from "./log-schema";
import { logDirectory } from "./log-stub";
import { type AfterQuery, type ShardPage, type ShardQuery, whereOf } from "./query";
import { hourExpiresAt } from "./shards";

const COLUMNS =
  "request_id, at, method, route, status, error_code, duration_ms, key_id, mode, door, model, task_id, batch_id, charged, settled, user_agent, replay_of, attempts, request_body, response_body";

type StoredRow = Omit<LogRow, "attempts" | "settled"> & { seq: number; attempts: string | null; settled: number };

function rowOf(stored: StoredRow): LogRow & { seq: number } {
  return {
    ...stored,
    settled: stored.settled === 1,
    attempts: stored.attempts === null ? null : (JSON.parse(stored.attempts) as Attempt[]),
  };
}

/**
 * A tenant's request log (docs/storage/request-log-object.md), in two roles of one class: an hour
 * shard (`<tenant>:h:<hour>`) holds the entries of requests that arrived in that hour and deletes
 * itself, by alarm, once the tenant's retention has passed; the directory (`<tenant>:hours`) lists
 * the hours that have entries, so that a listing visits only those.
 */
export class RequestLogObject extends DurableObject<Env> implements RequestLogRpc {
  private readonly sql: SqlStorage;
  private readonly exportRuns: ExportRunner;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = migratedSql(ctx, REQUEST_LOG_MIGRATIONS);
    this.exportRuns = new ExportRunner(env, this.sql);
  }

  async append(tenantId: string, hour: number, rows: LogRow[], retentionDays: number): Promise<void> {
    const expiresAt = hourExpiresAt(hour, retentionDays);
    const shard = this.sql
      .exec<{ expires_at: number; announced: number }>("SELECT expires_at, announced FROM shard WHERE id = 1")
      .toArray()[0];
    // The directory learns of the hour before its first entry is written: an entry is never out of a listing's reach.
    if (!shard?.announced || shard.expires_at !== expiresAt) await logDirectory(this.env, tenantId).addHour(hour, expiresAt);
    this.ctx.storage.transactionSync(() => {
      if (!shard || shard.expires_at !== expiresAt || !shard.announced) {
        this.sql.exec(
          "INSERT INTO shard (id, tenant_id, hour, expires_at, announced) VALUES (1, ?, ?, ?, 1) ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at, announced = 1",
          tenantId,
          hour,
          expiresAt,
        );
      }
      for (const row of rows) {
        const settled = row.task_id !== null && row.charged !== null ? this.settlementOf(row.task_id) : null;
        const r = settled === null ? row : { ...row, charged: settled, settled: true };
        this.sql.exec(
          `INSERT INTO entries (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          r.request_id,
          r.at,
          r.method,
          r.route,
          r.status,
          r.error_code,
          r.duration_ms,
          r.key_id,
          r.mode,
          r.door,
          r.model,
          r.task_id,
          r.batch_id,
          r.charged,
          r.settled ? 1 : 0,
          r.user_agent,
          r.replay_of,
          r.attempts ? JSON.stringify(r.attempts) : null,
          r.request_body,
          r.response_body,
        );
      }
    });
    if (!shard || shard.expires_at !== expiresAt) await this.ctx.storage.setAlarm(expiresAt);
  }

  page(query: ShardQuery): ShardPage {
    const where = whereOf(query);
    const rows = this.sql
      .exec<StoredRow>(
        `SELECT seq, ${COLUMNS} FROM entries ${where.sql} ORDER BY at DESC, seq DESC LIMIT ?`,
        ...where.args,
        query.limit,
      )
      .toArray();
    return { rows: rows.map(rowOf) };
  }

  after(query: AfterQuery): ShardPage {
    const rows = this.sql
      .exec<StoredRow>(
        `SELECT seq, ${COLUMNS} FROM entries WHERE seq > ? AND at >= ? AND mode = ? ORDER BY seq LIMIT ?`,
        query.seq,
        query.since,
        query.mode,
        query.limit,
      )
      .toArray();
    return { rows: rows.map(rowOf) };
  }

  byId(requestId: string): LogRow | null {
    const row = this.sql
      .exec<StoredRow>(`SELECT seq, ${COLUMNS} FROM entries WHERE request_id = ? ORDER BY at DESC, seq DESC LIMIT 1`, requestId)
      .toArray()[0];
    return row ? rowOf(row) : null;
  }

  settle(taskId: string, charged: string): void {
    this.sql.exec(
      "INSERT INTO settlements (task_id, charged) VALUES (?, ?) ON CONFLICT (task_id) DO UPDATE SET charged = excluded.charged",
      taskId,
      charged,
    );
    this.sql.exec("UPDATE entries SET charged = ?, settled = 1 WHERE task_id = ? AND charged IS NOT NULL", charged, taskId);
  }

  private settlementOf(taskId: string): string | null {
    return (
      this.sql.exec<{ charged: string }>("SELECT charged FROM settlements WHERE task_id = ?", taskId).toArray()[0]?.charged ??
      null
    );
  }

  async addHour(hour: number, expiresAt: number): Promise<void> {
    this.sql.exec(
      "INSERT INTO hours (hour, expires_at) VALUES (?, ?) ON CONFLICT (hour) DO UPDATE SET expires_at = excluded.expires_at",
      hour,
      expiresAt,
    );
    await this.scheduleDirectory();
  }

  hours(fromHour: number, toHour: number): number[] {
    return this.sql
      .exec<{ hour: number }>(
        "SELECT hour FROM hours WHERE hour BETWEEN ? AND ? AND expires_at > ? ORDER BY hour DESC",
        fromHour,
        toHour,
        Date.now(),
      )
      .toArray()
      .map((r) => r.hour);
  }

  async createExport(input: NewExport): Promise<ExportRecord | null> {
    const created = insertExport(this.sql, input);
    await this.scheduleDirectory();
    return created;
  }

  exports(mode?: KeyMode): ExportRecord[] {
    return exportRows(this.sql, mode);
  }

  exportById(exportId: string): ExportRecord | null {
    return exportRow(this.sql, exportId);
  }

  async deleteExport(exportId: string): Promise<boolean> {
    const deleted = deleteExportRow(this.sql, exportId);
    await this.scheduleDirectory();
    return deleted;
  }

  async runExport(exportId: string): Promise<ExportRecord | null> {
    await this.exportRuns.run(exportId);
    await this.scheduleDirectory();
    return exportRow(this.sql, exportId);
  }

  /**
   * A shard past its retention deletes everything it holds; the directory forgets the hours that
   * went and runs the exports that are due (src/request-log/exports/run.ts).
   */
  override async alarm(): Promise<void> {
    const shard = this.sql.exec<{ expires_at: number }>("SELECT expires_at FROM shard WHERE id = 1").toArray()[0];
    if (shard) {
      if (shard.expires_at > Date.now()) return void (await this.ctx.storage.setAlarm(shard.expires_at));
      await this.ctx.storage.deleteAll();
      return;
    }
    this.sql.exec("DELETE FROM hours WHERE expires_at <= ?", Date.now());
    await this.exportRuns.runDue();
    await this.scheduleDirectory();
  }

  /** The directory's alarm: the earliest of an hour's end of retention and an export's next run. */
  private async scheduleDirectory(): Promise<void> {
    const expiry = this.sql.exec<{ at: number | null }>("SELECT MIN(expires_at) AS at FROM hours").toArray()[0]?.at ?? null;
    const run = this.exportRuns.nextRunAt();
    const next = expiry === null ? run : run === null ? expiry : Math.min(expiry, run);
    if (next == null) await this.ctx.storage.deleteAlarm();
    else if ((await this.ctx.storage.getAlarm()) !== next) await this.ctx.storage.setAlarm(next);
  }
}
