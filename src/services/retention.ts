/**
 * How long uploads and outputs are kept, and a tenant's setting for it.
 */

export { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS, RETENTION_DESCRIPTION, RetentionDays } from "../retention/days";
export { objectExpired } from "../retention/outputs";
export { setTenantSettings } from "../retention/settings";
export { storeRetainedUpload, uploadRetention } from "../retention/uploads";
