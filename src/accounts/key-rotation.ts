/**
 * Rotating an API key: a new key with the same name, permissions, mode and region is issued, and
 * the old one keeps working for the grace period chosen, then stops (401 `invalid_api_key`).
 * Transport-free: the operator API and the console call it.
 */

import { audited, createdBy } from "../audit/audited";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { apiKeyNotFound } from "../errors/not-found";
import { type Acting, auditFields, authorize } from "../people/principal";
import { accountFor } from "./account-stub";
import { type ApiKeyRecord, keyPrefix } from "./api-key-rows";
import { forgetCachedKey, newKeyPointers, OPERATOR, scopeOf, tenantOfKey } from "./service";

/** The grace periods offered: how long the old key keeps working after a rotation. */
export const GRACE_PERIODS = { none: 0, "1h": 3_600_000, "24h": 86_400_000, "7d": 604_800_000 } as const;
export type Grace = keyof typeof GRACE_PERIODS;
export const GRACES = Object.keys(GRACE_PERIODS) as Grace[];

export const GRACE_LABELS: Record<Grace, string> = {
  none: "none (stops now)",
  "1h": "1 hour",
  "24h": "24 hours",
  "7d": "7 days",
};

export interface Rotation {
  /** The old key, with its `expires_at`. */
  old: ApiKeyRecord;
  /** The new key's record. */
  record: ApiKeyRecord;
  /** The new key itself, shown once. */
  api_key: string;
}

/**
 * A console member rotates their own tenant's keys only (another tenant's key is unknown to
 * them) and needs `keys:manage`; `now_ms` is the clock the grace period starts from (tests move
 * it; it is otherwise the present).
 */
export async function rotateApiKey(
  env: Env,
  keyId: string,
  grace: Grace,
  acting: Acting = OPERATOR,
  opts: { now_ms?: number } = {},
): Promise<Rotation> {
  const tenantId = await tenantOfKey(env, keyId, scopeOf(acting));
  authorize(acting.principal, tenantId, "keys:manage");
  const account = accountFor(env, tenantId);
  const old = await account.apiKey(keyId);
  if (!old) throw apiKeyNotFound(keyId);
  refuseUnrotatable(keyId, old.status === "active" && old.replaced_by !== null ? "rotated" : old.status, old.replaced_by);
  const nowMs = opts.now_ms ?? Date.now();
  const graceMs = GRACE_PERIODS[grace];
  const next = await newKeyPointers(env, tenantId, old.region, old.mode);
  const by = auditFields(acting);
  const result = await account.rotateApiKey(
    keyId,
    { key_id: next.keyId, key_hash: next.keyHash, prefix: keyPrefix(next.apiKey), region: old.region, mode: old.mode },
    { grace_ms: graceMs, now_ms: nowMs, created_by: createdBy(by) },
    audited(by, "api_key.rotate", keyId, {
      new_key_id: next.keyId,
      grace,
      expires_at: new Date(nowMs + graceMs).toISOString(),
    }),
  );
  if (!result.ok) {
    if (result.code === "not_found") throw apiKeyNotFound(keyId);
    refuseUnrotatable(keyId, result.code, old.replaced_by);
    throw new ApiError("conflict", `API key ${keyId} cannot be rotated now.`);
  }
  forgetCachedKey(keyId);
  return { old: result.old, record: result.key, api_key: next.apiKey };
}

function refuseUnrotatable(keyId: string, state: ApiKeyRecord["status"] | "rotated", replacedBy: string | null): void {
  if (state === "active") return;
  if (state === "rotated") {
    throw new ApiError("conflict", `API key ${keyId} was already rotated to ${replacedBy}; rotate that key instead.`, {
      details: {
        status: "active",
        replaced_by: replacedBy,
        action: "rotate the replacement, or revoke this key to end its grace period",
      },
    });
  }
  throw new ApiError("conflict", `API key ${keyId} is ${state}; only an active key can be rotated.`, {
    details: { status: state, action: "issue a new key" },
  });
}
