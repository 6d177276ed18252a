/** The caller an API key resolves to, as routes and stored batches carry it; plain data, no bindings. */

import type { KeyMode, Permission } from "../keys/api-keys";
import type { RateState } from "../rate-limits/rate-limit";
import type { SafetyPolicy } from "../safety/policy";
import type { TenantFeatures } from "../tenancy/tenant-features";
import type { RequestLogSettings } from "../tenancy/tenant-row";
import type { KeyLimits } from "./key-limits";

export interface Caller {
  tenant_id: string;
  key_id: string;
  permissions: Permission[];
  region: string;
  /** From the key itself: `test` keys run on the sandbox only and are charged nothing. */
  mode: KeyMode;
  rate: RateState | null;
  /** The tenant's content review policy, as cached with the key; absent: read from the account. */
  safety_policy?: SafetyPolicy;
  /** The key's limits, as cached with it (at most MAX_AGE_MS old elsewhere; its credit limit is read fresh by the ledger). */
  limits?: KeyLimits | null;
  /** The key or a key that made it has a credit limit (as cached): its chat calls are held before they go upstream. */
  held?: boolean;
  /** The tenant's output retention in days, as cached with the key; absent: read from the account. */
  output_retention_days?: number;
  /** Which optional features the tenant uses, as cached with the key; absent: unknown (each is asked for). */
  features?: TenantFeatures;
  /** The tenant's request log settings, as cached with the key; absent: bodies off, the default retention. */
  request_log?: RequestLogSettings;
}
