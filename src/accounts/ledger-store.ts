import { type Decimal, dec, fmt, sum } from "../lib/decimal";
import { newId } from "../lib/ids";
import type { AccountContext } from "../tenancy/account-context";
import { readTenant } from "../tenancy/tenant-row";
import { bumpFamilySpend, familyChain, familyRefusal, familySpendMismatches, lineageKeyId } from "./key-family";
import { bumpKeySpend, keySpendMismatches } from "./key-spend";
import type { GrantView, ReserveRefusal, Settlement, Totals } from "./ledger-answers";
import { wakeForLog } from "./log-forward";
import type { SpendAlerts } from "./spend-alerts";
import { insertTaskIndex, type TaskIndexEntry } from "./task-index";
import { recordUsage, type UsageNote } from "./usage";

/**
 * The credit ledger: `credit_grants`, `reservations` (holds and their settlements) and the running
 * `totals`, with each key's and family's spend moved in the same writes (docs/storage/account-object.md).
 */
export class LedgerStore {
  constructor(
    private readonly ctx: AccountContext,
    private readonly alerts: SpendAlerts,
  ) {}

  totals(): Totals {
    return this.ctx.sql.exec<Totals>("SELECT granted, captured, reserved FROM totals WHERE id = 1").toArray()[0] as Totals;
  }

  setTotals(t: Totals): void {
    this.ctx.sql.exec(
      "UPDATE totals SET granted = ?, captured = ?, reserved = ? WHERE id = 1",
      t.granted,
      t.captured,
      t.reserved,
    );
  }

  /** Grants minus captures minus open reservations; never negative. */
  balance(): string {
    const t = this.totals();
    return fmt(dec(t.granted).minus(t.captured).minus(t.reserved));
  }

  /** What a new request can hold now, and what open holds keep (`GET /v1/balance`); null without a tenant. */
  balanceView(): { available: string; reserved: string } | null {
    if (!readTenant(this.ctx.sql)) return null;
    return { available: this.balance(), reserved: fmt(dec(this.totals().reserved)) };
  }

  /** Adds a grant and its credits to the totals (inside the caller's write). */
  insertGrant(amount: string, source: string, now: string): GrantView {
    const grant: GrantView = { grant_id: newId("grant"), amount: fmt(dec(amount)), source, created_at: now };
    const t = this.totals();
    this.setTotals({ ...t, granted: fmt(dec(t.granted).plus(grant.amount)) });
    this.ctx.sql.exec(
      "INSERT INTO credit_grants (grant_id, amount, source, created_at) VALUES (?, ?, ?, ?)",
      grant.grant_id,
      grant.amount,
      grant.source,
      grant.created_at,
    );
    return grant;
  }

  grantCredits(amount: string, source: string): { grant: GrantView; balance: string } | null {
    if (!readTenant(this.ctx.sql)) return null;
    const grant = this.ctx.transaction(() => this.insertGrant(amount, source, new Date().toISOString()));
    return { grant, balance: this.balance() };
  }

  /** The grants, newest first (the console's credits page). */
  grants(limit: number): GrantView[] {
    return this.ctx.sql
      .exec<{ grant_id: string; amount: string; source: string; created_at: string }>(
        "SELECT grant_id, amount, source, created_at FROM credit_grants ORDER BY created_at DESC, grant_id DESC LIMIT ?",
        limit,
      )
      .toArray();
  }

  settlement(taskId: string): Settlement | null {
    const r = this.ctx.sql
      .exec<{ task_id: string; amount: string; status: Settlement["status"]; captured_amount: string }>(
        "SELECT task_id, amount, status, captured_amount FROM reservations WHERE task_id = ?",
        taskId,
      )
      .toArray()[0];
    if (!r) return null;
    const refunded = r.status === "open" ? "0" : fmt(dec(r.amount).minus(r.captured_amount));
    return { task_id: r.task_id, status: r.status, reserved: r.amount, captured: r.captured_amount, refunded };
  }

  /**
   * Holds `amount` for a task or a chat call. Idempotent per id: a second call returns the first
   * outcome (renewing its lease when it is still open). Refused (nothing written) when the balance
   * cannot cover it. With `lease_ms` the hold ends by itself unless settled or confirmed in time
   * (src/accounts/lease-sweep.ts); with `index` the task is listed at once, in the same write.
   */
  /** Holds whose task objects committed: their admission lease is over, the hold stays until settled. */
  confirmHolds(taskIds: readonly string[]): void {
    this.ctx.sql.exec(
      "UPDATE reservations SET lease_until = NULL WHERE status = 'open' AND task_id IN (SELECT value FROM json_each(?))",
      JSON.stringify(taskIds),
    );
  }

  reserve(
    taskId: string,
    amount: string,
    opts: { lease_ms?: number; index?: TaskIndexEntry; key_id?: string; request_id?: string } = {},
  ): { ok: true; settlement: Settlement; balance: string } | ReserveRefusal {
    const sql = this.ctx.sql;
    const leaseUntil = opts.lease_ms ? Date.now() + opts.lease_ms : null;
    const existing = this.settlement(taskId);
    if (existing) {
      if (existing.status === "open" && leaseUntil !== null) {
        sql.exec("UPDATE reservations SET lease_until = ? WHERE task_id = ? AND lease_until IS NOT NULL", leaseUntil, taskId);
        this.ctx.wakeAt(leaseUntil);
      }
      return { ok: true, settlement: existing, balance: this.balance() };
    }
    const tenant = readTenant(sql);
    if (tenant?.status !== "active") return { ok: false, code: "tenant_disabled", balance: this.balance(), required: amount };
    const balance = dec(this.balance());
    if (balance.lt(amount)) return { ok: false, code: "insufficient_balance", balance: fmt(balance), required: fmt(dec(amount)) };
    // The limits of the key and of every key that made it, read in the same synchronous method as
    // the hold below: nothing can come between. Each lineage without a credit limit costs one read.
    const nowMs = Date.now();
    const chain = opts.key_id ? familyChain(sql, opts.key_id) : [];
    const over = familyRefusal(sql, chain, amount, nowMs);
    if (over) {
      return {
        ok: false,
        code: "key_spend_limit",
        balance: fmt(balance),
        required: fmt(dec(amount)),
        remaining: over.remaining as string,
        resets_at: over.window.resets_at,
        ...(over.lineage !== chain[0] ? { limited_by: lineageKeyId(sql, over.lineage) } : {}),
      };
    }
    // The same instant as the check: the hold counts in the period it was checked against.
    const now = new Date(nowMs).toISOString();
    this.ctx.transaction(() => {
      sql.exec(
        "INSERT INTO reservations (task_id, amount, status, created_at, lease_until, key_id, request_id) VALUES (?, ?, 'open', ?, ?, ?, ?)",
        taskId,
        fmt(dec(amount)),
        now,
        leaseUntil,
        opts.key_id ?? null,
        opts.request_id ?? null,
      );
      if (opts.key_id) {
        bumpKeySpend(sql, opts.key_id, now, dec(amount), dec(0));
        bumpFamilySpend(sql, chain, now, dec(amount), dec(0));
      }
      const t = this.totals();
      this.setTotals({ ...t, reserved: fmt(dec(t.reserved).plus(amount)) });
      if (opts.index) insertTaskIndex(sql, opts.index, false);
    });
    if (leaseUntil !== null) this.ctx.wakeAt(leaseUntil);
    return { ok: true, settlement: this.settlement(taskId) as Settlement, balance: this.balance() };
  }

  /**
   * Keeps `actual` (at most the reservation) and gives back the rest. Idempotent per task. With
   * `usage`, the settlement is recorded for the usage report in the same write.
   */
  capture(taskId: string, actual: string, usage?: UsageNote): Settlement | null {
    const r = this.settlement(taskId);
    if (r?.status !== "open") return r;
    wakeForLog(this.ctx);
    const kept = dec(actual).gt(r.reserved) ? dec(r.reserved) : dec(actual);
    const at = new Date().toISOString();
    const alerts = this.alerts.of(taskId, at);
    this.ctx.transaction(() => {
      this.ctx.sql.exec(
        "UPDATE reservations SET status = 'captured', captured_amount = ?, settled_at = ?, lease_until = NULL WHERE task_id = ?",
        fmt(kept),
        at,
        taskId,
      );
      const t = this.totals();
      this.setTotals({ ...t, captured: fmt(dec(t.captured).plus(kept)), reserved: fmt(dec(t.reserved).minus(r.reserved)) });
      if (usage) recordUsage(this.ctx.sql, taskId, at, kept, usage);
      this.bumpKeyOf(taskId, dec(r.reserved).neg(), kept);
      alerts?.record();
    });
    if (alerts) this.alerts.mail();
    return this.settlement(taskId);
  }

  /**
   * Gives the whole reservation back. Idempotent per task; a settled reservation is left as it is.
   * With `usage` (a task that failed or was canceled), the settlement is recorded for the report.
   */
  release(taskId: string, usage?: UsageNote): Settlement | null {
    const r = this.settlement(taskId);
    if (r?.status !== "open") return r;
    // What is settled is told to the request log by the alarm soon after (src/accounts/log-forward.ts).
    wakeForLog(this.ctx);
    const at = new Date().toISOString();
    this.ctx.transaction(() => {
      this.ctx.sql.exec(
        "UPDATE reservations SET status = 'released', settled_at = ?, lease_until = NULL WHERE task_id = ?",
        at,
        taskId,
      );
      const t = this.totals();
      this.setTotals({ ...t, reserved: fmt(dec(t.reserved).minus(r.reserved)) });
      if (usage) recordUsage(this.ctx.sql, taskId, at, dec(0), usage);
      this.bumpKeyOf(taskId, dec(r.reserved).neg(), dec(0));
    });
    return this.settlement(taskId);
  }

  /** Moves the figures of the key that made a reservation, if one did (inside the caller's write). */
  private bumpKeyOf(reservationId: string, reserved: Decimal, captured: Decimal): void {
    const sql = this.ctx.sql;
    const row = sql
      .exec<{ key_id: string | null; created_at: string }>(
        "SELECT key_id, created_at FROM reservations WHERE task_id = ?",
        reservationId,
      )
      .toArray()[0];
    if (!row?.key_id) return;
    bumpKeySpend(sql, row.key_id, row.created_at, reserved, captured);
    bumpFamilySpend(sql, familyChain(sql, row.key_id), row.created_at, reserved, captured);
  }

  /** The ledger's figures, recomputed from the rows, beside the running totals (for audits and tests). */
  audit() {
    const sql = this.ctx.sql;
    const grants = sql.exec<{ amount: string }>("SELECT amount FROM credit_grants").toArray();
    const rows = sql
      .exec<{ amount: string; status: string; captured_amount: string }>(
        "SELECT amount, status, captured_amount FROM reservations",
      )
      .toArray();
    return {
      totals: this.totals(),
      balance: this.balance(),
      recomputed: {
        granted: fmt(sum(grants.map((g) => g.amount))),
        captured: fmt(sum(rows.filter((r) => r.status === "captured").map((r) => r.captured_amount))),
        reserved: fmt(sum(rows.filter((r) => r.status === "open").map((r) => r.amount))),
      },
      reservations: rows.length,
      open_reservations: rows.filter((r) => r.status === "open").length,
      /** Keys (`key_spend`) and families (`key_family_spend`) whose running figures differ from their reservation rows: none, always. */
      key_spend_mismatches: [...keySpendMismatches(sql), ...familySpendMismatches(sql)],
    };
  }
}
