/**
 * Tenants and their API keys as the doors reach them: key auth and rate state, issuing,
 * rotating and revoking keys, signing keys and usage figures. The rules live in src/accounts/.
 */

export { tenantAccount } from "../accounts/account-stub";
export type { ApiKeyRecord } from "../accounts/api-key-rows";
export { dailySpend } from "../accounts/daily-spend";
export { PERIODS } from "../accounts/key-period";
export type { Grace } from "../accounts/key-rotation";
export { GRACE_LABELS, GRACE_PERIODS, GRACES, rotateApiKey } from "../accounts/key-rotation";
export type { KeyStanding } from "../accounts/key-spend";
export type { Caller } from "../accounts/service";
export {
  authenticate,
  checkRate,
  createTenant,
  issueApiKey,
  listApiKeys,
  rateHeaders,
  revokeApiKey,
  setKeyPermissions,
} from "../accounts/service";
export { createSigningKey, DEFAULT_OVERLAP, listSigningKeys, retireSigningKey, rotateSigningKey } from "../accounts/signing-keys";
export type { UsageCounter, UsageFigures, UsageRow } from "../accounts/usage";
export { USAGE_COUNTERS, usageTotals } from "../accounts/usage";
export type { KeyMode, Permission } from "../keys/api-keys";
export { KEY_MODES, PERMISSIONS, REGION_PATTERN, WORK_PERMISSIONS } from "../keys/api-keys";
export { rateCounterNamed } from "../rate-limits/rate-counter-stub";
export type { RateState } from "../rate-limits/rate-limit";
export { getTenantOr404 } from "../tenancy/account-slice";
