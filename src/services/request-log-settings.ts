/**
 * The tenant's request log settings: whether bodies are kept (`request_body_logging`, owners in the
 * console and the operator) and for how many days entries are kept (`request_log_retention_days`,
 * the operator only: it is the platform's storage). Audited as `tenant.settings_set`. The settings
 * travel with the tenant's key resolution, so every isolate applies a change within the key
 * cache's bound (5 s); this isolate at once.
 */
import { forgetCachedTenant } from "../accounts/service";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { tenantNotFound } from "../errors/not-found";
import { type Acting, auditFields, authorize } from "../people/principal";
import type { RequestLogAccountSlice } from "../request-log/account-slice";
import { BODY_LOGGING, type BodyLogging } from "../request-log/bodies";
import { MAX_LOG_RETENTION_DAYS, MIN_LOG_RETENTION_DAYS } from "../request-log/shards";
import { tenantSlice } from "../tenancy/account-slice";
import type { TenantView } from "../tenancy/tenant-row";
import { BodyLoggingSetting, LogRetentionDays } from "./contracts/request-log";

export { BODY_LOGGING, type BodyLogging } from "../request-log/bodies";

export interface RequestLogSettingsInput {
  /** Each checked here, whichever door it came through; absent: left as it is. */
  request_body_logging?: unknown;
  request_log_retention_days?: unknown;
}

function invalid(field: string, reason: string): ApiError {
  return new ApiError("invalid_request", `${field} ${reason}.`, {
    param: `/${field}`,
    details: { errors: [{ loc: ["body", field], reason }] },
  });
}

export async function setRequestLogSettings(
  env: Env,
  tenantId: string,
  input: RequestLogSettingsInput,
  acting: Acting,
): Promise<TenantView> {
  authorize(acting.principal, tenantId, "settings:manage");
  const settings: { request_body_logging?: BodyLogging; request_log_retention_days?: number } = {};
  if (input.request_body_logging !== undefined) {
    const parsed = BodyLoggingSetting.safeParse(input.request_body_logging);
    if (!parsed.success) throw invalid("request_body_logging", `must be one of ${BODY_LOGGING.map((m) => `"${m}"`).join(", ")}`);
    settings.request_body_logging = parsed.data;
  }
  if (input.request_log_retention_days !== undefined) {
    if (acting.principal.kind !== "operator")
      throw new ApiError("forbidden", "Only the operator sets how long the request log is kept.", {
        details: { required: "operator" },
      });
    const parsed = LogRetentionDays.safeParse(input.request_log_retention_days);
    if (!parsed.success)
      throw invalid(
        "request_log_retention_days",
        `must be a whole number of days from ${MIN_LOG_RETENTION_DAYS} to ${MAX_LOG_RETENTION_DAYS}`,
      );
    settings.request_log_retention_days = parsed.data;
  }
  if (Object.keys(settings).length === 0)
    throw new ApiError("invalid_request", "Give request_body_logging or request_log_retention_days.", { param: "" });
  const tenant = await tenantSlice<RequestLogAccountSlice>(env, tenantId).setLogSettings(settings, {
    ...auditFields(acting),
    action: "tenant.settings_set",
    target: tenantId,
    details: { ...settings },
  });
  if (!tenant) throw tenantNotFound(tenantId);
  forgetCachedTenant(tenantId);
  return tenant;
}
