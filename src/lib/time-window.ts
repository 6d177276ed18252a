/**
 * Time windows in query strings (`GET /v1/tasks`, `GET /v1/usage`): ISO 8601 dates or date-times,
 * in UTC unless they carry an offset. Anything else is 422 `invalid_window`, `param` naming the
 * query field as a pointer (`/from`), as the query's other failures do.
 */
import { ApiError } from "../errors/api-error";

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/;

export function invalidWindow(field: string, message: string, details: Record<string, unknown>): ApiError {
  return new ApiError("invalid_window", message, { param: `/${field}`, details });
}

/** The instant as a canonical ISO string; a date alone is its midnight (UTC). */
export function parseInstant(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  const m = INSTANT.exec(value);
  // The calendar date must exist as written (the parser would roll 2025-02-30 over to March).
  const day = new Date(0);
  if (m) day.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const ms = m && day.toISOString().slice(0, 10) === value.slice(0, 10) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw invalidWindow(field, `${field} must be an ISO 8601 date or date-time.`, { [field]: value });
  }
  return new Date(ms).toISOString();
}
