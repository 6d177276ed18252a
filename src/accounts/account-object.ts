import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { timingSafeEqualStrings } from "../lib/crypto";
import { dec, fmt, sum } from "../lib/decimal";
import { newId, randomToken } from "../lib/ids";
import type { Permission } from "./api-keys";

export type TenantStatus = "active" | "disabled";

export interface TenantView {
  tenant_id: string;
  name: string;
  status: TenantStatus;
  balance: string;
  created_at: string;
}

export interface ApiKeyRecord {
  key_id: string;
  region: string;
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

export type AuthResult =
  | { ok: true; tenant_id: string; key_id: string; permissions: Permission[] }
  | { ok: false; code: "invalid_api_key" | "tenant_disabled" };

/**
 * One per tenant (named by tenant id). Holds the tenant row, its API keys (hashes only),
 * its credit ledger and its callback signing keys. Schema: docs/storage/account-object.md.
 */
export class AccountObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;

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
    `);
  }

  private tenantRow() {
    return this.sql
      .exec<{ tenant_id: string; name: string; status: TenantStatus; created_at: string }>(
        "SELECT tenant_id, name, status, created_at FROM tenant LIMIT 1",
      )
      .toArray()[0];
  }

  /** Grants minus captures minus open reservations. */
  private balance(): string {
    const grants = this.sql.exec<{ amount: string }>("SELECT amount FROM credit_grants").toArray();
    return fmt(sum(grants.map((g) => g.amount)));
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
    const grant = this.insertGrant(amount, source, new Date().toISOString());
    return { grant, balance: this.balance() };
  }

  addApiKey(input: { key_id: string; key_hash: string; region: string; permissions: Permission[] }): ApiKeyRecord | null {
    if (!this.tenantRow()) return null;
    const now = new Date().toISOString();
    this.sql.exec(
      "INSERT INTO api_keys (key_id, key_hash, region, permissions, status, created_at) VALUES (?, ?, ?, ?, 'active', ?)",
      input.key_id,
      input.key_hash,
      input.region,
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
        permissions: string;
        status: "active" | "revoked";
        created_at: string;
        revoked_at: string | null;
      }>("SELECT key_id, region, permissions, status, created_at, revoked_at FROM api_keys WHERE key_id = ?", keyId)
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

  /** Checked on every request: key active, hash equal (constant time), tenant enabled. */
  authenticate(keyId: string, keyHash: string): AuthResult {
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
    return { ok: true, tenant_id: tenant.tenant_id, key_id: keyId, permissions: JSON.parse(row.permissions) as Permission[] };
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

/** Tenant ids: `ten_` + 26 base32 characters. */
export function newTenantId(): string {
  return `ten_${randomToken(16)}`;
}
