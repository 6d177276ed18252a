/**
 * Operations on tenants, keys and signing keys that span the directory and the account object.
 * Routes call these; they throw ApiError with the public codes.
 */
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { newId } from "../lib/ids";
import type { AccountObject, ApiKeyRecord, KeyResolution, RateState } from "./account-object";
import { newTenantId } from "./account-object";
import { generateApiKey, hashApiKey, type KeyMode, type Permission, parseApiKey } from "./api-keys";
import { directoryFor } from "./directory-object";
import { KeyCache } from "./key-cache";
import { rateCounterFor } from "./rate-counter-object";
import { RATE_WINDOW_MS, RateLimiter } from "./rate-limit";

const TENANT_ID = /^ten_[0-9a-z]{26}$/;

export function accountFor(env: Env, tenantId: string): DurableObjectStub<AccountObject> {
  return env.ACCOUNTS.getByName(tenantId);
}

/** The account of a tenant id that came from outside; a malformed id cannot exist, so 404. */
export function tenantAccount(env: Env, tenantId: string): DurableObjectStub<AccountObject> {
  if (!TENANT_ID.test(tenantId)) throw new ApiError("not_found", `Tenant ${tenantId} does not exist.`);
  return accountFor(env, tenantId);
}

export async function createTenant(env: Env, input: { name: string; credits?: string; source?: string }) {
  const tenantId = newTenantId();
  return accountFor(env, tenantId).create({ tenant_id: tenantId, ...input });
}

export async function getTenantOr404(env: Env, tenantId: string) {
  const tenant = await tenantAccount(env, tenantId).get();
  if (!tenant) throw new ApiError("not_found", `Tenant ${tenantId} does not exist.`);
  return tenant;
}

export async function issueApiKey(
  env: Env,
  tenantId: string,
  region: string,
  permissions: Permission[],
  mode: KeyMode = "live",
): Promise<{ record: ApiKeyRecord; api_key: string }> {
  await getTenantOr404(env, tenantId);
  const apiKey = generateApiKey(region, mode);
  const keyHash = await hashApiKey(apiKey);
  const keyId = newId("key");
  // Pointers first: a key whose pointers exist but whose record does not is simply unknown.
  await directoryFor(env, `api-key-hash:${keyHash}`).put(`api-key-hash:${keyHash}`, `${tenantId} ${keyId}`);
  await directoryFor(env, `api-key:${keyId}`).put(`api-key:${keyId}`, tenantId);
  const record = await accountFor(env, tenantId).addApiKey({ key_id: keyId, key_hash: keyHash, region, mode, permissions });
  if (!record) throw new ApiError("not_found", `Tenant ${tenantId} does not exist.`);
  return { record, api_key: apiKey };
}

export async function tenantOfPointer(env: Env, name: string): Promise<string | null> {
  return directoryFor(env, name).get(name);
}

export async function revokeApiKey(env: Env, keyId: string): Promise<ApiKeyRecord> {
  const tenantId = await tenantOfPointer(env, `api-key:${keyId}`);
  const record = tenantId ? await accountFor(env, tenantId).revokeApiKey(keyId) : null;
  if (!record) throw new ApiError("not_found", `API key ${keyId} does not exist.`);
  return record;
}

export async function setKeyPermissions(env: Env, keyId: string, permissions: Permission[]): Promise<ApiKeyRecord> {
  const tenantId = await tenantOfPointer(env, `api-key:${keyId}`);
  const record = tenantId ? await accountFor(env, tenantId).setKeyPermissions(keyId, permissions) : null;
  if (!record) throw new ApiError("not_found", `API key ${keyId} does not exist.`);
  return record;
}

export async function createSigningKey(env: Env, tenantId: string) {
  await getTenantOr404(env, tenantId);
  const id = newId("whk");
  await directoryFor(env, `signing-key:${id}`).put(`signing-key:${id}`, tenantId);
  const key = await accountFor(env, tenantId).createSigningKey(id);
  if (!key) throw new ApiError("not_found", `Tenant ${tenantId} does not exist.`);
  return key;
}

export async function retireSigningKey(env: Env, id: string) {
  const tenantId = await tenantOfPointer(env, `signing-key:${id}`);
  const key = tenantId ? await accountFor(env, tenantId).retireSigningKey(id) : null;
  if (!key) throw new ApiError("callback_signing_key_not_found", `Callback signing key ${id} does not exist.`);
  return key;
}

/** hash → "tenant key_id": immutable once written, so an isolate may keep it. */
const pointerCache = new Map<string, string>();
const POINTER_CACHE_MAX = 10_000;

export interface Caller {
  tenant_id: string;
  key_id: string;
  permissions: Permission[];
  region: string;
  /** From the key itself: `test` keys run on the sandbox only and are charged nothing. */
  mode: KeyMode;
  rate: RateState | null;
}

/** Requests per minute per key when the tenant sets none (RATE_LIMIT_PER_MINUTE; "0" turns it off). */
function defaultRateLimit(env: Env): number {
  const n = Number(env.RATE_LIMIT_PER_MINUTE ?? "600");
  return Number.isInteger(n) && n >= 0 ? n : 600;
}

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
      : new ApiError("invalid_api_key", "The API key is not valid.");
  }
  const limit = resolved.rate_limit_per_minute ?? defaultRateLimit(env);
  let rate: RateState | null = null;
  if (limit > 0) {
    const keyId = resolved.key_id;
    const { allowed, ...state } = await limiter.check(keyId, limit, () => rateCounterFor(env, keyId), background);
    if (!allowed) {
      throw new ApiError("rate_limited", `This key made ${state.limit} requests this minute; retry after ${state.reset} s.`, {
        retryAfter: state.reset,
        headers: rateHeaders(state),
        details: { limit: state.limit, window_seconds: RATE_WINDOW_MS / 1000 },
      });
    }
    rate = state;
  }
  return {
    tenant_id: resolved.tenant_id,
    key_id: resolved.key_id,
    permissions: resolved.permissions,
    region: parsed.region,
    mode: parsed.mode,
    rate,
  };
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
