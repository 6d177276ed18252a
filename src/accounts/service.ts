/**
 * Operations on tenants, keys and signing keys that span the directory and the account object.
 * Routes call these; they throw ApiError with the public codes.
 */

import { type AuditBy, audited, createdBy } from "../audit/audited";
import { directoryFor } from "../directory/directory-stub";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { invalidApiKey } from "../errors/common";
import { apiKeyNotFound, tenantNotFound } from "../errors/not-found";
import { generateApiKey, hashApiKey, type KeyMode, type Permission, parseApiKey } from "../keys/api-keys";
import { newId } from "../lib/ids";
import { type Acting, auditFields, authorize } from "../people/principal";
import { rateCounterFor } from "../rate-limits/rate-counter-stub";
import type { RateState } from "../rate-limits/rate-limit";
import { RATE_WINDOW_MS, RateLimiter } from "../rate-limits/rate-limit";
import { getTenantOr404 } from "../tenancy/account-slice";
import { forgetFeatures } from "../tenancy/tenant-features";
import { newTenantId } from "../tenancy/tenant-row";
import { accountFor } from "./account-stub";
import type { KeyIssueRefusal, KeyResolution } from "./api-key-answers";
import type { ApiKeyRecord } from "./api-key-rows";
import { keyPrefix } from "./api-key-rows";
import type { Caller } from "./caller";
import { KeyCache, usable } from "./key-cache";
import type { KeyLimits } from "./key-limits";

export type { Caller } from "./caller";

export async function createTenant(env: Env, input: { name: string; credits?: string; source?: string }) {
  const tenantId = newTenantId();
  return accountFor(env, tenantId).create({ tenant_id: tenantId, ...input });
}

/** The operator API's principal, when a caller names none. */
export const OPERATOR: Acting = { principal: { kind: "operator" } };

/** A console member may act on their own tenant's keys only: theirs is the only tenant they can name. */
export function scopeOf(acting: Acting): string | undefined {
  return acting.principal.kind === "session" ? acting.principal.tenant_id : undefined;
}

/** A new key's secret and the directory pointers that find its tenant, written before its record. */
export async function newKeyPointers(env: Env, tenantId: string, region: string, mode: KeyMode) {
  const apiKey = generateApiKey(region, mode);
  const keyHash = await hashApiKey(apiKey);
  const keyId = newId("key");
  // Pointers first: a key whose pointers exist but whose record does not is simply unknown.
  await directoryFor(env, `api-key-hash:${keyHash}`).put(`api-key-hash:${keyHash}`, `${tenantId} ${keyId}`);
  await directoryFor(env, `api-key:${keyId}`).put(`api-key:${keyId}`, tenantId);
  return { apiKey, keyHash, keyId };
}

export async function issueApiKey(
  env: Env,
  tenantId: string,
  region: string,
  permissions: Permission[],
  mode: KeyMode = "live",
  opts: {
    name?: string | null;
    acting?: Acting;
    limits?: KeyLimits | null;
    /** A managing API key acting (`POST /v1/keys`): the caller checked what it may hand out. */
    by?: AuditBy;
    /** The managing key that makes this one: the new key joins its family (src/accounts/key-family.ts). */
    parent_key_id?: string;
  } = {},
): Promise<{ record: ApiKeyRecord; api_key: string }> {
  const acting = opts.acting ?? OPERATOR;
  if (!opts.by) authorize(acting.principal, tenantId, "keys:manage");
  await getTenantOr404(env, tenantId);
  const { apiKey, keyHash, keyId } = await newKeyPointers(env, tenantId, region, mode);
  const by = opts.by ?? auditFields(acting);
  const record = await accountFor(env, tenantId).addApiKey(
    {
      key_id: keyId,
      key_hash: keyHash,
      region,
      mode,
      permissions,
      name: opts.name ?? null,
      prefix: keyPrefix(apiKey),
      created_by: createdBy(by),
      limits: opts.limits ?? null,
    },
    audited(by, "api_key.create", keyId, { name: opts.name ?? null, mode, permissions, limits: opts.limits ?? null }),
    opts.parent_key_id,
  );
  if (!record) throw tenantNotFound(tenantId);
  if ("ok" in record) throw keyIssueRefused(record);
  return { record, api_key: apiKey };
}

/** 409 `conflict` for a key the tenant may not add now (docs/spend-controls.md, "How many keys"). */
function keyIssueRefused(r: KeyIssueRefusal): ApiError {
  if (r.code === "too_many_keys") {
    return new ApiError("conflict", `This tenant already has ${r.max} active keys, the most it may hold; revoke one first.`, {
      details: { reason: "too_many_keys", max_active_keys: r.max, action: "revoke_unused_keys" },
    });
  }
  return new ApiError(
    "conflict",
    `Keys made by keys may be at most ${r.max} generations deep; make this key from a key higher up.`,
    {
      details: { reason: "family_too_deep", max_depth: r.max, action: "use_a_higher_key" },
    },
  );
}

export async function tenantOfPointer(env: Env, name: string): Promise<string | null> {
  return directoryFor(env, name).get(name);
}

/**
 * The tenant a key belongs to; with `tenantId` (a console member's tenant), a key of another
 * tenant is as unknown as a key that does not exist.
 */
export async function tenantOfKey(env: Env, keyId: string, tenantId?: string): Promise<string> {
  const owner = await tenantOfPointer(env, `api-key:${keyId}`);
  if (!owner || (tenantId !== undefined && owner !== tenantId)) {
    throw apiKeyNotFound(keyId);
  }
  return owner;
}

/** Any member may see the keys of their tenant (never the keys themselves); changing them needs `keys:manage`. */
export async function listApiKeys(env: Env, tenantId: string, acting: Acting = OPERATOR): Promise<ApiKeyRecord[]> {
  const scope = scopeOf(acting);
  if (scope !== undefined && scope !== tenantId) throw new ApiError("forbidden", "This tenant is not yours.");
  return accountFor(env, tenantId).apiKeys();
}

export async function revokeApiKey(
  env: Env,
  keyId: string,
  acting: Acting = OPERATOR,
  managing?: { tenant_id: string; by: AuditBy },
): Promise<ApiKeyRecord> {
  const tenantId = await tenantOfKey(env, keyId, managing?.tenant_id ?? scopeOf(acting));
  if (!managing) authorize(acting.principal, tenantId, "keys:manage");
  const by = managing?.by ?? auditFields(acting);
  const record = await accountFor(env, tenantId).revokeApiKey(keyId, audited(by, "api_key.revoke", keyId));
  if (!record) throw apiKeyNotFound(keyId);
  keys.forgetKey(keyId);
  return record;
}

export async function setKeyPermissions(env: Env, keyId: string, permissions: Permission[]): Promise<ApiKeyRecord> {
  const tenantId = await tenantOfPointer(env, `api-key:${keyId}`);
  const record = tenantId ? await accountFor(env, tenantId).setKeyPermissions(keyId, permissions) : null;
  if (!record) throw apiKeyNotFound(keyId);
  keys.forgetKey(keyId);
  return record;
}

/** This isolate forgets what it cached for a key it just changed; other isolates follow within MAX_AGE_MS. */
export function forgetCachedKey(keyId: string): void {
  keys.forgetKey(keyId);
}

/** This isolate forgets what it cached for a tenant's keys (a policy they carry changed here). */
export function forgetCachedTenant(tenantId: string): void {
  keys.forgetTenant(tenantId);
}

/**
 * The tenant turned a feature on or off here (a provider key, a webhook endpoint, a storage
 * destination): this isolate forgets what it knew of its features at once; other isolates within
 * the key cache's bound (src/tenancy/tenant-features.ts).
 */
export function featuresChanged(tenantId: string): void {
  keys.forgetTenant(tenantId);
  forgetFeatures(tenantId);
}

/** hash → "tenant key_id": immutable once written, so an isolate may keep it. */
const pointerCache = new Map<string, string>();
const POINTER_CACHE_MAX = 10_000;

/** Requests per minute per key when the tenant sets none (RATE_LIMIT_PER_MINUTE; "0" turns it off). */
function defaultRateLimit(env: Env): number {
  let n = defaultLimits.get(env);
  if (n === undefined) {
    const read = Number(env.RATE_LIMIT_PER_MINUTE ?? "600");
    n = Number.isInteger(read) && read >= 0 ? read : 600;
    defaultLimits.set(env, n);
  }
  return n;
}
/** Per environment object: its bindings do not change while the isolate lives. */
const defaultLimits = new WeakMap<object, number>();

/** `X-RateLimit-Reset` is seconds until the window resets (no clock skew between client and service). */
export function rateHeaders(rate: RateState): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(rate.limit),
    "X-RateLimit-Remaining": String(rate.remaining),
    "X-RateLimit-Reset": String(rate.reset),
  };
}

const keys = new KeyCache();
const limiter = new RateLimiter();

/**
 * Resolves `Authorization: Bearer sk_<region>_<mode>_<secret>` to a caller. The region is checked
 * before any lookup; what the key stands for comes from the isolate's key cache (at most
 * MAX_AGE_MS old), and the key's rate window from the limiter, so that in the steady state a
 * request meets no Durable Object here.
 */
export async function authenticate(
  env: Env,
  authorization: string | undefined,
  background: (p: Promise<unknown>) => void,
): Promise<Caller> {
  const match = authorization ? /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization) : null;
  const parsed = match ? parseApiKey(match[1] as string) : null;
  if (!match || !parsed) {
    throw new ApiError(
      "unauthorized",
      "Send `Authorization: Bearer <API key>` with a key of the form sk_<region>_<live|test>_<secret>.",
    );
  }
  if (parsed.region !== env.REGION) {
    throw new ApiError(
      "api_key_region_mismatch",
      `This key belongs to region '${parsed.region}', but this endpoint serves region '${env.REGION}'. Call the '${parsed.region}' deployment.`,
      { details: { key_region: parsed.region, endpoint_region: env.REGION } },
    );
  }
  const keyHash = await hashApiKey(match[1] as string);
  const resolved = await keys.resolve(keyHash, () => resolveKey(env, keyHash), background);
  if (!resolved.ok) {
    throw resolved.code === "tenant_disabled"
      ? new ApiError("tenant_disabled", "The tenant of this key is disabled.")
      : invalidApiKey();
  }
  // A rotated key's end is known in advance: it is checked here, so the cache never extends it.
  if (!usable(resolved, Date.now())) throw invalidApiKey();
  noteUse(env, resolved.tenant_id, resolved.key_id, background);
  const rate = await checkRate(env, resolved.key_id, resolved.rate_limit_per_minute, background);
  return {
    tenant_id: resolved.tenant_id,
    key_id: resolved.key_id,
    permissions: resolved.permissions,
    region: parsed.region,
    mode: parsed.mode,
    rate,
    ...(resolved.safety_policy ? { safety_policy: resolved.safety_policy } : {}),
    limits: resolved.limits ?? null,
    ...(resolved.held ? { held: true } : {}),
    ...(resolved.output_retention_days !== undefined ? { output_retention_days: resolved.output_retention_days } : {}),
    ...(resolved.features ? { features: resolved.features } : {}),
    ...(resolved.request_log ? { request_log: resolved.request_log } : {}),
  };
}

/**
 * Counts a request against the window of `keyId` (an API key, or an OAuth grant on /mcp) and
 * refuses it with 429 past the limit: the tenant's own, else RATE_LIMIT_PER_MINUTE. Null when
 * no limit applies.
 */
export async function checkRate(
  env: Env,
  keyId: string,
  tenantLimit: number | null | undefined,
  background: (p: Promise<unknown>) => void,
): Promise<RateState | null> {
  const limit = tenantLimit ?? defaultRateLimit(env);
  if (limit <= 0) return null;
  const { allowed, ...state } = await limiter.check(keyId, limit, () => rateCounterFor(env, keyId), background);
  if (!allowed) {
    throw new ApiError("rate_limited", `This key made ${state.limit} requests this minute; retry after ${state.reset} s.`, {
      retryAfter: state.reset,
      headers: rateHeaders(state),
      details: { limit: state.limit, window_seconds: RATE_WINDOW_MS / 1000 },
    });
  }
  return state;
}

/** When this isolate last reported each key's use (ms), so that it reports at most once a minute. */
const lastReported = new Map<string, number>();
const USE_REPORT_MS = 60_000;

/**
 * Keeps `last_used_at` to the minute without a write per request: the first use in a minute is
 * reported after the response (waitUntil), stamped with the minute it fell in.
 */
function noteUse(env: Env, tenantId: string, keyId: string, background: (p: Promise<unknown>) => void): void {
  const now = Date.now();
  const last = lastReported.get(keyId);
  if (last !== undefined && now - last < USE_REPORT_MS) return;
  if (lastReported.size >= 10_000) lastReported.clear();
  lastReported.set(keyId, now);
  const minute = new Date(now - (now % USE_REPORT_MS)).toISOString();
  background(
    accountFor(env, tenantId)
      .touchApiKey(keyId, minute)
      .catch(() => lastReported.delete(keyId)),
  );
}

/** The directory's pointer (immutable, cached for good), then the account's answer. */
async function resolveKey(env: Env, keyHash: string): Promise<KeyResolution> {
  const pointerName = `api-key-hash:${keyHash}`;
  let pointer = pointerCache.get(pointerName) ?? null;
  if (!pointer) {
    pointer = await directoryFor(env, pointerName).get(pointerName);
    if (pointer) {
      if (pointerCache.size >= POINTER_CACHE_MAX) pointerCache.clear();
      pointerCache.set(pointerName, pointer);
    }
  }
  if (!pointer) return { ok: false, code: "invalid_api_key" };
  const [tenantId, keyId] = pointer.split(" ") as [string, string];
  return accountFor(env, tenantId).resolveKey(keyId, keyHash);
}
