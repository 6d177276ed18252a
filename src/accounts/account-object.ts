import { DurableObject } from "cloudflare:workers";
import { type AuditEntry, type AuditInput, appendAudit, readAudit } from "../audit/audit-store";
import {
  type CheckoutView,
  checkoutRow,
  checkoutRows,
  insertCheckout,
  markCheckout,
  type PaymentOutcome,
} from "../billing/payments/checkout-rows";
import {
  countDestinations,
  type DestinationRecord,
  defaultDestination,
  destinationRow,
  destinationRows,
  insertDestination,
  MAX_DESTINATIONS,
  markDestinationDeleted,
  type NewDestination,
  openDestination,
  sealCredentials,
  setDefault,
} from "../destinations/destination-rows";
import type { S3Target } from "../destinations/s3";
import type { Env } from "../env";
import { timingSafeEqualStrings } from "../lib/crypto";
import { type Decimal, dec, fmt, sum } from "../lib/decimal";
import { newId, randomToken } from "../lib/ids";
import { seal } from "../lib/sealed";
import { policyFrom } from "../lib/url-policy";
import { mailSender } from "../mail/sender";
import {
  type AccessResolution,
  type IssueHashes,
  type IssueResult,
  OAuthGrantStore,
  type OAuthGrantView,
} from "../oauth/grant-store";
import {
  activeOwners,
  insertMember,
  type MemberRecord,
  type MemberStatus,
  readMember,
  readMembers,
} from "../people/members-store";
import type { Role } from "../people/roles";
import { mailOwnersKeyRejected } from "../provider-keys/mail";
import {
  deleteProviderKey,
  keyPlans,
  markProviderKeyInvalid,
  type ProviderKeyPlan,
  type ProviderKeyRecord,
  type ProviderKeyWrite,
  providerKeyRow,
  providerKeyRows,
  putProviderKey,
  sealedCredential,
  touchProviderKey,
  updateProviderKeyRouting,
} from "../provider-keys/rows";
import { tenantRetentionDays } from "../retention/days";
import { expireUploads, nextUploadExpiry, noteUploadExpiry } from "../retention/upload-expiry";
import type { SafetyPolicy } from "../safety/policy";
import { readSafetyPolicy, writeSafetyPolicy } from "../safety/policy-store";
import { migrate } from "../storage/migrations";
import type { TaskObject } from "../tasks/task-object";
import {
  type DeliveryLogQuery,
  deliveryLogPage,
  type LoggedDelivery,
  logDeliveries,
  loggedDelivery,
  unsucceededSince,
} from "../webhooks/delivery-log";
import {
  type AttemptRow,
  attemptRows,
  type DeliveryRow,
  deliveryIdFor,
  deliveryRow,
  nextWebhookAt,
  type RequeueOutcome,
  rearm,
  recordEvent,
  recordTestEvent,
  requeue,
} from "../webhooks/delivery-rows";
import {
  accountEventMode,
  countEndpoints,
  disableFailing,
  type EndpointChange,
  endpointForDelivery,
  endpointRow,
  endpointRows,
  insertEndpoint,
  MAX_ENDPOINTS,
  markEndpointDeleted,
  type NewEndpoint,
  noteDeliveryEnd,
  rotateEndpointSecret,
  subscribedEndpoints,
  updateEndpoint,
  type WebhookEndpointRecord,
} from "../webhooks/endpoint-rows";
import type { EventType } from "../webhooks/event-types";
import { type SendGrant, settleSends, takeSends } from "../webhooks/send-budget";
import { reportDeliveries, runTaskWebhooks, type WebhookAccount } from "../webhooks/task-deliveries";
import { TEST_ANSWER_WAIT_MS, waitAtMost } from "../webhooks/test-wait";
import { accountMigrations } from "./account-schema";
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
import type { KeyMode, Permission } from "./api-keys";
import {
  activeKeyCount,
  bumpFamilySpend,
  type FamilyStanding,
  familyChain,
  familyHasCreditLimit,
  familyRefusal,
  familySpend,
  familySpendMismatches,
  familyStanding,
  limitedStandings,
  lineageKeyId,
  MAX_ACTIVE_KEYS,
  MAX_FAMILY_DEPTH,
} from "./key-family";
import type { KeyLimits } from "./key-limits";
import {
  bumpKeySpend,
  type KeyStanding,
  keyLimits,
  keySpendMismatches,
  markMailed,
  type PendingAlert,
  recordCrossings,
  unmailedAlerts,
} from "./key-spend";
import { insertQuote, type QuoteRecord, type QuoteUse, quoteRow, useQuoteRow } from "./quote-rows";
import {
  newSigningSecret,
  prepareRotation,
  type SigningKeyView,
  signingKeyRow,
  signingKeyRows,
  signingSecrets,
  writeRotation,
} from "./signing-key-rows";
import { recordUsage, recordUsageBatch, type UsageNote, type UsageQuery, type UsageRow, usageRows } from "./usage";

export type TenantStatus = "active" | "disabled";

export interface TenantView {
  tenant_id: string;
  name: string;
  status: TenantStatus;
  balance: string;
  created_at: string;
  /** Requests per minute per API key; null follows the deployment's default. */
  rate_limit_per_minute: number | null;
  /** Days outputs and uploads are kept: the default and the most a request may ask (src/retention/days.ts). */
  output_retention_days: number;
}

export type { ApiKeyRecord } from "./api-key-rows";
export type { SigningKeyView } from "./signing-key-rows";

export interface GrantView {
  grant_id: string;
  amount: string;
  source: string;
  created_at: string;
}

/** The caller's rate-limit window, reported in `X-RateLimit-*` headers. */
export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
}

/** What an API key stands for, as the Worker caches it (src/accounts/key-cache.ts). */
export type KeyResolution =
  | {
      ok: true;
      tenant_id: string;
      key_id: string;
      permissions: Permission[];
      /** The tenant's own limit in requests per minute per key; null follows the deployment's. */
      rate_limit_per_minute: number | null;
      /** Ms since the epoch when a rotated key stops working (checked on every request, cached or not). */
      expires_at?: number | null;
      /** The tenant's content review policy (src/safety/policy.ts), cached with the key. */
      safety_policy?: SafetyPolicy;
      /** The key's limits (src/accounts/key-limits.ts), cached with it: allowlists apply without a round trip. */
      limits?: KeyLimits | null;
      /** The key or a key that made it has a credit limit: every charge of the key is held before it is spent. */
      held?: boolean;
      /** The tenant's retention in days, cached with the key. */
      output_retention_days?: number;
    }
  /** `key_id`: a known key refused (revoked, disabled, expired), so that enabling it can drop the cached refusal. */
  | { ok: false; code: "invalid_api_key" | "tenant_disabled"; key_id?: string };

/**
 * One per tenant (named by tenant id). Holds the tenant row, its API keys (hashes only),
 * its credit ledger and its callback signing keys. Schema: docs/storage/account-object.md.
 */
export class AccountObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /** OAuth grants of the tenant's members (src/oauth/grant-store.ts). */
  private readonly oauth: OAuthGrantStore;
  /** The alarm as last set (null: none), read at start. */
  private alarmAt: number | null = null;
  /** Spend alerts whose mail this instance is sending (src/accounts/key-spend.ts). */
  private readonly mailing = new Set<string>();
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.oauth = new OAuthGrantStore(ctx.storage);
    void ctx.blockConcurrencyWhile(async () => {
      await migrate(ctx.storage, accountMigrations(env));
      this.alarmAt = await ctx.storage.getAlarm();
    });
  }

  private tenantRow() {
    const row = this.sql
      .exec<{
        tenant_id: string;
        name: string;
        status: TenantStatus;
        created_at: string;
        rate_limit_per_minute: number | null;
        output_retention_days: number | null;
      }>("SELECT tenant_id, name, status, created_at, rate_limit_per_minute, output_retention_days FROM tenant LIMIT 1")
      .toArray()[0];
    return row && { ...row, output_retention_days: tenantRetentionDays(row.output_retention_days) };
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

  /** Creates the tenant (once) with an optional opening grant and its first owner, in one write. */
  create(input: {
    tenant_id: string;
    name: string;
    credits?: string;
    source?: string;
    owner?: { user_id: string; email: string };
    audit?: AuditInput;
  }): TenantView {
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
      // The operator vouches for the first owner: active at once.
      if (input.owner) insertMember(this.sql, { ...input.owner, role: "owner", status: "active", invited_by: null }, now);
      if (input.audit) appendAudit(this.sql, input.audit, now);
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

  /**
   * Stores a new key, made by `parent_key_id` when a managing key made it (the new key joins its
   * family). Refused, in the same synchronous method as the count, at MAX_ACTIVE_KEYS keys, or
   * below MAX_FAMILY_DEPTH generations of keys made by keys.
   */
  addApiKey(input: NewApiKey, audit?: AuditInput, parentKeyId?: string): ApiKeyRecord | KeyIssueRefusal | null {
    if (!this.tenantRow()) return null;
    const now = new Date().toISOString();
    if (activeKeyCount(this.sql, now) >= MAX_ACTIVE_KEYS) return { ok: false, code: "too_many_keys", max: MAX_ACTIVE_KEYS };
    const ancestors = parentKeyId ? familyChain(this.sql, parentKeyId) : [];
    if (ancestors.length > MAX_FAMILY_DEPTH) return { ok: false, code: "family_too_deep", max: MAX_FAMILY_DEPTH };
    this.ctx.storage.transactionSync(() => {
      insertApiKey(this.sql, { ...input, ancestors }, now);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return apiKeyRow(this.sql, input.key_id);
  }

  apiKey(keyId: string): ApiKeyRecord | null {
    return apiKeyRow(this.sql, keyId);
  }

  /** The tenant's keys, newest first (the console's list). */
  apiKeys(): ApiKeyRecord[] {
    return apiKeyRows(this.sql);
  }

  /** One page of the tenant's keys, newest first (`GET /v1/keys`). */
  apiKeyPage(q: Parameters<typeof apiKeyPage>[1]): ReturnType<typeof apiKeyPage> {
    return apiKeyPage(this.sql, q);
  }

  /** Renames, re-limits, disables or enables a key, with its audit entry, in one write. */
  updateApiKey(keyId: string, change: KeyChange, audit?: AuditInput): ApiKeyRecord | null {
    if (!this.apiKey(keyId)) return null;
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      updateApiKey(this.sql, keyId, change);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return this.apiKey(keyId);
  }

  /**
   * A key's limits and what its family (the key and the keys it made) spent and holds in its
   * current period; `remaining` is the least any limit of its chain leaves (null: no such key).
   */
  keyStanding(keyId: string): KeyStanding | null {
    if (!this.apiKey(keyId)) return null;
    return this.standingOf(keyId, Date.now());
  }

  /** The standing of several keys at once (the console's list). */
  keyStandings(keyIds: string[]): Record<string, KeyStanding> {
    const now = Date.now();
    return Object.fromEntries(keyIds.map((id) => [id, this.standingOf(id, now)]));
  }

  private standingOf(keyId: string, nowMs: number): KeyStanding {
    const chain = familyChain(this.sql, keyId);
    const own = familyStanding(this.sql, chain[0] ?? keyId, nowMs, keyLimits(this.sql, keyId));
    let remaining = own.remaining;
    for (const s of limitedStandings(this.sql, chain.slice(1), nowMs)) {
      if (s.remaining !== null && (remaining === null || dec(s.remaining).lt(remaining))) remaining = s.remaining;
    }
    return { limits: own.limits, window: own.window, spend: own.spend, remaining };
  }

  revokeApiKey(keyId: string, audit?: AuditInput): ApiKeyRecord | null {
    const key = this.apiKey(keyId);
    if (!key) return null;
    if (key.status !== "revoked") {
      const now = new Date().toISOString();
      this.ctx.storage.transactionSync(() => {
        this.sql.exec("UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE key_id = ?", now, keyId);
        if (audit) appendAudit(this.sql, audit, now);
      });
    }
    return this.apiKey(keyId);
  }

  /**
   * Issues `next` in place of `keyId` (same name, permissions, mode and region) and ends the old
   * key at `now + grace_ms`, in one write. The new key's pointers are written before this call, so
   * a crash between leaves an unknown key, never a rotation half made.
   */
  rotateApiKey(
    keyId: string,
    next: { key_id: string; key_hash: string; prefix: string; region: string; mode: KeyMode },
    opts: { grace_ms: number; now_ms: number; created_by: string | null },
    audit?: AuditInput,
  ): { ok: true; old: ApiKeyRecord; key: ApiKeyRecord } | { ok: false; code: "not_found" | ApiKeyRecord["status"] | "rotated" } {
    const old = apiKeyRow(this.sql, keyId, opts.now_ms);
    if (!old || !this.tenantRow()) return { ok: false, code: "not_found" };
    if (old.status !== "active") return { ok: false, code: old.status };
    if (old.replaced_by !== null) return { ok: false, code: "rotated" };
    if (old.region !== next.region || old.mode !== next.mode) return { ok: false, code: "not_found" };
    const now = new Date(opts.now_ms).toISOString();
    const expiresAt = new Date(opts.now_ms + opts.grace_ms).toISOString();
    // The new key continues the old one's family: its lineage (so its spend in the period, and
    // that of the keys the old one made, still count against the limit) and its ancestors.
    const [lineage, ...ancestors] = familyChain(this.sql, keyId);
    this.ctx.storage.transactionSync(() => {
      insertApiKey(
        this.sql,
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
      this.sql.exec("UPDATE api_keys SET expires_at = ?, replaced_by = ? WHERE key_id = ?", expiresAt, next.key_id, keyId);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return {
      ok: true,
      old: apiKeyRow(this.sql, keyId, opts.now_ms) as ApiKeyRecord,
      key: apiKeyRow(this.sql, next.key_id, opts.now_ms) as ApiKeyRecord,
    };
  }

  /** A key was used (reported at most once a minute per key by each isolate). */
  touchApiKey(keyId: string, at: string): void {
    touchApiKey(this.sql, keyId, at);
  }

  setRateLimit(perMinute: number | null): TenantView | null {
    if (!this.tenantRow()) return null;
    this.sql.exec("UPDATE tenant SET rate_limit_per_minute = ?, updated_at = ?", perMinute, new Date().toISOString());
    return this.view();
  }

  /**
   * What a key resolves to: key active and not expired, hash equal (constant time), tenant
   * enabled. Read fresh here; the Worker caches the answer for a bounded time
   * (src/accounts/key-cache.ts) and checks `expires_at` itself on every request.
   */
  resolveKey(keyId: string, keyHash: string): KeyResolution {
    const row = this.sql
      .exec<{ key_hash: string; permissions: string; status: string; expires_at: string | null; limits: string | null }>(
        "SELECT key_hash, permissions, status, expires_at, limits FROM api_keys WHERE key_id = ?",
        keyId,
      )
      .toArray()[0];
    const tenant = this.tenantRow();
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
      safety_policy: readSafetyPolicy(this.sql),
      limits: row.limits ? (JSON.parse(row.limits) as KeyLimits) : null,
      held: familyHasCreditLimit(this.sql, keyId),
      output_retention_days: tenant.output_retention_days,
    };
  }

  /** Sets how many days the tenant's outputs and uploads are kept, with its audit entry, in one write. */
  setRetention(days: number, audit?: AuditInput): TenantView | null {
    if (!this.tenantRow()) return null;
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("UPDATE tenant SET output_retention_days = ?, updated_at = ?", days, now);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return this.view();
  }

  /** An upload's end: this object's alarm deletes it then (src/retention/upload-expiry.ts). */
  noteUploadExpiry(artifactId: string, expiresAtMs: number): void {
    noteUploadExpiry(this.sql, artifactId, expiresAtMs);
    this.wakeAt(expiresAtMs);
  }

  /** The tenant's content review policy (the default when the operator set none); null without a tenant. */
  safetyPolicy(): SafetyPolicy | null {
    return this.tenantRow() ? readSafetyPolicy(this.sql) : null;
  }

  /** Replaces the tenant's content review policy, with its audit entry, in one write. */
  setSafetyPolicy(policy: SafetyPolicy, audit?: AuditInput): SafetyPolicy | null {
    if (!this.tenantRow()) return null;
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      writeSafetyPolicy(this.sql, policy, now);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return readSafetyPolicy(this.sql);
  }

  /** Replaces a key's permissions (effective everywhere within the key cache's bound). */
  setKeyPermissions(keyId: string, permissions: Permission[]): ApiKeyRecord | null {
    if (!this.apiKey(keyId)) return null;
    this.sql.exec("UPDATE api_keys SET permissions = ? WHERE key_id = ?", JSON.stringify(permissions), keyId);
    return this.apiKey(keyId);
  }

  async createSigningKey(id: string, audit?: AuditInput): Promise<{ id: string; secret: string; created_at: string } | null> {
    if (!this.tenantRow()) return null;
    const secret = newSigningSecret();
    const sealed = await seal(this.env.STORAGE_ENCRYPTION_KEY, secret, id);
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "INSERT INTO signing_keys (id, secret_sealed, status, created_at) VALUES (?, ?, 'active', ?)",
        id,
        sealed,
        now,
      );
      if (audit) appendAudit(this.sql, audit, now);
    });
    return { id, secret, created_at: now };
  }

  /**
   * A new secret for an active key; the current one keeps signing beside it for `overlap_ms`
   * (0: stops at once). A rotation during an overlap ends that overlap: only two secrets sign.
   */
  async rotateSigningKey(
    id: string,
    overlapMs: number,
    audit?: AuditInput,
  ): Promise<
    | { ok: true; key: SigningKeyView & { secret: string } }
    | { ok: false; code: "callback_signing_key_not_found" | "callback_signing_key_inactive" }
  > {
    const before = this.signingKeyState(id);
    if (!before) return { ok: false, code: "callback_signing_key_not_found" };
    if (before.status !== "active") return { ok: false, code: "callback_signing_key_inactive" };
    const { secret, sealed } = await prepareRotation(this.env.STORAGE_ENCRYPTION_KEY, id);
    // Sealing awaited: the key may have been retired meanwhile.
    if (this.signingKeyState(id)?.status !== "active") return { ok: false, code: "callback_signing_key_inactive" };
    const nowMs = Date.now();
    const now = new Date(nowMs).toISOString();
    this.ctx.storage.transactionSync(() => {
      writeRotation(this.sql, id, sealed, now, overlapMs > 0 ? new Date(nowMs + overlapMs).toISOString() : null);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return { ok: true, key: { ...(this.signingKeyState(id) as SigningKeyView), secret } };
  }

  retireSigningKey(id: string, audit?: AuditInput): SigningKeyView | null {
    const key = this.signingKeyState(id);
    if (!key) return null;
    if (key.status === "active") {
      const now = new Date().toISOString();
      this.ctx.storage.transactionSync(() => {
        this.sql.exec("UPDATE signing_keys SET status = 'retired', retired_at = ? WHERE id = ?", now, id);
        if (audit) appendAudit(this.sql, audit, now);
      });
    }
    return this.signingKeyState(id);
  }

  /** A signing key's state, without its secret (admission checks this). */
  signingKeyState(id: string): SigningKeyView | null {
    return signingKeyRow(this.sql, id);
  }

  /** The tenant's signing keys, newest first, without secrets. */
  signingKeys(): SigningKeyView[] {
    return signingKeyRows(this.sql);
  }

  /**
   * The secrets leave the object, unsealed, only to sign deliveries: `secret` is the current one,
   * `secrets` adds the previous one while a rotation's overlap runs.
   */
  async signingKey(id: string): Promise<(SigningKeyView & { secret: string; secrets: string[] }) | null> {
    const key = await signingSecrets(this.sql, this.env.STORAGE_ENCRYPTION_KEY, id);
    return key ? { ...key, secret: key.secrets[0] as string } : null;
  }

  // ------------------------------------------------------------------ webhook endpoints

  /**
   * A new endpoint with a fresh secret, returned once; refused beyond MAX_ENDPOINTS. The secret
   * is sealed before the write, and the count checked again after that await.
   */
  async createWebhookEndpoint(
    input: NewEndpoint,
    audit?: AuditInput,
  ): Promise<
    { ok: true; endpoint: WebhookEndpointRecord; secret: string } | { ok: false; code: "tenant_not_found" | "too_many" }
  > {
    if (!this.tenantRow()) return { ok: false, code: "tenant_not_found" };
    if (countEndpoints(this.sql, input.mode) >= MAX_ENDPOINTS) return { ok: false, code: "too_many" };
    const secret = newSigningSecret();
    const sealed = await seal(this.env.STORAGE_ENCRYPTION_KEY, secret, input.endpoint_id);
    if (countEndpoints(this.sql, input.mode) >= MAX_ENDPOINTS) return { ok: false, code: "too_many" };
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      insertEndpoint(this.sql, input, sealed, now);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return { ok: true, endpoint: endpointRow(this.sql, input.endpoint_id) as WebhookEndpointRecord, secret };
  }

  /** The tenant's endpoints of `mode` (both when absent; deleted ones left out), oldest first, without their secrets. */
  webhookEndpoints(mode?: KeyMode): WebhookEndpointRecord[] {
    return endpointRows(this.sql, mode);
  }

  webhookEndpoint(endpointId: string): WebhookEndpointRecord | null {
    return endpointRow(this.sql, endpointId);
  }

  updateWebhookEndpoint(endpointId: string, change: EndpointChange, audit?: AuditInput): WebhookEndpointRecord | null {
    if (!endpointRow(this.sql, endpointId)) return null;
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      updateEndpoint(this.sql, endpointId, change, now);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return endpointRow(this.sql, endpointId);
  }

  /** The endpoints of a task's mode subscribed to an event of `type` (enabled or not), as its object fans it out. */
  webhookTargets(type: EventType, mode: KeyMode = "live"): { endpoint_id: string; enabled: boolean }[] {
    return subscribedEndpoints(this.sql, type, mode);
  }

  /** An endpoint's failed deliveries since `since`, oldest first (what a recover sends again), and its pending ones' count. */
  webhookDeliveriesToRecover(endpointId: string, since: string, limit: number): ReturnType<typeof unsucceededSince> {
    return unsucceededSince(this.sql, endpointId, since, limit);
  }

  /** Sends asked for by hand, taken from the endpoint's and the tenant's budgets in one step (src/webhooks/send-budget.ts). */
  takeWebhookSends(g: Omit<Parameters<typeof takeSends>[1], "nowMs">): SendGrant {
    return takeSends(this.sql, { ...g, nowMs: Date.now() });
  }

  settleWebhookSends(grantId: string, used: number, pacedUntil: number | null): void {
    settleSends(this.sql, grantId, used, pacedUntil);
  }

  /** The secrets leave the object, unsealed, only to sign a delivery (null: the endpoint is deleted). */
  webhookEndpointForDelivery(endpointId: string): Promise<{ url: string; enabled: boolean; secrets: string[] } | null> {
    return endpointForDelivery(this.sql, this.env.STORAGE_ENCRYPTION_KEY, endpointId);
  }

  /**
   * A task object reports its deliveries: when made, and when ended. An end moves the endpoint's
   * failure streak; an endpoint whose every delivery has failed for 5 days is disabled here.
   */
  logWebhookDeliveries(rows: LoggedDelivery[]): void {
    const nowMs = Date.now();
    const failing = new Set<string>();
    this.ctx.storage.transactionSync(() => {
      logDeliveries(this.sql, rows);
      for (const r of rows) {
        if (r.endpoint_id === null || r.status === "pending") continue;
        if (noteDeliveryEnd(this.sql, r.endpoint_id, r.status, r.created_at, nowMs)) failing.add(r.endpoint_id);
      }
    });
    for (const endpointId of failing) this.disableFailingEndpoint(endpointId);
  }

  /**
   * Disables an endpoint that failed for 5 days, recording `endpoint.disabled` in the same write
   * (delivered to the endpoints subscribed to it by this object's alarm), and mails the owners.
   */
  private disableFailingEndpoint(endpointId: string): void {
    const now = new Date().toISOString();
    let endpoint: WebhookEndpointRecord | null = null;
    this.ctx.storage.transactionSync(() => {
      disableFailing(this.sql, endpointId, now);
      endpoint = endpointRow(this.sql, endpointId);
      recordEvent(this.sql, "endpoint.disabled", now, { object: "webhook_endpoint", ...endpoint });
      appendAudit(
        this.sql,
        {
          actor: { type: "operator", id: "service" },
          action: "webhook_endpoint.disable",
          target: endpointId,
          details: { reason: "failing" },
        },
        now,
      );
    });
    this.wakeAt(Date.now());
    const disabled = endpoint as WebhookEndpointRecord | null;
    if (!disabled) return;
    const owners = readMembers(this.sql).filter((m) => m.role === "owner" && m.status === "active");
    const tenant = this.tenantRow();
    const send = async () => {
      for (const o of owners) {
        await mailSender(this.env).send({
          to: o.email,
          subject: `Webhook endpoint ${disabled.url} was disabled`,
          text:
            `Every delivery to the webhook endpoint ${disabled.url} (${endpointId}) of ${tenant?.name ?? "your tenant"} ` +
            `has failed since ${disabled.failing_since}, so it was disabled: nothing more is sent to it. ` +
            'Once it answers again, enable it (PATCH {"enabled": true}) and recover what it missed ' +
            "(POST /v1/webhook-endpoints/{endpoint_id}/recover).",
        });
      }
    };
    this.ctx.waitUntil(
      send().catch((e) =>
        console.error(
          JSON.stringify({ level: "error", message: "endpoint disabled mail failed", endpoint_id: endpointId, error: String(e) }),
        ),
      ),
    );
  }

  /** The account's own events (`endpoint.disabled`): fanned out and attempted like a task's, by this object's alarm. */
  private readonly webhooksInFlight = new Set<string>();
  private webhookAccount(): WebhookAccount {
    const sql = this.sql;
    const encryptionKey = this.env.STORAGE_ENCRYPTION_KEY;
    return {
      webhookTargets: (type, mode) => subscribedEndpoints(sql, type, mode),
      webhookEndpointForDelivery: (id) => endpointForDelivery(sql, encryptionKey, id),
      logWebhookDeliveries: (rows) => this.logWebhookDeliveries(rows),
    };
  }

  private async runWebhooks(): Promise<void> {
    const sql = this.sql;
    await runTaskWebhooks({
      task_id: null,
      mode: "live",
      eventMode: (event) => accountEventMode(sql, event.data),
      sql,
      account: this.webhookAccount(),
      policy: policyFrom(this.env),
      data: async () => null,
      now: () => Date.now(),
      inFlight: this.webhooksInFlight,
    });
  }

  /**
   * A `webhook.test` event to one endpoint, attempted now; answers its delivery after the attempt,
   * or as it stands after TEST_ANSWER_WAIT_MS while the attempt goes on (null: no such endpoint).
   * Retried on the schedule like any event if the attempt fails.
   */
  async sendTestWebhook(endpointId: string, audit?: AuditInput): Promise<{ delivery_id: string } | null> {
    const endpoint = endpointRow(this.sql, endpointId);
    if (!endpoint) return null;
    const eventId = newId("evt");
    const deliveryId = await deliveryIdFor(eventId, endpointId);
    const nowMs = Date.now();
    this.ctx.storage.transactionSync(() => {
      recordTestEvent(this.sql, { event_id: eventId, delivery_id: deliveryId, endpoint_id: endpointId }, nowMs, {
        object: "webhook_test",
        endpoint_id: endpointId,
        message: "A test event: this endpoint receives and verifies this tenant's webhooks.",
      });
      if (audit) appendAudit(this.sql, audit, new Date(nowMs).toISOString());
    });
    // A receiver slower than the wait: the attempt goes on, its delivery is logged pending now and follows.
    if (!(await waitAtMost(this.runWebhooks(), TEST_ANSWER_WAIT_MS))) {
      await reportDeliveries({ task_id: null, mode: "live", sql: this.sql, account: this.webhookAccount() });
    }
    const next = nextWebhookAt(this.sql, Date.now());
    if (next != null) this.wakeAt(next);
    return { delivery_id: deliveryId };
  }

  /** One of the account's own deliveries with every attempt. */
  webhookDelivery(deliveryId: string): (DeliveryRow & { attempts: AttemptRow[] }) | null {
    const row = deliveryRow(this.sql, deliveryId);
    return row ? { ...row, attempts: attemptRows(this.sql, deliveryId) } : null;
  }

  /** As a task object's: one more attempt, now (`wait`) or from the alarm. */
  async resendWebhookDelivery(deliveryId: string, wait: boolean): Promise<(DeliveryRow & { attempts: AttemptRow[] }) | null> {
    if (!rearm(this.sql, deliveryId, Date.now())) return null;
    if (wait) await this.runWebhooks();
    else this.wakeAt(Date.now());
    return this.webhookDelivery(deliveryId);
  }

  /** As a task object's: a recover makes a failed delivery due at `atMs`, one still pending is left alone. */
  async requeueWebhookDelivery(deliveryId: string, atMs: number): Promise<RequeueOutcome | null> {
    const outcome = requeue(this.sql, deliveryId, atMs);
    if (outcome !== "queued") return outcome;
    // The log shows it pending at once, so the next recover goes on to the deliveries after it.
    await reportDeliveries({
      task_id: null,
      // A recovered delivery is an endpoint's: the log keeps the endpoint's mode whatever this says.
      mode: "live",
      sql: this.sql,
      account: {
        webhookTargets: () => [],
        webhookEndpointForDelivery: async () => null,
        logWebhookDeliveries: (rows) => this.logWebhookDeliveries(rows),
      },
    });
    this.wakeAt(atMs);
    return outcome;
  }

  webhookDeliveryLog(q: DeliveryLogQuery): { rows: LoggedDelivery[]; has_more: boolean } {
    return deliveryLogPage(this.sql, q);
  }

  webhookDeliveryLogged(deliveryId: string): LoggedDelivery | null {
    return loggedDelivery(this.sql, deliveryId);
  }

  /** A new secret, returned once; the current one keeps signing beside it for `overlapMs` (0: not at all). */
  async rotateWebhookSecret(
    endpointId: string,
    overlapMs: number,
    audit?: AuditInput,
  ): Promise<{ endpoint: WebhookEndpointRecord; secret: string } | null> {
    if (!endpointRow(this.sql, endpointId)) return null;
    const secret = newSigningSecret();
    const sealed = await seal(this.env.STORAGE_ENCRYPTION_KEY, secret, endpointId);
    // Sealing awaited: the endpoint may have been deleted meanwhile.
    if (!endpointRow(this.sql, endpointId)) return null;
    const nowMs = Date.now();
    const now = new Date(nowMs).toISOString();
    this.ctx.storage.transactionSync(() => {
      rotateEndpointSecret(this.sql, endpointId, sealed, now, overlapMs > 0 ? new Date(nowMs + overlapMs).toISOString() : null);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return { endpoint: endpointRow(this.sql, endpointId) as WebhookEndpointRecord, secret };
  }

  /** Deleted for good: nothing more is delivered to it; its row stays for the log. */
  deleteWebhookEndpoint(endpointId: string, audit?: AuditInput): WebhookEndpointRecord | null {
    const endpoint = endpointRow(this.sql, endpointId);
    if (!endpoint) return null;
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      markEndpointDeleted(this.sql, endpointId, now);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return endpoint;
  }

  // ------------------------------------------------------------------ provider keys (src/provider-keys/)

  /** Adds or replaces the tenant's key for a provider (sealed by the service before it comes here). */
  putProviderKey(input: ProviderKeyWrite, audit?: AuditInput): ProviderKeyRecord | null {
    if (!this.tenantRow()) return null;
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      putProviderKey(this.sql, input, now);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return providerKeyRow(this.sql, input.provider);
  }

  /** The mode, models and failover of a stored key, the key kept; null when there is none. */
  updateProviderKeyRouting(
    provider: string,
    change: Pick<ProviderKeyWrite, "mode" | "models" | "failover">,
    audit?: AuditInput,
  ): ProviderKeyRecord | null {
    if (!providerKeyRow(this.sql, provider)) return null;
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      updateProviderKeyRouting(this.sql, provider, change, now);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return providerKeyRow(this.sql, provider);
  }

  providerKeys(): ProviderKeyRecord[] {
    return providerKeyRows(this.sql);
  }

  /** What admission orders a live task's routes by: the keys' modes, models and status, never their secrets. */
  providerKeyPlans(): ProviderKeyPlan[] {
    return keyPlans(this.sql);
  }

  deleteProviderKey(provider: string, audit?: AuditInput): ProviderKeyRecord | null {
    const key = providerKeyRow(this.sql, provider);
    if (!key) return null;
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      deleteProviderKey(this.sql, provider);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return key;
  }

  /** The sealed key a task of this tenant calls the provider with (its last use noted); null when gone or invalid. */
  providerCredential(provider: string): { key_sealed: string; base_url: string | null } | null {
    const found = sealedCredential(this.sql, provider);
    if (found) touchProviderKey(this.sql, provider, Date.now());
    return found;
  }

  /** The provider refused the key on a task: invalid from now on, and the owners are mailed once. */
  providerKeyRejected(provider: string, reason: string): void {
    const now = new Date().toISOString();
    let first = false;
    this.ctx.storage.transactionSync(() => {
      first = markProviderKeyInvalid(this.sql, provider, reason, now);
      if (first) {
        appendAudit(
          this.sql,
          { actor: { type: "operator", id: "service" }, action: "provider_key.invalid", target: provider, details: { reason } },
          now,
        );
      }
    });
    if (!first) return;
    const owners = readMembers(this.sql).filter((m) => m.role === "owner" && m.status === "active");
    const tenant = this.tenantRow();
    this.ctx.waitUntil(
      mailOwnersKeyRejected(this.env, owners, tenant?.name ?? "your tenant", provider, reason).catch((e) =>
        console.error(JSON.stringify({ level: "error", message: "provider key mail failed", provider, error: String(e) })),
      ),
    );
  }

  // ------------------------------------------------------------------ storage destinations

  /** A destination already verified by its probe object; its key pair is sealed here before the write. */
  async createStorageDestination(
    input: NewDestination,
    audit?: AuditInput,
  ): Promise<{ ok: true; destination: DestinationRecord } | { ok: false; code: "tenant_not_found" | "too_many" }> {
    if (!this.tenantRow()) return { ok: false, code: "tenant_not_found" };
    if (countDestinations(this.sql) >= MAX_DESTINATIONS) return { ok: false, code: "too_many" };
    const sealed = await sealCredentials(this.env.STORAGE_ENCRYPTION_KEY, input);
    if (countDestinations(this.sql) >= MAX_DESTINATIONS) return { ok: false, code: "too_many" };
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      insertDestination(this.sql, input, sealed, now);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return { ok: true, destination: destinationRow(this.sql, input.destination_id) as DestinationRecord };
  }

  storageDestinations(): DestinationRecord[] {
    return destinationRows(this.sql);
  }

  /** `id`, or the tenant's default when `id` is null. */
  storageDestination(id: string | null): DestinationRecord | null {
    return id === null ? defaultDestination(this.sql) : destinationRow(this.sql, id);
  }

  setDefaultStorageDestination(id: string, isDefault: boolean, audit?: AuditInput): DestinationRecord | null {
    if (!destinationRow(this.sql, id)) return null;
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      setDefault(this.sql, id, isDefault);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return destinationRow(this.sql, id);
  }

  deleteStorageDestination(id: string, audit?: AuditInput): DestinationRecord | null {
    const found = destinationRow(this.sql, id);
    if (!found) return null;
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      markDestinationDeleted(this.sql, id, now);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return found;
  }

  /** The key pair leaves the object, opened, only for a delivery made by the tenant's own task. */
  openStorageDestination(id: string): Promise<(DestinationRecord & S3Target) | null> {
    return openDestination(this.sql, this.env.STORAGE_ENCRYPTION_KEY, id);
  }

  // ------------------------------------------------------------------ purchases

  /** A hosted checkout was created with a payment provider: remembered until its payment event. */
  recordCheckout(
    c: Pick<CheckoutView, "checkout_id" | "provider" | "credits" | "amount" | "currency" | "created_by">,
    audit?: AuditInput,
  ): boolean {
    if (!this.tenantRow()) return false;
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      insertCheckout(this.sql, c, now);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return true;
  }

  /**
   * A verified "paid" event of a checkout: grants its credits once, in the same write that marks
   * it paid, under the source `<provider>:<checkout id>`. Any repeat grants nothing.
   */
  completeCheckout(
    p: { checkout_id: string; provider: string; event_id: string; amount: number; currency: string },
    audit?: AuditInput,
  ): PaymentOutcome {
    const row = checkoutRow(this.sql, p.checkout_id);
    if (!row || row.provider !== p.provider || !this.tenantRow()) return { outcome: "unknown_checkout" };
    if (row.status === "paid") return { outcome: "already_granted", grant_id: row.grant_id };
    if (row.amount !== p.amount || row.currency !== p.currency.toLowerCase()) {
      return { outcome: "amount_mismatch", expected: { amount: row.amount, currency: row.currency } };
    }
    const now = new Date().toISOString();
    const grant = this.ctx.storage.transactionSync(() => {
      const g = this.insertGrant(row.credits, `${p.provider}:${p.checkout_id}`, now);
      markCheckout(this.sql, p.checkout_id, "paid", now, p.event_id, g.grant_id);
      if (audit) appendAudit(this.sql, { ...audit, details: { ...audit.details, grant_id: g.grant_id } }, now);
      return g;
    });
    return { outcome: "granted", grant_id: grant.grant_id, credits: grant.amount, balance: this.balance() };
  }

  /** A checkout that ended without payment (expired, or its delayed payment failed). */
  closeCheckout(checkoutId: string, provider: string, status: "expired" | "failed", eventId: string): boolean {
    const row = checkoutRow(this.sql, checkoutId);
    if (row?.provider !== provider || row.status !== "open") return false;
    markCheckout(this.sql, checkoutId, status, new Date().toISOString(), eventId, null);
    return true;
  }

  checkouts(limit: number): CheckoutView[] {
    return checkoutRows(this.sql, limit);
  }

  /** The grants, newest first (the console's credits page). */
  grants(limit: number): GrantView[] {
    return this.sql
      .exec<{ grant_id: string; amount: string; source: string; created_at: string }>(
        "SELECT grant_id, amount, source, created_at FROM credit_grants ORDER BY created_at DESC, grant_id DESC LIMIT ?",
        limit,
      )
      .toArray();
  }

  // ------------------------------------------------------------------ members and audit log

  /** A member and the tenant they belong to (null: not a member, or no tenant). */
  member(userId: string): { member: MemberRecord; tenant: TenantView } | null {
    const tenant = this.view();
    const member = tenant ? readMember(this.sql, userId) : null;
    return tenant && member ? { member, tenant } : null;
  }

  members(): MemberRecord[] {
    return readMembers(this.sql);
  }

  /** Adds someone not yet a member; `exists` when they already are (whatever their role). */
  addMember(
    m: { user_id: string; email: string; role: Role; status: MemberStatus; invited_by: string | null },
    audit?: AuditInput,
  ): { ok: true; member: MemberRecord } | { ok: false; code: "no_tenant" | "exists" } {
    if (!this.tenantRow()) return { ok: false, code: "no_tenant" };
    if (readMember(this.sql, m.user_id)) return { ok: false, code: "exists" };
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      insertMember(this.sql, m, now);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return { ok: true, member: readMember(this.sql, m.user_id) as MemberRecord };
  }

  /** An invited member signs in for the first time. */
  activateMember(userId: string): MemberRecord | null {
    const now = new Date().toISOString();
    this.sql.exec(
      "UPDATE members SET status = 'active', joined_at = ?, updated_at = ? WHERE user_id = ? AND status = 'invited'",
      now,
      now,
      userId,
    );
    return readMember(this.sql, userId);
  }

  /** A new role, or (role null) no membership; a tenant always keeps one active owner. */
  changeMember(
    userId: string,
    role: Role | null,
    audit?: AuditInput,
  ): { ok: true; member: MemberRecord } | { ok: false; code: "not_found" | "last_owner" } {
    const current = readMember(this.sql, userId);
    if (!current) return { ok: false, code: "not_found" };
    const losesOwner = current.role === "owner" && current.status === "active" && role !== "owner";
    if (losesOwner && activeOwners(this.sql) <= 1) return { ok: false, code: "last_owner" };
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      if (role === null) {
        this.sql.exec("DELETE FROM members WHERE user_id = ?", userId);
        // Whoever leaves takes their connected apps with them.
        this.oauth.revokeUserGrants(userId, Date.now());
      } else this.sql.exec("UPDATE members SET role = ?, updated_at = ? WHERE user_id = ?", role, now, userId);
      if (audit) appendAudit(this.sql, audit, now);
    });
    return { ok: true, member: role === null ? current : (readMember(this.sql, userId) as MemberRecord) };
  }

  recordAudit(entry: AuditInput): boolean {
    if (!this.tenantRow()) return false;
    appendAudit(this.sql, entry);
    return true;
  }

  audit(q: { limit: number; before?: number }): { entries: AuditEntry[]; has_more: boolean } {
    return readAudit(this.sql, q);
  }

  // ------------------------------------------------------------------ OAuth grants (src/oauth/)

  oauthCreateCode(input: Parameters<OAuthGrantStore["createCode"]>[0], audit: AuditInput) {
    return this.oauth.createCode(input, audit, Date.now());
  }

  oauthRedeemCode(codeHash: string, presented: Parameters<OAuthGrantStore["redeemCode"]>[1], issue: IssueHashes): IssueResult {
    return this.oauth.redeemCode(codeHash, presented, issue, Date.now());
  }

  oauthIssueDeviceGrant(input: Parameters<OAuthGrantStore["issueDeviceGrant"]>[0], issue: IssueHashes): IssueResult {
    return this.oauth.issueDeviceGrant(input, issue, Date.now());
  }

  oauthRefresh(refreshHash: string, presented: Parameters<OAuthGrantStore["refresh"]>[1], issue: IssueHashes): IssueResult {
    return this.oauth.refresh(refreshHash, presented, issue, Date.now());
  }

  oauthResolveAccess(accessHash: string): AccessResolution {
    return this.oauth.resolveAccess(accessHash, Date.now());
  }

  oauthGrants(userId?: string): OAuthGrantView[] {
    return this.oauth.grants(userId);
  }

  oauthRevokeGrant(grantId: string, userId: string | null, audit: AuditInput): OAuthGrantView | null {
    return this.oauth.revokeGrant(grantId, userId, audit, Date.now());
  }

  oauthRevokeToken(hash: string, clientId: string | null): "ok" | "wrong_client" {
    return this.oauth.revokeToken(hash, clientId, Date.now());
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
   * Holds `amount` for a task or a chat call. Idempotent per id: a second call returns the first
   * outcome (renewing its lease when it is still open). Refused (nothing written) when the balance
   * cannot cover it. With `lease_ms` the hold ends by itself unless settled or confirmed in time
   * (see alarm()); with `index` the task is listed at once, in the same write.
   */
  reserve(
    taskId: string,
    amount: string,
    opts: { lease_ms?: number; index?: TaskIndexEntry; key_id?: string } = {},
  ): { ok: true; settlement: Settlement; balance: string } | ReserveRefusal {
    const leaseUntil = opts.lease_ms ? Date.now() + opts.lease_ms : null;
    const existing = this.settlement(taskId);
    if (existing) {
      if (existing.status === "open" && leaseUntil !== null) {
        this.sql.exec(
          "UPDATE reservations SET lease_until = ? WHERE task_id = ? AND lease_until IS NOT NULL",
          leaseUntil,
          taskId,
        );
        this.wakeAt(leaseUntil);
      }
      return { ok: true, settlement: existing, balance: this.balance() };
    }
    const tenant = this.tenantRow();
    if (tenant?.status !== "active") return { ok: false, code: "tenant_disabled", balance: this.balance(), required: amount };
    const balance = dec(this.balance());
    if (balance.lt(amount)) return { ok: false, code: "insufficient_balance", balance: fmt(balance), required: fmt(dec(amount)) };
    // The limits of the key and of every key that made it, read in the same synchronous method as
    // the hold below: nothing can come between. Each lineage without a credit limit costs one read.
    const nowMs = Date.now();
    const chain = opts.key_id ? familyChain(this.sql, opts.key_id) : [];
    const over = familyRefusal(this.sql, chain, amount, nowMs);
    if (over) {
      return {
        ok: false,
        code: "key_spend_limit",
        balance: fmt(balance),
        required: fmt(dec(amount)),
        remaining: over.remaining as string,
        resets_at: over.window.resets_at,
        ...(over.lineage !== chain[0] ? { limited_by: lineageKeyId(this.sql, over.lineage) } : {}),
      };
    }
    // The same instant as the check: the hold counts in the period it was checked against.
    const now = new Date(nowMs).toISOString();
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "INSERT INTO reservations (task_id, amount, status, created_at, lease_until, key_id) VALUES (?, ?, 'open', ?, ?, ?)",
        taskId,
        fmt(dec(amount)),
        now,
        leaseUntil,
        opts.key_id ?? null,
      );
      if (opts.key_id) {
        bumpKeySpend(this.sql, opts.key_id, now, dec(amount), dec(0));
        bumpFamilySpend(this.sql, chain, now, dec(amount), dec(0));
      }
      const t = this.totals();
      this.setTotals({ ...t, reserved: fmt(dec(t.reserved).plus(amount)) });
      if (opts.index) this.insertIndex(opts.index, false);
    });
    if (leaseUntil !== null) this.wakeAt(leaseUntil);
    return { ok: true, settlement: this.settlement(taskId) as Settlement, balance: this.balance() };
  }

  /** The earliest alarm wins; the alarm looks at every lease due and sets the next one. */
  private wakeAt(at: number): void {
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.alarmAt = at;
    void this.ctx.storage.setAlarm(at);
  }

  /**
   * Leases that ran out. A task's hold is kept when its task object holds it (it committed: the
   * lease only covered admission) or is still admitting with it; otherwise, like a chat call's
   * whose isolate died before settling, it is given back, and a task that never came to be is
   * unlisted. docs/storage/account-object.md describes the leases.
   */
  override async alarm(): Promise<void> {
    this.alarmAt = null;
    const now = Date.now();
    const due = this.sql
      .exec<{ task_id: string }>(
        "SELECT task_id FROM reservations WHERE status = 'open' AND lease_until IS NOT NULL AND lease_until <= ?",
        now,
      )
      .toArray();
    for (const { task_id: id } of due) {
      if (!id.startsWith("task_")) {
        this.release(id);
        continue;
      }
      const taskId = id.split(":")[0] as string;
      let verdict: Awaited<ReturnType<TaskObject["holdsReservation"]>>;
      try {
        const stub = this.env.TASKS.get(this.env.TASKS.idFromString(taskId.slice("task_".length)));
        verdict = await stub.holdsReservation(id);
      } catch {
        // The task object cannot answer now: ask again later rather than guess.
        this.sql.exec("UPDATE reservations SET lease_until = ? WHERE task_id = ?", now + LEASE_RETRY_MS, id);
        continue;
      }
      if (verdict.holds === "yes") this.sql.exec("UPDATE reservations SET lease_until = NULL WHERE task_id = ?", id);
      else if (verdict.holds === "admitting")
        this.sql.exec("UPDATE reservations SET lease_until = ? WHERE task_id = ?", now + LEASE_RETRY_MS, id);
      else {
        this.release(id);
        if (!verdict.committed) this.sql.exec("DELETE FROM tasks WHERE task_id = ?", taskId);
      }
    }
    await this.runWebhooks();
    await expireUploads(this.sql, this.env.ARTIFACTS, Date.now());
    const leases = this.sql
      .exec<{ at: number | null }>(
        "SELECT MIN(lease_until) AS at FROM reservations WHERE status = 'open' AND lease_until IS NOT NULL",
      )
      .toArray()[0]?.at;
    const hooks = nextWebhookAt(this.sql, Date.now());
    const next = [leases, hooks, nextUploadExpiry(this.sql)].filter((x) => x != null) as number[];
    if (next.length > 0) this.wakeAt(Math.min(...next));
  }

  /**
   * Keeps `actual` (at most the reservation) and gives back the rest. Idempotent per task. With
   * `usage`, the settlement is recorded for the usage report in the same write.
   */
  capture(taskId: string, actual: string, usage?: UsageNote): Settlement | null {
    const r = this.settlement(taskId);
    if (r?.status !== "open") return r;
    const kept = dec(actual).gt(r.reserved) ? dec(r.reserved) : dec(actual);
    const at = new Date().toISOString();
    const alerts = this.alertsOf(taskId, at);
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "UPDATE reservations SET status = 'captured', captured_amount = ?, settled_at = ?, lease_until = NULL WHERE task_id = ?",
        fmt(kept),
        at,
        taskId,
      );
      const t = this.totals();
      this.setTotals({ ...t, captured: fmt(dec(t.captured).plus(kept)), reserved: fmt(dec(t.reserved).minus(r.reserved)) });
      if (usage) recordUsage(this.sql, taskId, at, kept, usage);
      this.bumpKeyOf(taskId, dec(r.reserved).neg(), kept);
      alerts?.record();
    });
    if (alerts) this.mailAlerts();
    return this.settlement(taskId);
  }

  /**
   * For a reservation made by a key with a credit limit: what records, in the settling write
   * itself (after its update), the alert thresholds the settlement crosses. Null otherwise.
   */
  /** Moves the figures of the key that made a reservation, if one did (inside the caller's write). */
  private bumpKeyOf(reservationId: string, reserved: Decimal, captured: Decimal): void {
    const row = this.sql
      .exec<{ key_id: string | null; created_at: string }>(
        "SELECT key_id, created_at FROM reservations WHERE task_id = ?",
        reservationId,
      )
      .toArray()[0];
    if (!row?.key_id) return;
    bumpKeySpend(this.sql, row.key_id, row.created_at, reserved, captured);
    bumpFamilySpend(this.sql, familyChain(this.sql, row.key_id), row.created_at, reserved, captured);
  }

  private alertsOf(reservationId: string, at: string): { record(): void } | null {
    const row = this.sql
      .exec<{ key_id: string | null }>("SELECT key_id FROM reservations WHERE task_id = ?", reservationId)
      .toArray()[0];
    return row?.key_id ? this.alertsFor(row.key_id, at) : null;
  }

  /** The alerts a settlement of the key's may raise: one per limited lineage of its chain, each on its family's spend. */
  private alertsFor(keyId: string, at: string): { record(): void } | null {
    const recorders = limitedStandings(this.sql, familyChain(this.sql, keyId), Date.parse(at)).map((s) =>
      this.alertsOfLineage(s, at),
    );
    if (recorders.length === 0) return null;
    return {
      record: () => {
        for (const r of recorders) r.record();
      },
    };
  }

  private alertsOfLineage(before: FamilyStanding, at: string): { record(): void } {
    const limits = before.limits as KeyLimits;
    return {
      record: () => {
        const keyId = lineageKeyId(this.sql, before.lineage);
        const after = familySpend(this.sql, before.lineage, before.window);
        for (const threshold of recordCrossings(
          this.sql,
          before.lineage,
          limits,
          before.window,
          before.spend.spent,
          after.spent,
          at,
        )) {
          appendAudit(
            this.sql,
            {
              actor: { type: "api_key", id: keyId },
              action: "api_key.spend_alert",
              target: keyId,
              details: { threshold, limit_credits: limits.credits, period: limits.period, spent_credits: after.spent },
            },
            at,
          );
          recordEvent(this.sql, "key.spend_threshold", at, {
            object: "key_spend_threshold",
            key_id: keyId,
            threshold,
            limit_credits: limits.credits,
            period: limits.period,
            period_started_at: before.window.started_at,
            period_resets_at: before.window.resets_at,
            spent_credits: after.spent,
          });
          this.eventRecorded = true;
        }
      },
    };
  }

  /** Set by a write that recorded a webhook event; the alarm that delivers it is set after the write. */
  private eventRecorded = false;

  /**
   * Mails the alerts not mailed yet to the tenant's active owners, after the write that recorded
   * them (so never twice for one crossing). One that cannot be sent now is tried again after the
   * next settlement that records an alert.
   */
  private mailAlerts(): void {
    if (this.eventRecorded) {
      this.eventRecorded = false;
      this.wakeAt(Date.now());
    }
    // An alert whose mail is under way (from an earlier settlement) is not sent again beside it.
    const alertId = (a: PendingAlert) => `${a.key_id} ${a.period_start} ${a.threshold}`;
    const pending = unmailedAlerts(this.sql).filter((a) => !this.mailing.has(alertId(a)));
    if (pending.length === 0) return;
    for (const a of pending) this.mailing.add(alertId(a));
    const tenant = this.tenantRow();
    const owners = readMembers(this.sql).filter((m) => m.role === "owner" && m.status === "active");
    const send = async () => {
      for (const a of pending) {
        // Alerts are recorded per lineage: the key that now stands for it is named.
        const key = apiKeyRow(this.sql, lineageKeyId(this.sql, a.key_id));
        const name = key?.name ? `"${key.name}" (${a.key_id})` : a.key_id;
        const limits = key?.limits;
        const per = limits?.period === "total" ? "in total" : `per ${limits?.period ?? "period"}`;
        try {
          for (const o of owners) {
            await mailSender(this.env).send({
              to: o.email,
              subject: `API key ${key?.name ?? a.key_id} reached ${a.threshold}% of its credit limit`,
              text:
                `The API key ${name} of ${tenant?.name ?? "your tenant"} has spent ${a.threshold}% of its limit of ` +
                `${limits?.credits ?? "?"} credits ${per}` +
                (a.period_start ? ` (period started ${a.period_start}).` : ".") +
                (a.threshold >= 100
                  ? " Requests over the limit are refused until the period resets or the limit is raised."
                  : ""),
            });
          }
          markMailed(this.sql, a, new Date().toISOString());
        } catch (e) {
          console.error(
            JSON.stringify({ level: "error", message: "spend alert mail failed", key_id: a.key_id, error: String(e) }),
          );
          return;
        }
      }
    };
    this.ctx.waitUntil(
      send().finally(() => {
        for (const a of pending) this.mailing.delete(alertId(a));
      }),
    );
  }

  /**
   * Charges `amount` for a call that held nothing (a chat call admitted on a balance known to
   * cover it), as far as the balance goes, in one write: recorded as a reservation captured at
   * once, so the ledger's rows and totals read as for any other charge. Idempotent per id.
   */
  charge(id: string, amount: string, usage?: UsageNote, keyId?: string): { settlement: Settlement; balance: string } {
    const { settlements, balance } = this.chargeBatch([
      { id, amount, ...(usage ? { usage } : {}), ...(keyId ? { key_id: keyId } : {}) },
    ]);
    return { settlement: settlements[0] as Settlement, balance };
  }

  /**
   * Several `charge`s in one write (chat calls settled together by one isolate): each as far as
   * the balance left by the ones before it goes (and, for a key with a credit limit, as far as
   * that limit goes), each idempotent per id. The totals are read and written once for the whole
   * batch, and each key's spend once per key. Answers each charge's settlement, in order, and the
   * balance.
   */
  chargeBatch(items: { id: string; amount: string; usage?: UsageNote; key_id?: string }[]): {
    settlements: Settlement[];
    balance: string;
  } {
    const nowMs = Date.now();
    const at = new Date(nowMs).toISOString();
    const settlements: Settlement[] = [];
    // Per key of the batch: its chain, what it charged and its alerts to record; per limited
    // lineage of those chains: what its limit leaves, shared by every key of its family.
    const keys = new Map<string, { chain: string[]; alerts: { record(): void } | null; spent: Decimal }>();
    const left = new Map<string, Decimal>();
    const keyOf = (keyId: string) => {
      let k = keys.get(keyId);
      if (!k) {
        const chain = familyChain(this.sql, keyId);
        for (const s of limitedStandings(this.sql, chain, nowMs))
          if (!left.has(s.lineage) && s.remaining !== null) left.set(s.lineage, dec(s.remaining));
        k = { chain, alerts: this.alertsFor(keyId, at), spent: dec(0) };
        keys.set(keyId, k);
      }
      return k;
    };
    const usages: { id: string; credits: Decimal; note: UsageNote }[] = [];
    this.ctx.storage.transactionSync(() => {
      const t = this.totals();
      let balance = dec(t.granted).minus(t.captured).minus(t.reserved);
      let captured = dec(t.captured);
      for (const { id, amount, usage, key_id: keyId } of items) {
        let kept = balance.lte(0) ? dec(0) : balance.lt(amount) ? balance : dec(amount);
        const key = keyId ? keyOf(keyId) : null;
        for (const lineage of key?.chain ?? []) {
          const room = left.get(lineage);
          if (room && kept.gt(room)) kept = room;
        }
        const keptText = fmt(kept);
        const written = this.sql.exec(
          "INSERT INTO reservations (task_id, amount, status, captured_amount, created_at, settled_at, key_id) VALUES (?, ?, 'captured', ?, ?, ?, ?) ON CONFLICT (task_id) DO NOTHING",
          id,
          keptText,
          keptText,
          at,
          at,
          keyId ?? null,
        ).rowsWritten;
        if (written === 0) {
          // Charged before (a repeated batch): its first outcome stands.
          settlements.push(this.settlement(id) as Settlement);
          continue;
        }
        balance = balance.minus(kept);
        captured = captured.plus(kept);
        if (key) {
          key.spent = key.spent.plus(kept);
          for (const lineage of key.chain) {
            const room = left.get(lineage);
            if (room) left.set(lineage, room.minus(kept));
          }
        }
        if (usage) usages.push({ id, credits: kept, note: usage });
        settlements.push({ task_id: id, status: "captured", reserved: keptText, captured: keptText, refunded: "0" });
      }
      this.setTotals({ ...t, captured: fmt(captured) });
      recordUsageBatch(this.sql, at, usages);
      for (const [keyId, key] of keys) {
        if (key.spent.gt(0)) {
          bumpKeySpend(this.sql, keyId, at, dec(0), key.spent);
          bumpFamilySpend(this.sql, key.chain, at, dec(0), key.spent);
        }
      }
      // After every key's figures moved: a family's alert reads all of them.
      for (const key of keys.values()) key.alerts?.record();
    });
    if ([...keys.values()].some((k) => k.alerts)) this.mailAlerts();
    return { settlements, balance: this.balance() };
  }

  /**
   * Gives the whole reservation back. Idempotent per task; a settled reservation is left as it is.
   * With `usage` (a task that failed or was canceled), the settlement is recorded for the report.
   */
  release(taskId: string, usage?: UsageNote): Settlement | null {
    const r = this.settlement(taskId);
    if (r?.status !== "open") return r;
    const at = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "UPDATE reservations SET status = 'released', settled_at = ?, lease_until = NULL WHERE task_id = ?",
        at,
        taskId,
      );
      const t = this.totals();
      this.setTotals({ ...t, reserved: fmt(dec(t.reserved).minus(r.reserved)) });
      if (usage) recordUsage(this.sql, taskId, at, dec(0), usage);
      this.bumpKeyOf(taskId, dec(r.reserved).neg(), dec(0));
    });
    return this.settlement(taskId);
  }

  /** Stores a quote (docs/storage/account-object.md, "Quotes"); sweeps those long expired. */
  saveQuote(quote: QuoteRecord): QuoteRecord {
    insertQuote(this.sql, quote, Date.now());
    return quote;
  }

  /** A quote of this tenant, expired or not; null when unknown or swept. */
  quote(quoteId: string): QuoteRecord | null {
    return quoteRow(this.sql, quoteId);
  }

  /** Marks a quote used by one task object (named by its Idempotency-Key); atomic per tenant. */
  useQuote(quoteId: string, mode: KeyMode, by: string): QuoteUse {
    return useQuoteRow(this.sql, quoteId, mode, by, Date.now());
  }

  /** What a new request can hold now, and what open holds keep (`GET /v1/balance`); null without a tenant. */
  balanceView(): { available: string; reserved: string } | null {
    if (!this.tenantRow()) return null;
    return { available: this.balance(), reserved: fmt(dec(this.totals().reserved)) };
  }

  /** The settlements of one mode in [from, to), summed per group in one query (`GET /v1/usage`, the console). */
  usage(q: UsageQuery): UsageRow[] {
    return usageRows(this.sql, q);
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
      /** Keys (`key_spend`) and families (`key_family_spend`) whose running figures differ from their reservation rows: none, always. */
      key_spend_mismatches: [...keySpendMismatches(this.sql), ...familySpendMismatches(this.sql)],
    };
  }

  // ------------------------------------------------------------------ task index

  indexTask(entry: TaskIndexEntry): void {
    this.insertIndex(entry, true);
  }

  private insertIndex(entry: TaskIndexEntry, update: boolean): void {
    this.sql.exec(
      `INSERT INTO tasks (task_id, created_at, status, capability, model, mode, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (task_id) DO ${update ? "UPDATE SET status = excluded.status, updated_at = excluded.updated_at" : "NOTHING"}`,
      entry.task_id,
      entry.created_at,
      entry.status,
      entry.capability,
      entry.model,
      entry.mode ?? "live",
      new Date().toISOString(),
    );
  }

  listTasks(q: {
    status?: string;
    capability?: string;
    /** Only the tasks of keys of this mode (an API key sees its own mode's tasks); all when absent. */
    mode?: KeyMode;
    created_after?: string;
    created_before?: string;
    limit: number;
    after?: { created_at: string; task_id: string };
  }): { task_ids: string[]; has_more: boolean; last?: { created_at: string; task_id: string } } {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (q.mode) where.push("mode = ?") && args.push(q.mode);
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
}

export interface TaskIndexEntry {
  task_id: string;
  created_at: string;
  status: string;
  capability: string;
  model: string;
  /** The creating key's mode (live when absent: entries written before modes were listed apart). */
  mode?: KeyMode;
}

/** A hold refused: by the tenant's balance, its status, or the acting key's credit limit. */
export type ReserveRefusal =
  | { ok: false; code: "insufficient_balance" | "tenant_disabled"; balance: string; required: string }
  | {
      ok: false;
      code: "key_spend_limit";
      balance: string;
      required: string;
      /** What the key may still hold in its period. */
      remaining: string;
      /** When its period resets; null for a `total` limit. */
      resets_at: string | null;
      /** The key that made this one (or its ancestor) whose limit, over its whole family, refused the hold. */
      limited_by?: string;
    };

/** A new key refused: the tenant holds MAX_ACTIVE_KEYS keys, or the managing key's family is MAX_FAMILY_DEPTH deep. */
export type KeyIssueRefusal = { ok: false; code: "too_many_keys" | "family_too_deep"; max: number };

/** How long an unconfirmed hold waits for its task object when that object cannot answer. */
const LEASE_RETRY_MS = 30_000;

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
