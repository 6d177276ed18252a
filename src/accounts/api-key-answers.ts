/** What the account object answers about API keys: plain data, so callers need not import its store. */

import type { Permission } from "../keys/api-keys";
import type { SafetyPolicy } from "../safety/policy";
import type { TenantFeatures } from "../tenancy/tenant-features";
import type { RequestLogSettings } from "../tenancy/tenant-row";
import type { ApiKeyRecord } from "./api-key-rows";
import type { KeyLimits } from "./key-limits";

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
      /** Which optional features the tenant uses, cached with the key: a create pays no call for one it does not. */
      features?: TenantFeatures;
      /** The tenant's request log settings, cached with the key. */
      request_log?: RequestLogSettings;
    }
  /** `key_id`: a known key refused (revoked, disabled, expired), so that enabling it can drop the cached refusal. */
  | { ok: false; code: "invalid_api_key" | "tenant_disabled"; key_id?: string };

/** A new key refused: the tenant holds MAX_ACTIVE_KEYS keys, or the managing key's family is MAX_FAMILY_DEPTH deep. */
export type KeyIssueRefusal = { ok: false; code: "too_many_keys" | "family_too_deep"; max: number };

export type RotateOutcome =
  | { ok: true; old: ApiKeyRecord; key: ApiKeyRecord }
  | { ok: false; code: "not_found" | ApiKeyRecord["status"] | "rotated" };
