/**
 * How long outputs and uploads are kept. A tenant's `output_retention_days` is both the default
 * and the most a request may ask for (`output_retention_days` on a create): a tenant that keeps
 * outputs 30 days has not agreed to store them longer because one request said so.
 */
import { z } from "@hono/zod-openapi";
import { DEFAULT_RETENTION_DAYS } from "../tenancy/tenant-row";

export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 365;
export const DAY_MS = 24 * 60 * 60 * 1000;

export const RetentionDays = z
  .number()
  .int()
  .min(MIN_RETENTION_DAYS)
  .max(MAX_RETENTION_DAYS)
  .openapi({ example: DEFAULT_RETENTION_DAYS });

/** When something stored at `fromMs` for `days` days expires (ISO 8601). */
export function expiryAfter(fromMs: number, days: number): string {
  return new Date(fromMs + days * DAY_MS).toISOString();
}

export const REQUEST_RETENTION_DESCRIPTION =
  "Days this task's outputs are kept after they are stored (each artifact's `expires_at`), then deleted: at most the tenant's `output_retention_days`, which is also the default; above it the create is refused (422 `invalid_request`).";

export const RETENTION_DESCRIPTION = `Days the tenant's outputs and uploads are kept (${MIN_RETENTION_DAYS}–${MAX_RETENTION_DAYS}, default ${DEFAULT_RETENTION_DAYS}): the default of every create and the most one may ask for with \`output_retention_days\``;
