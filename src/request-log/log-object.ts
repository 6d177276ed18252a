import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import type { KeyMode } from "../keys/api-keys";
import { dec, fmt } from "../lib/decimal";
import { requestIdTime } from "../lib/request-ids";
import { migrate, migratedSql } from "../storage/migrations";
import type { Attempt, LogRow } from "./entry";
import { deleteExportRow, type ExportRecord, exportRow, exportRows, insertExport, type NewExport } from "./exports/export-rows";
import { ExportRunner } from "./exports/run";
import { type LedgerFact, routeOfCapability } from "./ledger-facts";
import type { RequestLogRpc } from "./log-rpc";
import { REQUEST_LOG_MIGRATIONS } from "./log-schema";
import { hourShard, logDirectory } from "./log-stub";
import { type AfterQuery, type ShardPage, type ShardQuery, whereOf } from "./query";
import { hourExpiresAt } from "./shards";

const COLUMNS =
  "request_id, at, method, route, status, error_code, duration_ms, key_id, mode, door, model, task_id, batch_id, charged, settled, user_agent, replay_of, recovered, attempts, request_body, response_body";

/** A JSON list of [request id, charged] pairs as a table (rid, ch). */
const CHARGED_PAIRS = "SELECT json_extract(value, '$[0]') AS rid, json_extract(value, '$[1]') AS ch FROM json_each(?)";
/** An entry's columns as it is written again with the ledger's charge (j.ch), settled. */
const RECHARGED = COLUMNS.split(", ")
  .map((c) => (c === "charged" ? "j.ch" : c === "settled" ? "1" : `e.${c}`))
  .join(", ");

type StoredRow = Omit<LogRow, "attempts" | "settled" | "recovered"> & {
  seq: number;
  attempts: string | null;
  settled: number;
  recovered: number;
};

function rowOf(stored: StoredRow): LogRow & { seq: number } {
  return {
    ...stored,
    settled: stored.settled === 1,
    recovered: stored.recovered === 1,
    attempts: stored.attempts === null ? null : (JSON.parse(stored.attempts) as Attempt[]),
  };
}

/**
 * A tenant's request log (docs/storage/request-log-object.md), in two roles of one class: an hour
 * shard (`<tenant>:h:<hour>`) holds the entries of requests that arrived in that hour, with what
 * the ledger settled for them, and deletes itself, by alarm, once the tenant's retention has passed;
 * the directory (`<tenant>:hours`) lists the hours that have entries, so that a listing visits only those.
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
    const after = await this.claim(tenantId, hour, retentionDays);
    this.ctx.storage.transactionSync(() => {
      after();
      // An entry the ledger already spoke for takes its charges; a rebuilt one gives way to it.
      const ids = rows.map((r) => r.request_id);
      const charged = this.chargesOf(ids);
      if (charged.size > 0)
        this.sql.exec(
          "DELETE FROM entries WHERE recovered = 1 AND request_id IN (SELECT value FROM json_each(?))",
          JSON.stringify(ids),
        );
      for (const row of rows) {
        const sum = charged.get(row.request_id);
        this.insert(sum === undefined ? row : { ...row, charged: sum, settled: true });
      }
    });
  }

  /** The ledger's settlements (src/accounts/log-forward.ts): each entry's charge is their sum; an entry never written is rebuilt. */
  async ledgerFacts(tenantId: string, hour: number, facts: LedgerFact[], retentionDays: number, fallback = true): Promise<void> {
    const missing = new Map<string, LedgerFact[]>();
    const present = this.withEntries(facts);
    for (const f of facts) {
      if (present.has(f.request_id)) continue;
      const own = missing.get(f.request_id);
      if (own) own.push(f);
      else missing.set(f.request_id, [f]);
    }
    // A caller's own request id does not say its hour: its entry may be in the hour before the charge's.
    const elsewhere = fallback ? [...missing.values()].flat().filter((f) => requestIdTime(f.request_id) === null) : [];
    if (elsewhere.length > 0) {
      const found = await hourShard(this.env, tenantId, hour - 1).factsIfPresent(elsewhere);
      for (const id of found) missing.delete(id);
    }
    const after = await this.claim(tenantId, hour, retentionDays);
    this.ctx.storage.transactionSync(() => {
      after();
      const kept = facts.filter((f) => !(elsewhere.includes(f) && !missing.has(f.request_id)));
      this.putCharges(kept);
      const charged = this.chargesOf(kept.map((f) => f.request_id));
      for (const [requestId, own] of missing) this.insert(rebuilt(requestId, own, charged.get(requestId) ?? "0"));
      this.applyCharges(charged);
    });
  }

  /** Facts for requests whose entries this shard holds are applied; answers their request ids. */
  factsIfPresent(facts: LedgerFact[]): string[] {
    const here = this.withEntries(facts);
    const present = facts.filter((f) => here.has(f.request_id));
    if (present.length === 0) return [];
    const ids = [...new Set(present.map((f) => f.request_id))];
    this.ctx.storage.transactionSync(() => {
      this.putCharges(present);
      this.applyCharges(this.chargesOf(ids));
    });
    return ids;
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
      // This instance may still be asked (a lookup by an id that names this hour): it answers as an empty shard.
      await migrate(this.ctx.storage, REQUEST_LOG_MIGRATIONS);
      return;
    }
    this.sql.exec("DELETE FROM hours WHERE expires_at <= ?", Date.now());
    await this.exportRuns.runDue();
    await this.scheduleDirectory();
  }

  /**
   * Makes this object the tenant's shard of `hour`: the directory learns of the hour before the
   * first entry is written, so an entry is never out of a listing's reach. Answers the write to
   * make in the entries' transaction.
   */
  private async claim(tenantId: string, hour: number, retentionDays: number): Promise<() => void> {
    const expiresAt = hourExpiresAt(hour, retentionDays);
    const shard = this.sql
      .exec<{ expires_at: number; announced: number }>("SELECT expires_at, announced FROM shard WHERE id = 1")
      .toArray()[0];
    if (shard?.announced && shard.expires_at === expiresAt) return () => {};
    await logDirectory(this.env, tenantId).addHour(hour, expiresAt);
    await this.ctx.storage.setAlarm(expiresAt);
    return () =>
      this.sql.exec(
        "INSERT INTO shard (id, tenant_id, hour, expires_at, announced) VALUES (1, ?, ?, ?, 1) ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at, announced = 1",
        tenantId,
        hour,
        expiresAt,
      );
  }

  /** The request ids of `facts` that have an entry here: one query for the whole batch. */
  private withEntries(facts: LedgerFact[]): Set<string> {
    const ids = JSON.stringify(facts.map((f) => f.request_id));
    const rows = this.sql.exec<{ request_id: string }>(
      "SELECT DISTINCT request_id FROM entries WHERE request_id IN (SELECT value FROM json_each(?))",
      ids,
    );
    return new Set([...rows].map((r) => r.request_id));
  }

  /** Keeps each fact's amount under its ledger row's id (a row told again takes its last amount). */
  private putCharges(facts: LedgerFact[]): void {
    this.sql.exec(
      `INSERT INTO charges (charge_id, request_id, amount)
       SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?) WHERE true
       ON CONFLICT (charge_id) DO UPDATE SET amount = excluded.amount`,
      JSON.stringify(facts.map((f) => [f.charge_id, f.request_id, f.amount])),
    );
  }

  /** What the ledger charged each of `ids` that it has charged, summed exactly. */
  private chargesOf(ids: readonly string[]): Map<string, string> {
    const sums = new Map<string, ReturnType<typeof dec>>();
    const rows = this.sql.exec<{ request_id: string; amount: string }>(
      "SELECT request_id, amount FROM charges WHERE request_id IN (SELECT value FROM json_each(?))",
      JSON.stringify(ids),
    );
    for (const r of rows) sums.set(r.request_id, (sums.get(r.request_id) ?? dec(0)).plus(r.amount));
    return new Map([...sums].map(([id, sum]) => [id, fmt(sum)]));
  }

  /**
   * Entries take the ledger's charges as new writes (a new `seq` each, in their order), so that an
   * export, which reads a shard's writes in order, sends them again in their final form. Entries
   * that already show their charge are left as they are.
   */
  private applyCharges(charged: Map<string, string>): void {
    if (charged.size === 0) return;
    const pairs = JSON.stringify([...charged]);
    const stale = [
      ...this.sql.exec<{ seq: number }>(
        `SELECT e.seq FROM entries e JOIN (${CHARGED_PAIRS}) j ON e.request_id = j.rid
         WHERE e.charged IS NOT j.ch OR e.settled = 0 ORDER BY e.seq`,
        pairs,
      ),
    ].map((r) => r.seq);
    if (stale.length === 0) return;
    const seqs = JSON.stringify(stale);
    this.sql.exec(
      `INSERT INTO entries (${COLUMNS}) SELECT ${RECHARGED} FROM entries e JOIN (${CHARGED_PAIRS}) j ON e.request_id = j.rid
       WHERE e.seq IN (SELECT value FROM json_each(?)) ORDER BY e.seq`,
      pairs,
      seqs,
    );
    this.sql.exec("DELETE FROM entries WHERE seq IN (SELECT value FROM json_each(?))", seqs);
  }

  private insert(r: LogRow): void {
    this.sql.exec(
      `INSERT INTO entries (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
      r.recovered ? 1 : 0,
      r.attempts ? JSON.stringify(r.attempts) : null,
      r.request_body,
      r.response_body,
    );
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

/** An entry rebuilt from the ledger: its own was lost with the isolate that held it (docs/request-log.md). */
function rebuilt(requestId: string, facts: LedgerFact[], charged: string): LogRow {
  const first = facts[0] as LedgerFact;
  const chat = first.capability === "chat_completion";
  return {
    request_id: requestId,
    at: Math.min(...facts.map((f) => f.created_at)),
    method: "POST",
    route: routeOfCapability(first.capability),
    status: chat ? 200 : 202,
    error_code: null,
    duration_ms: 0,
    key_id: first.key_id ?? "unknown",
    mode: first.mode,
    door: "rest",
    model: facts.find((f) => f.model !== null)?.model ?? null,
    task_id: null,
    batch_id: null,
    charged,
    settled: true,
    user_agent: null,
    replay_of: null,
    recovered: true,
    attempts: null,
    request_body: null,
    response_body: null,
  };
}
