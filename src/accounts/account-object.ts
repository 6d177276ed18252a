import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { timingSafeEqualStrings } from "../lib/crypto";
import { dec, fmt, sum } from "../lib/decimal";
import { newId, randomToken } from "../lib/ids";
import type { KeyMode, Permission } from "./api-keys";

export type TenantStatus = "active" | "disabled";

export interface TenantView {
  tenant_id: string;
  name: string;
  status: TenantStatus;
  balance: string;
  created_at: string;
  /** Requests per minute per API key; null follows the deployment's default. */
  rate_limit_per_minute: number | null;
}

export interface ApiKeyRecord {
  key_id: string;
  region: string;
  mode: KeyMode;
  permissions: Permission[];
  status: "active" | "revoked";
  created_at: string;
  revoked_at: string | null;
}

export interface GrantView {
  grant_id: string;
  amount: string;
  source: string;
  created_at: string;
}

export type SigningKeyView = {
  id: string;
  status: "active" | "retired";
  created_at: string;
  retired_at: string | null;
};

/** The caller's rate-limit window, reported in `X-RateLimit-*` headers. */
export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
}

export type AuthResult =
  | { ok: true; tenant_id: string; key_id: string; permissions: Permission[]; rate: RateState | null }
  | { ok: false; code: "invalid_api_key" | "tenant_disabled" }
  | { ok: false; code: "rate_limited"; rate: RateState };

const RATE_WINDOW_MS = 60_000;

/**
 * One per tenant (named by tenant id). Holds the tenant row, its API keys (hashes only),
 * its credit ledger and its callback signing keys. Schema: docs/storage/account-object.md.
 */
export class AccountObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /**
   * Fixed one-minute windows per API key. Kept in memory: a limit is a soft guard, and the
   * object is single-threaded, so counts are exact while it lives.
   */
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS tenant (
        tenant_id TEXT PRIMARY KEY, name TEXT NOT NULL, status TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS api_keys (
        key_id TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE, region TEXT NOT NULL,
        permissions TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL, revoked_at TEXT);
      CREATE TABLE IF NOT EXISTS credit_grants (
        grant_id TEXT PRIMARY KEY, amount TEXT NOT NULL, source TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS signing_keys (
        id TEXT PRIMARY KEY, secret TEXT NOT NULL, status TEXT NOT NULL,
        created_at TEXT NOT NULL, retired_at TEXT);
      CREATE TABLE IF NOT EXISTS reservations (
        task_id TEXT PRIMARY KEY, amount TEXT NOT NULL, status TEXT NOT NULL,
        captured_amount TEXT NOT NULL DEFAULT '0', created_at TEXT NOT NULL, settled_at TEXT);
      CREATE TABLE IF NOT EXISTS totals (
        id INTEGER PRIMARY KEY CHECK (id = 1), granted TEXT NOT NULL, captured TEXT NOT NULL, reserved TEXT NOT NULL);
      INSERT OR IGNORE INTO totals (id, granted, captured, reserved) VALUES (1, '0', '0', '0');
      CREATE TABLE IF NOT EXISTS tasks (
        task_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, status TEXT NOT NULL,
        capability TEXT NOT NULL, model TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS tasks_by_created ON tasks (created_at DESC, task_id DESC);
    `);
    // Added after the first schema: a per-tenant rate limit (requests per minute per key).
    const columns = this.sql.exec<{ name: string }>("PRAGMA table_info(tenant)").toArray();
    if (!columns.some((c) => c.name === "rate_limit_per_minute"))
      this.sql.exec("ALTER TABLE tenant ADD COLUMN rate_limit_per_minute INTEGER");
    // Added with key modes: keys made before are live.
    const keyColumns = this.sql.exec<{ name: string }>("PRAGMA table_info(api_keys)").toArray();
    if (!keyColumns.some((c) => c.name === "mode"))
      this.sql.exec("ALTER TABLE api_keys ADD COLUMN mode TEXT NOT NULL DEFAULT 'live'");
  }

  private tenantRow() {
    return this.sql
      .exec<{ tenant_id: string; name: string; status: TenantStatus; created_at: string; rate_limit_per_minute: number | null }>(
        "SELECT tenant_id, name, status, created_at, rate_limit_per_minute FROM tenant LIMIT 1",
      )
      .toArray()[0];
  }

  private totals(): { granted: string; captured: string; reserved: string } {
    return this.sql
      .exec<{ granted: string; captured: string; reserved: string }>(
        "SELECT granted, captured, reserved FROM totals WHERE id = 1",
      )
      .toArray()[0] as { granted: string; captured: string; reserved: string };
  }

  private setTotals(t: { granted: string; captured: string; reserved: string }) {
    this.sql.exec("UPDATE totals SET granted = ?, captured = ?, reserved = ? WHERE id = 1", t.granted, t.captured, t.reserved);
  }

  /** Grants minus captures minus open reservations; never negative. */
  private balance(): string {
    const t = this.totals();
    return fmt(dec(t.granted).minus(t.captured).minus(t.reserved));
  }

  private view(): TenantView | null {
    const t = this.tenantRow();
    return t ? { ...t, balance: this.balance() } : null;
  }

  /** Creates the tenant (once) with an optional opening grant. */
  create(input: { tenant_id: string; name: string; credits?: string; source?: string }): TenantView {
    const existing = this.view();
    if (existing) return existing;
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "INSERT INTO tenant (tenant_id, name, status, created_at, updated_at) VALUES (?, ?, 'active', ?, ?)",
        input.tenant_id,
        input.name,
        now,
        now,
      );
      if (input.credits && dec(input.credits).gt(0)) this.insertGrant(input.credits, input.source ?? "opening_balance", now);
    });
    return this.view() as TenantView;
  }

  get(): TenantView | null {
    return this.view();
  }

  setStatus(status: TenantStatus): TenantView | null {
    if (!this.tenantRow()) return null;
    this.sql.exec("UPDATE tenant SET status = ?, updated_at = ?", status, new Date().toISOString());
    return this.view();
  }

  private insertGrant(amount: string, source: string, now: string): GrantView {
    const grant: GrantView = { grant_id: newId("grant"), amount: fmt(dec(amount)), source, created_at: now };
    const t = this.totals();
    this.setTotals({ ...t, granted: fmt(dec(t.granted).plus(grant.amount)) });
    this.sql.exec(
      "INSERT INTO credit_grants (grant_id, amount, source, created_at) VALUES (?, ?, ?, ?)",
      grant.grant_id,
      grant.amount,
      grant.source,
      grant.created_at,
    );
    return grant;
  }

  grantCredits(amount: string, source: string): { grant: GrantView; balance: string } | null {
    if (!this.tenantRow()) return null;
    const grant = this.ctx.storage.transactionSync(() => this.insertGrant(amount, source, new Date().toISOString()));
    return { grant, balance: this.balance() };
  }

  addApiKey(input: {
    key_id: string;
    key_hash: string;
    region: string;
    mode: KeyMode;
    permissions: Permission[];
  }): ApiKeyRecord | null {
    if (!this.tenantRow()) return null;
    const now = new Date().toISOString();
    this.sql.exec(
      "INSERT INTO api_keys (key_id, key_hash, region, mode, permissions, status, created_at) VALUES (?, ?, ?, ?, ?, 'active', ?)",
      input.key_id,
      input.key_hash,
      input.region,
      input.mode,
      JSON.stringify(input.permissions),
      now,
    );
    return this.apiKey(input.key_id);
  }

  private apiKey(keyId: string): ApiKeyRecord | null {
    const row = this.sql
      .exec<{
        key_id: string;
        region: string;
        mode: KeyMode;
        permissions: string;
        status: "active" | "revoked";
        created_at: string;
        revoked_at: string | null;
      }>("SELECT key_id, region, mode, permissions, status, created_at, revoked_at FROM api_keys WHERE key_id = ?", keyId)
      .toArray()[0];
    return row ? { ...row, permissions: JSON.parse(row.permissions) as Permission[] } : null;
  }

  revokeApiKey(keyId: string): ApiKeyRecord | null {
    const key = this.apiKey(keyId);
    if (!key) return null;
    if (key.status === "active") {
      this.sql.exec("UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE key_id = ?", new Date().toISOString(), keyId);
    }
    return this.apiKey(keyId);
  }

  setRateLimit(perMinute: number | null): TenantView | null {
    if (!this.tenantRow()) return null;
    this.sql.exec("UPDATE tenant SET rate_limit_per_minute = ?, updated_at = ?", perMinute, new Date().toISOString());
    return this.view();
  }

  private rate(keyId: string, limit: number): RateState & { allowed: boolean } {
    const now = Date.now();
    let w = this.windows.get(keyId);
    if (!w || now - w.start >= RATE_WINDOW_MS) {
      w = { start: now, count: 0 };
      this.windows.set(keyId, w);
    }
    const allowed = w.count < limit;
    if (allowed) w.count++;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - w.count),
      reset: Math.max(1, Math.ceil((w.start + RATE_WINDOW_MS - now) / 1000)),
    };
  }

  /**
   * Checked on every request: key active, hash equal (constant time), tenant enabled, and the
   * key's rate window (the tenant's own limit, else `defaultLimit`; 0 means none).
   */
  authenticate(keyId: string, keyHash: string, defaultLimit = 0): AuthResult {
    const row = this.sql
      .exec<{ key_hash: string; permissions: string; status: string }>(
        "SELECT key_hash, permissions, status FROM api_keys WHERE key_id = ?",
        keyId,
      )
      .toArray()[0];
    const tenant = this.tenantRow();
    if (!row || !tenant || !timingSafeEqualStrings(row.key_hash, keyHash) || row.status !== "active") {
      return { ok: false, code: "invalid_api_key" };
    }
    if (tenant.status !== "active") return { ok: false, code: "tenant_disabled" };
    const limit = tenant.rate_limit_per_minute ?? defaultLimit;
    let rate: RateState | null = null;
    if (limit > 0) {
      const { allowed, ...state } = this.rate(keyId, limit);
      if (!allowed) return { ok: false, code: "rate_limited", rate: state };
      rate = state;
    }
    return {
      ok: true,
      tenant_id: tenant.tenant_id,
      key_id: keyId,
      permissions: JSON.parse(row.permissions) as Permission[],
      rate,
    };
  }

  createSigningKey(id: string): { id: string; secret: string; created_at: string } | null {
    if (!this.tenantRow()) return null;
    // Standard Webhooks secrets: whsec_ + base64 of at least 24 random bytes.
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const secret = `whsec_${btoa(String.fromCharCode(...bytes))}`;
    const now = new Date().toISOString();
    this.sql.exec("INSERT INTO signing_keys (id, secret, status, created_at) VALUES (?, ?, 'active', ?)", id, secret, now);
    return { id, secret, created_at: now };
  }

  retireSigningKey(id: string): SigningKeyView | null {
    const key = this.signingKey(id);
    if (!key) return null;
    if (key.status === "active") {
      this.sql.exec("UPDATE signing_keys SET status = 'retired', retired_at = ? WHERE id = ?", new Date().toISOString(), id);
    }
    const updated = this.signingKey(id);
    return updated
      ? { id: updated.id, status: updated.status, created_at: updated.created_at, retired_at: updated.retired_at }
      : null;
  }

  // ------------------------------------------------------------------ ledger

  private settlement(taskId: string): Settlement | null {
    const r = this.sql
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
   * Holds `amount` for a task. Idempotent per task: a second call returns the first outcome.
   * Refused (nothing written) when the balance cannot cover it.
   */
  reserve(
    taskId: string,
    amount: string,
  ):
    | { ok: true; settlement: Settlement; balance: string }
    | { ok: false; code: "insufficient_balance" | "tenant_disabled"; balance: string; required: string } {
    const existing = this.settlement(taskId);
    if (existing) return { ok: true, settlement: existing, balance: this.balance() };
    const tenant = this.tenantRow();
    if (tenant?.status !== "active") return { ok: false, code: "tenant_disabled", balance: this.balance(), required: amount };
    const balance = dec(this.balance());
    if (balance.lt(amount)) return { ok: false, code: "insufficient_balance", balance: fmt(balance), required: fmt(dec(amount)) };
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "INSERT INTO reservations (task_id, amount, status, created_at) VALUES (?, ?, 'open', ?)",
        taskId,
        fmt(dec(amount)),
        new Date().toISOString(),
      );
      const t = this.totals();
      this.setTotals({ ...t, reserved: fmt(dec(t.reserved).plus(amount)) });
    });
    return { ok: true, settlement: this.settlement(taskId) as Settlement, balance: this.balance() };
  }

  /** Keeps `actual` (at most the reservation) and gives back the rest. Idempotent per task. */
  capture(taskId: string, actual: string): Settlement | null {
    const r = this.settlement(taskId);
    if (r?.status !== "open") return r;
    const kept = dec(actual).gt(r.reserved) ? dec(r.reserved) : dec(actual);
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "UPDATE reservations SET status = 'captured', captured_amount = ?, settled_at = ? WHERE task_id = ?",
        fmt(kept),
        new Date().toISOString(),
        taskId,
      );
      const t = this.totals();
      this.setTotals({ ...t, captured: fmt(dec(t.captured).plus(kept)), reserved: fmt(dec(t.reserved).minus(r.reserved)) });
    });
    return this.settlement(taskId);
  }

  /** Gives the whole reservation back. Idempotent per task; a settled reservation is left as it is. */
  release(taskId: string): Settlement | null {
    const r = this.settlement(taskId);
    if (r?.status !== "open") return r;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "UPDATE reservations SET status = 'released', settled_at = ? WHERE task_id = ?",
        new Date().toISOString(),
        taskId,
      );
      const t = this.totals();
      this.setTotals({ ...t, reserved: fmt(dec(t.reserved).minus(r.reserved)) });
    });
    return this.settlement(taskId);
  }

  /** The ledger's figures, recomputed from the rows, beside the running totals (for audits and tests). */
  ledger() {
    const grants = this.sql.exec<{ amount: string }>("SELECT amount FROM credit_grants").toArray();
    const rows = this.sql
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
    };
  }

  // ------------------------------------------------------------------ task index

  indexTask(entry: { task_id: string; created_at: string; status: string; capability: string; model: string }): void {
    this.sql.exec(
      `INSERT INTO tasks (task_id, created_at, status, capability, model, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (task_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at`,
      entry.task_id,
      entry.created_at,
      entry.status,
      entry.capability,
      entry.model,
      new Date().toISOString(),
    );
  }

  listTasks(q: {
    status?: string;
    capability?: string;
    created_after?: string;
    created_before?: string;
    limit: number;
    after?: { created_at: string; task_id: string };
  }): { task_ids: string[]; has_more: boolean; last?: { created_at: string; task_id: string } } {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (q.status) where.push("status = ?") && args.push(q.status);
    if (q.capability) where.push("capability = ?") && args.push(q.capability);
    if (q.created_after) where.push("created_at > ?") && args.push(q.created_after);
    if (q.created_before) where.push("created_at < ?") && args.push(q.created_before);
    if (q.after)
      where.push("(created_at < ? OR (created_at = ? AND task_id < ?))") &&
        args.push(q.after.created_at, q.after.created_at, q.after.task_id);
    const rows = this.sql
      .exec<{ task_id: string; created_at: string }>(
        `SELECT task_id, created_at FROM tasks ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC, task_id DESC LIMIT ?`,
        ...args,
        q.limit + 1,
      )
      .toArray();
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    return { task_ids: page.map((r) => r.task_id), has_more: rows.length > q.limit, ...(last ? { last } : {}) };
  }

  /** The secret leaves the object only to sign deliveries. */
  signingKey(id: string): (SigningKeyView & { secret: string }) | null {
    return (
      this.sql
        .exec<SigningKeyView & { secret: string }>(
          "SELECT id, secret, status, created_at, retired_at FROM signing_keys WHERE id = ?",
          id,
        )
        .toArray()[0] ?? null
    );
  }
}

export type Settlement = {
  task_id: string;
  status: "open" | "captured" | "released";
  /** Held at admission. */
  reserved: string;
  /** Kept for good at success. */
  captured: string;
  /** Given back: the part of the reservation not captured. */
  refunded: string;
};

/** Tenant ids: `ten_` + 26 base32 characters. */
export function newTenantId(): string {
  return `ten_${randomToken(16)}`;
}
