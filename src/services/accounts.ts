/**
 * Tenants and their API keys as the doors reach them: key auth and rate state, issuing,
 * rotating and revoking keys, signing keys and usage figures. The rules live in src/accounts/.
 */

export { tenantAccount } from "../accounts/account-stub";
export type { ApiKeyRecord } from "../accounts/api-key-rows";
export type { KeyMode, Permission } from "../accounts/api-keys";
export { KEY_MODES, PERMISSIONS, REGION_PATTERN, WORK_PERMISSIONS } from "../accounts/api-keys";
export { dailySpend } from "../accounts/daily-spend";
export { PERIODS } from "../accounts/key-period";
export type { Grace } from "../accounts/key-rotation";
export { GRACE_LABELS, GRACE_PERIODS, GRACES, rotateApiKey } from "../accounts/key-rotation";
export type { KeyStanding } from "../accounts/key-spend";
export { rateCounterNamed } from "../accounts/rate-counter-stub";
export type { RateState } from "../accounts/rate-limit";
export type { Caller } from "../accounts/service";
export {
  authenticate,
  checkRate,
  createTenant,
  getTenantOr404,
  issueApiKey,
  listApiKeys,
  rateHeaders,
  revokeApiKey,
  setKeyPermissions,
} from "../accounts/service";
export { createSigningKey, DEFAULT_OVERLAP, listSigningKeys, retireSigningKey, rotateSigningKey } from "../accounts/signing-keys";
export type { UsageCounter, UsageFigures, UsageRow } from "../accounts/usage";
export { USAGE_COUNTERS, usageTotals } from "../accounts/usage";
