import type { AuditInput } from "../audit/audit-store";
import { writeAudited } from "../audit/audit-store";
import type { KeyMode, Permission } from "../keys/api-keys";
import { timingSafeEqualStrings } from "../lib/crypto";
import { dec } from "../lib/decimal";
import { readSafetyPolicy } from "../safety/policy-store";
import type { AccountContext } from "../tenancy/account-context";
import { readTenant } from "../tenancy/tenant-row";
import type { KeyIssueRefusal, KeyResolution, RotateOutcome } from "./api-key-answers";
import {
  type ApiKeyRecord,
  apiKeyPage,
  apiKeyRow,
  apiKeyRows,
  insertApiKey,
  isExpired,
  type KeyChange,
  type NewApiKey,
  touchApiKey,
  updateApiKey,
} from "./api-key-rows";
import {
  activeKeyCount,
  familyChain,
  familyHasCreditLimit,
  familyStanding,
  limitedStandings,
  MAX_ACTIVE_KEYS,
  MAX_FAMILY_DEPTH,
} from "./key-family";
import type { KeyLimits } from "./key-limits";
import { type KeyStanding, keyLimits } from "./key-spend";
import { readTenantFeatures } from "./tenant-features";

/** The tenant's API keys (`api_keys`, hashes only): issue, change, rotation, resolution, standing. */
export class ApiKeyStore {
  constructor(private readonly ctx: AccountContext) {}

  /**
   * Stores a new key, made by `parent_key_id` when a managing key made it (the new key joins its
   * family). Refused, in the same synchronous method as the count, at MAX_ACTIVE_KEYS keys, or
   * below MAX_FAMILY_DEPTH generations of keys made by keys.
   */
  add(input: NewApiKey, audit?: AuditInput, parentKeyId?: string): ApiKeyRecord | KeyIssueRefusal | null {
    const sql = this.ctx.sql;
    if (!readTenant(sql)) return null;
    const now = new Date().toISOString();
    if (activeKeyCount(sql, now) >= MAX_ACTIVE_KEYS) return { ok: false, code: "too_many_keys", max: MAX_ACTIVE_KEYS };
    const ancestors = parentKeyId ? familyChain(sql, parentKeyId) : [];
    if (ancestors.length > MAX_FAMILY_DEPTH) return { ok: false, code: "family_too_deep", max: MAX_FAMILY_DEPTH };
    writeAudited(this.ctx, audit, now, () => insertApiKey(sql, { ...input, ancestors }, now));
    return apiKeyRow(sql, input.key_id);
  }

  get(keyId: string): ApiKeyRecord | null {
    return apiKeyRow(this.ctx.sql, keyId);
  }

  /** The tenant's keys, newest first (the console's list). */
  list(): ApiKeyRecord[] {
    return apiKeyRows(this.ctx.sql);
  }

  /** One page of the tenant's keys, newest first (`GET /v1/keys`). */
  page(q: Parameters<typeof apiKeyPage>[1]): ReturnType<typeof apiKeyPage> {
    return apiKeyPage(this.ctx.sql, q);
  }

  /** Renames, re-limits, disables or enables a key, with its audit entry, in one write. */
  update(keyId: string, change: KeyChange, audit?: AuditInput): ApiKeyRecord | null {
    if (!this.get(keyId)) return null;
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => updateApiKey(this.ctx.sql, keyId, change));
    return this.get(keyId);
  }

  /** Replaces a key's permissions (effective everywhere within the key cache's bound). */
  setPermissions(keyId: string, permissions: Permission[]): ApiKeyRecord | null {
    if (!this.get(keyId)) return null;
    this.ctx.sql.exec("UPDATE api_keys SET permissions = ? WHERE key_id = ?", JSON.stringify(permissions), keyId);
    return this.get(keyId);
  }

  revoke(keyId: string, audit?: AuditInput): ApiKeyRecord | null {
    const key = this.get(keyId);
    if (!key) return null;
    if (key.status !== "revoked") {
      const now = new Date().toISOString();
      writeAudited(this.ctx, audit, now, () =>
        this.ctx.sql.exec("UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE key_id = ?", now, keyId),
      );
    }
    return this.get(keyId);
  }

  /**
   * Issues `next` in place of `keyId` (same name, permissions, mode and region) and ends the old
   * key at `now + grace_ms`, in one write. The new key's pointers are written before this call, so
   * a crash between leaves an unknown key, never a rotation half made.
   */
  rotate(
    keyId: string,
    next: { key_id: string; key_hash: string; prefix: string; region: string; mode: KeyMode },
    opts: { grace_ms: number; now_ms: number; created_by: string | null },
    audit?: AuditInput,
  ): RotateOutcome {
    const sql = this.ctx.sql;
    const old = apiKeyRow(sql, keyId, opts.now_ms);
    if (!old || !readTenant(sql)) return { ok: false, code: "not_found" };
    if (old.status !== "active") return { ok: false, code: old.status };
    if (old.replaced_by !== null) return { ok: false, code: "rotated" };
    if (old.region !== next.region || old.mode !== next.mode) return { ok: false, code: "not_found" };
    const now = new Date(opts.now_ms).toISOString();
    const expiresAt = new Date(opts.now_ms + opts.grace_ms).toISOString();
    // The new key continues the old one's family: its lineage (so its spend in the period, and
    // that of the keys the old one made, still count against the limit) and its ancestors.
    const [lineage, ...ancestors] = familyChain(sql, keyId);
    writeAudited(this.ctx, audit, now, () => {
      insertApiKey(
        sql,
        {
          ...next,
          permissions: old.permissions,
          name: old.name,
          created_by: opts.created_by,
          limits: old.limits,
          ...(lineage ? { lineage } : {}),
          ancestors,
        },
        now,
      );
      sql.exec("UPDATE api_keys SET expires_at = ?, replaced_by = ? WHERE key_id = ?", expiresAt, next.key_id, keyId);
    });
    return {
      ok: true,
      old: apiKeyRow(sql, keyId, opts.now_ms) as ApiKeyRecord,
      key: apiKeyRow(sql, next.key_id, opts.now_ms) as ApiKeyRecord,
    };
  }

  /** A key was used (reported at most once a minute per key by each isolate). */
  touch(keyId: string, at: string): void {
    touchApiKey(this.ctx.sql, keyId, at);
  }

  /**
   * What a key resolves to: key active and not expired, hash equal (constant time), tenant
   * enabled. Read fresh here; the Worker caches the answer for a bounded time
   * (src/accounts/key-cache.ts) and checks `expires_at` itself on every request.
   */
  resolve(keyId: string, keyHash: string): KeyResolution {
    const sql = this.ctx.sql;
    const row = sql
      .exec<{ key_hash: string; permissions: string; status: string; expires_at: string | null; limits: string | null }>(
        "SELECT key_hash, permissions, status, expires_at, limits FROM api_keys WHERE key_id = ?",
        keyId,
      )
      .toArray()[0];
    const tenant = readTenant(sql);
    if (!row || !tenant || !timingSafeEqualStrings(row.key_hash, keyHash)) return { ok: false, code: "invalid_api_key" };
    if (row.status !== "active" || isExpired(row.expires_at, Date.now()))
      return { ok: false, code: "invalid_api_key", key_id: keyId };
    if (tenant.status !== "active") return { ok: false, code: "tenant_disabled" };
    return {
      ok: true,
      tenant_id: tenant.tenant_id,
      key_id: keyId,
      permissions: JSON.parse(row.permissions) as Permission[],
      rate_limit_per_minute: tenant.rate_limit_per_minute,
      expires_at: row.expires_at === null ? null : Date.parse(row.expires_at),
      safety_policy: readSafetyPolicy(sql),
      limits: row.limits ? (JSON.parse(row.limits) as KeyLimits) : null,
      held: familyHasCreditLimit(sql, keyId),
      output_retention_days: tenant.output_retention_days,
      features: readTenantFeatures(sql),
      request_log: { body: tenant.request_body_logging, retention_days: tenant.request_log_retention_days },
    };
  }

  /**
   * A key's limits and what its family (the key and the keys it made) spent and holds in its
   * current period; `remaining` is the least any limit of its chain leaves (null: no such key).
   */
  standing(keyId: string): KeyStanding | null {
    if (!this.get(keyId)) return null;
    return this.standingAt(keyId, Date.now());
  }

  /** The standing of several keys at once (the console's list). */
  standings(keyIds: string[]): Record<string, KeyStanding> {
    const now = Date.now();
    return Object.fromEntries(keyIds.map((id) => [id, this.standingAt(id, now)]));
  }

  private standingAt(keyId: string, nowMs: number): KeyStanding {
    const sql = this.ctx.sql;
    const chain = familyChain(sql, keyId);
    const own = familyStanding(sql, chain[0] ?? keyId, nowMs, keyLimits(sql, keyId));
    let remaining = own.remaining;
    for (const s of limitedStandings(sql, chain.slice(1), nowMs)) {
      if (s.remaining !== null && (remaining === null || dec(s.remaining).lt(remaining))) remaining = s.remaining;
    }
    return { limits: own.limits, window: own.window, spend: own.spend, remaining };
  }
}
