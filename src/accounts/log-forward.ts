/**
 * The ledger's side of the request log's agreement with the bill: what the account settled is told
 * to the log's hour shards from the account's own alarm, read from the reservation rows themselves
 * (no write of its own per charge: a cursor advances once per run). A settlement wakes the alarm
 * within FORWARD_DELAY_MS; a run that fails leaves the cursor and is tried again.
 */
import type { Env } from "../env";
import type { LedgerFact } from "../request-log/ledger-facts";
import { hourShard } from "../request-log/log-stub";
import { hoursOfRequest } from "../request-log/shards";
import { readTenant } from "../tenancy/tenant-row";

export const FORWARD_DELAY_MS = 1_000;

/** A deployment that records no log (REQUEST_LOG_RECORDING = "off") has nothing to tell it. */
export function forwardsToLog(env: Env): boolean {
  return env.REQUEST_LOG_RECORDING !== "off";
}

/** A settlement's part: the alarm runs soon after to tell the log, when the deployment keeps one. */
export function wakeForLog(ctx: { env: Env; wakeAt(atMs: number): void }, nowMs = Date.now()): void {
  if (forwardsToLog(ctx.env)) ctx.wakeAt(nowMs + FORWARD_DELAY_MS);
}
/** Rows settled this close before the cursor are sent again (the shard counts each once): rows of one millisecond are never skipped. */
const OVERLAP_MS = 2_000;
const PAGE = 500;

type Row = {
  task_id: string;
  request_id: string;
  status: string;
  captured_amount: string;
  created_at: string;
  settled_at: string;
  key_id: string | null;
  mode: string | null;
  model: string | null;
  capability: string | null;
};

function cursorOf(sql: SqlStorage): string | null {
  return sql.exec<{ settled_at: string }>("SELECT settled_at FROM log_forward WHERE id = 1").toArray()[0]?.settled_at ?? null;
}

/** When the alarm should run for the log: now-ish when something was settled past the cursor, else never. */
export function nextForwardAt({ sql, env }: { sql: SqlStorage; env: Env }, now: number): number | null {
  if (!forwardsToLog(env)) return null;
  const cursor = cursorOf(sql);
  const newer = sql
    .exec("SELECT 1 FROM reservations WHERE request_id IS NOT NULL AND status != 'open' AND settled_at > ? LIMIT 1", cursor ?? "")
    .toArray();
  return newer.length > 0 ? now + FORWARD_DELAY_MS : null;
}

/** Sends what was settled since the cursor to the shards of the requests it names; advances the cursor after. */
export async function forwardSettlements({ sql, env }: { sql: SqlStorage; env: Env }): Promise<void> {
  if (!forwardsToLog(env)) return;
  try {
    await forward(sql, env);
  } catch (e) {
    // The cursor stays: the next alarm (nextForwardAt) sends the same rows again.
    console.warn(`request log: settlements not forwarded: ${String(e)}`);
  }
}

async function forward(sql: SqlStorage, env: Env): Promise<void> {
  const tenant = readTenant(sql);
  if (!tenant) return;
  for (;;) {
    const cursor = cursorOf(sql);
    const from = cursor === null ? "" : new Date(Date.parse(cursor) - OVERLAP_MS).toISOString();
    const rows = sql
      .exec<Row>(
        `SELECT r.task_id, r.request_id, r.status, r.captured_amount, r.created_at, r.settled_at, r.key_id, u.mode, u.model, u.capability
         FROM reservations r LEFT JOIN usage_entries u ON u.entry_id = r.task_id
         WHERE r.request_id IS NOT NULL AND r.status != 'open' AND r.settled_at > ?
         ORDER BY r.settled_at LIMIT ?`,
        from,
        PAGE,
      )
      .toArray();
    const last = rows[rows.length - 1];
    if (!last || (cursor !== null && last.settled_at <= cursor)) return;
    const byHour = new Map<number, LedgerFact[]>();
    for (const r of rows) {
      const fact: LedgerFact = {
        charge_id: r.task_id,
        request_id: r.request_id,
        amount: r.status === "captured" ? r.captured_amount : "0",
        created_at: Date.parse(r.created_at),
        key_id: r.key_id,
        mode: r.mode === "test" ? "test" : "live",
        model: r.model,
        capability: r.capability,
      };
      const hour = hoursOfRequest(r.request_id, fact.created_at)[0] as number;
      const facts = byHour.get(hour);
      if (facts) facts.push(fact);
      else byHour.set(hour, [fact]);
    }
    await Promise.all(
      [...byHour].map(([hour, facts]) =>
        hourShard(env, tenant.tenant_id, hour).ledgerFacts(tenant.tenant_id, hour, facts, tenant.request_log_retention_days),
      ),
    );
    sql.exec(
      "INSERT INTO log_forward (id, settled_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET settled_at = excluded.settled_at",
      last.settled_at,
    );
    if (rows.length < PAGE) return;
  }
}
