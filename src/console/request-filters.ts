/**
 * The Requests page's filters: the query string as the form echoes it, the log service's query it
 * becomes (refused with the API's words when a value is not one), and the listing's address.
 */
import { ApiError } from "../errors/api-error";
import { type RequestListQuery, statusRange } from "../services/request-log";

export const STATUS_CLASSES = ["2xx", "3xx", "4xx", "5xx"] as const;
export const PAGE_SIZES = [20, 50, 100] as const;
const DEFAULT_PAGE_SIZE = 20;

const TEXT_FILTERS = ["route", "key_id", "model", "task_id", "error_code"] as const;
const FIELDS = ["status", ...TEXT_FILTERS, "since", "until", "limit"] as const;

/** The form's fields as the query gave them ("" for absent). */
export type RequestFilters = Record<(typeof FIELDS)[number] | "cursor", string>;

export function requestFiltersOf(q: Record<string, string>): RequestFilters {
  const f = (k: string) => (q[k] ?? "").trim();
  return Object.fromEntries([...FIELDS, "cursor"].map((k) => [k, f(k)])) as RequestFilters;
}

const bad = (param: string, message: string) => new ApiError("invalid_request", message, { param });

/** A `datetime-local` value (UTC, as the form says) or a full ISO 8601 time, in ms. */
function timeOf(value: string, name: string): number {
  const ms = Date.parse(/(Z|[+-]\d{2}:\d{2})$/i.test(value) ? value : `${value}Z`);
  if (Number.isNaN(ms)) throw bad(name, `${name} must be a date and time (UTC).`);
  return ms;
}

export function requestQueryOf(f: RequestFilters): RequestListQuery {
  const limit = f.limit ? Number(f.limit) : DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw bad("limit", "The page size must be a whole number from 1 to 100.");
  const status = f.status ? statusRange(f.status) : null;
  if (f.status && !status) throw bad("status", "status must be an HTTP status (200) or a class (4xx).");
  const query: RequestListQuery = { limit };
  if (status) query.status = status;
  for (const k of TEXT_FILTERS) if (f[k]) query[k] = f[k];
  if (f.since) query.since = timeOf(f.since, "since");
  if (f.until) query.until = timeOf(f.until, "until");
  if (f.cursor) query.cursor = f.cursor;
  return query;
}

/** The listing's address with these filters (empty ones left out), at `cursor`. */
export function requestsHref(f: RequestFilters, cursor?: string): string {
  const params = new URLSearchParams();
  for (const k of FIELDS) if (f[k]) params.set(k, f[k]);
  if (cursor) params.set("cursor", cursor);
  const qs = params.toString();
  return `/console/requests${qs ? `?${qs}` : ""}`;
}
