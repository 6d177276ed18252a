/**
 * Keys managed through the API (`/v1/keys`, `/v1/key`) and the limits every door sets: the
 * REST routes, the operator API and the console call these. A managing key (`keys:manage`)
 * never hands out or reaches beyond what it holds itself: permissions, mode and limits
 * (docs/spend-controls.md says what each rule is).
 */

import { accountFor } from "../accounts/account-stub";
import type { ApiKeyRecord } from "../accounts/api-key-rows";
import type { KeyLimits } from "../accounts/key-limits";
import { normalizeLimits, widerThan } from "../accounts/key-limits";
import type { KeyStanding } from "../accounts/key-spend";
import { type Caller, forgetCachedKey, issueApiKey, revokeApiKey, tenantOfKey, tenantOfPointer } from "../accounts/service";
import { type AuditBy, audited } from "../audit/audited";
import { loadCatalog } from "../catalog/store";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { invalidApiKey } from "../errors/common";
import { apiKeyNotFound } from "../errors/not-found";
import type { Permission } from "../keys/api-keys";
import { cursorTag, decodeCursor, encodeCursor } from "../lib/page-cursor";
import type { Acting } from "../people/principal";
import { auditFields, authorize } from "../people/principal";
/** `limits` as a request sends it (every field optional; null removes one). */
export interface LimitsInput {
  credits?: string | null;
  period?: KeyLimits["period"];
  models?: string[] | null;
  capabilities?: string[] | null;
}

/**
 * The limits to store: normalised, and every model named in the catalog (a typo would otherwise
 * make a key that can use nothing, silently). 422 naming the entry otherwise.
 */
export async function limitsFrom(env: Env, input: LimitsInput | null | undefined): Promise<KeyLimits | null> {
  if (!input) return null;
  if (input.models) {
    const bundle = await loadCatalog(env.CATALOG);
    const i = input.models.findIndex((m) => !Object.hasOwn(bundle.models, m));
    if (i >= 0) {
      throw new ApiError("invalid_request", `limits.models: '${input.models[i]}' is not a model of the catalog.`, {
        param: `/limits/models/${i}`,
        details: { errors: [{ loc: ["body", "limits", "models", i], reason: "not a model of the catalog" }] },
      });
    }
  }
  return normalizeLimits(input);
}

/** Several keys' limits and spend at once, for a list (the console's keys page). */
export async function keyStandingsOf(env: Env, tenantId: string, keyIds: string[]): Promise<Record<string, KeyStanding>> {
  if (keyIds.length === 0) return {};
  return accountFor(env, tenantId).keyStandings(keyIds);
}

/** A key's figures in its current period. */
export function spendView(s: KeyStanding) {
  return {
    spent_credits: s.spend.spent,
    reserved_credits: s.spend.reserved,
    remaining_credits: s.remaining,
    period_started_at: s.window.started_at,
    period_resets_at: s.window.resets_at,
  };
}

export function issuedView(record: ApiKeyRecord, apiKey: string) {
  return {
    key_id: record.key_id,
    api_key: apiKey,
    name: record.name,
    region: record.region,
    mode: record.mode,
    permissions: record.permissions,
    limits: record.limits,
    created_at: record.created_at,
  };
}

function forbidden(message: string, param: string | undefined, details: Record<string, unknown>): ApiError {
  return new ApiError("forbidden", message, { ...(param !== undefined ? { param } : {}), details });
}

/** 403 unless `wanted` is within the managing key's own limits. */
function checkWithin(caller: Caller, wanted: KeyLimits | null): void {
  const wider = widerThan(wanted, caller.limits ?? null);
  if (wider) {
    throw forbidden(`A key may not hand out limits wider than its own: ${wider.param.slice(1)} ${wider.reason}.`, wider.param, {
      reason: "limits_exceed_own",
    });
  }
}

/** `GET /v1/key`: the calling key's own view; any valid key may read it. */
export async function ownKey(env: Env, caller: Caller) {
  const account = accountFor(env, caller.tenant_id);
  const [record, standing] = await Promise.all([account.apiKey(caller.key_id), account.keyStanding(caller.key_id)]);
  if (!record || !standing) throw invalidApiKey();
  return {
    key_id: record.key_id,
    name: record.name,
    mode: record.mode,
    permissions: record.permissions,
    limits: record.limits,
    ...spendView(standing),
  };
}

export interface NewKeyInput {
  name?: string;
  permissions?: Permission[];
  mode?: "live" | "test";
  limits?: LimitsInput | null;
}

/**
 * `POST /v1/keys`: a key made by a managing key, within what that key holds: its permissions
 * (by default, its own less `keys:manage`), its mode (a test key makes test keys only), its limits.
 */
export async function createKeyByKey(env: Env, caller: Caller, input: NewKeyInput, by: AuditBy) {
  const permissions = [...new Set(input.permissions ?? caller.permissions.filter((p) => p !== "keys:manage"))];
  const outside = (input.permissions ?? []).findIndex((p) => !caller.permissions.includes(p));
  if (outside >= 0) {
    throw forbidden(
      `A key may not hand out a permission it does not hold (${(input.permissions as Permission[])[outside]}).`,
      `/permissions/${outside}`,
      { reason: "permission_not_held", permission: (input.permissions as Permission[])[outside] },
    );
  }
  const mode = input.mode ?? caller.mode;
  if (caller.mode === "test" && mode !== "test") {
    throw forbidden("A test-mode key makes test-mode keys only.", "/mode", { reason: "mode_not_held" });
  }
  const limits = await limitsFrom(env, input.limits);
  checkWithin(caller, limits);
  const { record, api_key } = await issueApiKey(env, caller.tenant_id, caller.region, permissions, mode, {
    name: input.name ?? null,
    limits,
    by,
    parent_key_id: caller.key_id,
  });
  return issuedView(record, api_key);
}

/**
 * The key a managing key names, if it may act on it: a key of another tenant, or of the live
 * mode for a test key, is as unknown as one that does not exist (404); one holding a permission
 * the managing key lacks is out of its reach (403).
 */
async function reachableKey(env: Env, caller: Caller, keyId: string, acting: boolean): Promise<ApiKeyRecord> {
  await tenantOfKey(env, keyId, caller.tenant_id);
  const record = await accountFor(env, caller.tenant_id).apiKey(keyId);
  if (!record || (caller.mode === "test" && record.mode !== "test")) {
    throw apiKeyNotFound(keyId);
  }
  if (acting) {
    const beyond = record.permissions.find((p) => !caller.permissions.includes(p));
    if (beyond) {
      throw forbidden(`This key holds ${beyond}, which the managing key does not: it may not change it.`, undefined, {
        reason: "key_beyond_own_permissions",
        permission: beyond,
      });
    }
  }
  return record;
}

/** `GET /v1/keys`: the tenant's keys, newest first (a test key sees test keys only); never a secret. */
export async function listKeysByKey(env: Env, caller: Caller, q: { limit: number; cursor?: string }) {
  const tag = await cursorTag("key-cursor", caller.tenant_id);
  let after: { created_at: string; key_id: string } | undefined;
  if (q.cursor) {
    const at = decodeCursor(q.cursor, tag);
    after = { created_at: at.created_at, key_id: at.id };
  }
  const page = await accountFor(env, caller.tenant_id).apiKeyPage({
    limit: q.limit,
    ...(caller.mode === "test" ? { mode: "test" as const } : {}),
    ...(after ? { after } : {}),
  });
  const last = page.keys[page.keys.length - 1];
  const next = page.has_more && last ? encodeCursor(tag, last.created_at, last.key_id) : null;
  return { object: "list" as const, data: page.keys, has_more: page.has_more, next_cursor: next };
}

/** `GET /v1/keys/{key_id}`: the record and its spend in the current period. */
export async function getKeyByKey(env: Env, caller: Caller, keyId: string) {
  const record = await reachableKey(env, caller, keyId, false);
  const standing = await accountFor(env, caller.tenant_id).keyStanding(keyId);
  if (!standing) throw apiKeyNotFound(keyId);
  return { ...record, ...spendView(standing) };
}

export interface KeyPatch {
  name?: string | null;
  limits?: LimitsInput | null;
  disabled?: boolean;
}

/**
 * `PATCH /v1/keys/{key_id}`: renames, replaces the limits (null: removes them) or disables and
 * enables a key. A key may not change its own limits. Effective in this isolate at once, in
 * every other within the key cache's bound; a credit limit binds at once (the ledger reads it).
 */
export async function patchKeyByKey(env: Env, caller: Caller, keyId: string, patch: KeyPatch, by: AuditBy) {
  const record = await reachableKey(env, caller, keyId, true);
  if (record.status === "revoked")
    throw new ApiError("conflict", `API key ${keyId} is revoked.`, { details: { status: "revoked" } });
  let limits: KeyLimits | null | undefined;
  if (patch.limits !== undefined) {
    if (keyId === caller.key_id) {
      throw forbidden("A key may not change its own limits.", "/limits", { reason: "own_limits" });
    }
    limits = await limitsFrom(env, patch.limits);
    checkWithin(caller, limits);
  }
  const change = {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(limits !== undefined ? { limits } : {}),
    ...(patch.disabled !== undefined ? { disabled: patch.disabled } : {}),
  };
  const updated = await accountFor(env, caller.tenant_id).updateApiKey(
    keyId,
    change,
    audited(by, "api_key.update", keyId, change),
  );
  if (!updated) throw apiKeyNotFound(keyId);
  forgetCachedKey(keyId);
  return updated;
}

/** `DELETE /v1/keys/{key_id}`: revokes (for good). */
export async function revokeKeyByKey(env: Env, caller: Caller, keyId: string, by: AuditBy) {
  await reachableKey(env, caller, keyId, true);
  return revokeApiKey(env, keyId, undefined, { tenant_id: caller.tenant_id, by });
}

/**
 * The operator's and the console's way to set a key's limits (`POST
 * /admin/v1/api-keys/{key_id}/limits`, the console's key page): replaces them, audited.
 */
export async function setKeyLimits(
  env: Env,
  keyId: string,
  input: LimitsInput | null,
  acting: Acting,
  tenantScope?: string,
): Promise<ApiKeyRecord> {
  const tenantId = tenantScope ?? (await tenantOfPointer(env, `api-key:${keyId}`));
  if (!tenantId) throw apiKeyNotFound(keyId);
  await tenantOfKey(env, keyId, tenantId);
  authorize(acting.principal, tenantId, "keys:manage");
  const limits = await limitsFrom(env, input);
  const record = await accountFor(env, tenantId).updateApiKey(
    keyId,
    { limits },
    audited(auditFields(acting), "api_key.update", keyId, { limits }),
  );
  if (!record) throw apiKeyNotFound(keyId);
  forgetCachedKey(keyId);
  return record;
}
