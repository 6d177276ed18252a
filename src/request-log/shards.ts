/**
 * How a tenant's log is spread over objects (docs/storage/request-log-object.md): one object per
 * tenant and hour of arrival holds that hour's entries, and one object per tenant lists the hours
 * that have any. At 1,000 requests/s an hour is 3.6 million entries, about 1.5 GB with bodies off,
 * well within one object's 10 GB; a day in one object would not be.
 */
import { requestIdTime } from "../lib/request-ids";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** The hour (since the epoch) that `at` falls in. */
export function hourOf(at: number): number {
  return Math.floor(at / HOUR_MS);
}

export function hourShardName(tenantId: string, hour: number): string {
  return `${tenantId}:h:${hour}`;
}

export function directoryName(tenantId: string): string {
  return `${tenantId}:hours`;
}

/** When an hour's entries are deleted: the end of the hour plus the tenant's retention. */
export function hourExpiresAt(hour: number, retentionDays: number): number {
  return (hour + 1) * HOUR_MS + retentionDays * DAY_MS;
}

/** The bounds of the days an operator may keep a tenant's entries (default: DEFAULT_LOG_RETENTION_DAYS). */
export { DEFAULT_LOG_RETENTION_DAYS } from "../tenancy/tenant-row";
export const MIN_LOG_RETENTION_DAYS = 1;
export const MAX_LOG_RETENTION_DAYS = 365;

/** The hours that may hold the entry of a request with this id that arrived about `at`. */
export function hoursOfRequest(requestId: string, at: number): number[] {
  const own = requestIdTime(requestId);
  if (own !== null) return [hourOf(own)];
  // A caller's own id: its arrival was up to a second before `at`, perhaps in the hour before.
  return [...new Set([hourOf(at), hourOf(at - 1_000)])];
}
