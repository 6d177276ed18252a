/**
 * The operator's route for a tenant's settings: how long its outputs and uploads are kept
 * (src/retention), whether its request log keeps bodies and for how long (src/request-log). Each
 * concern given is one audited change of its own service.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type AppEnv, newRouter } from "../../http/context";
import { BodyLoggingSetting, LogRetentionDays } from "../../services/contracts/request-log";
import type { Acting } from "../../services/people";
import { setRequestLogSettings } from "../../services/request-log-settings";
import { RETENTION_DESCRIPTION, RetentionDays, setTenantSettings } from "../../services/retention";
import { declare } from "../declare";
import { errorResponses } from "../schemas";
import { Tenant } from "./admin";

const TenantId = z.object({ tenant_id: z.string().openapi({ example: "ten_0123456789abcdefghjkmnpqrs" }) });

const SettingsInput = z
  .object({
    output_retention_days: RetentionDays.optional().openapi({ description: RETENTION_DESCRIPTION }),
    request_body_logging: BodyLoggingSetting.optional(),
    request_log_retention_days: LogRetentionDays.optional(),
  })
  .strict()
  .refine((s) => Object.values(s).some((v) => v !== undefined), {
    message: "give at least one of output_retention_days, request_body_logging, request_log_retention_days",
  })
  .openapi("TenantSettingsInput", { description: "At least one setting; those not given are left as they are" });

function operator(c: Context<AppEnv>): Acting {
  return {
    principal: { kind: "operator" },
    ip: c.req.header("CF-Connecting-IP") ?? null,
    user_agent: c.req.header("User-Agent") ?? null,
  };
}

export const adminSettingsRoutes = newRouter();

declare(
  adminSettingsRoutes,
  {
    operator: true,
    method: "post",
    path: "/admin/v1/tenants/{tenant_id}/settings",
    operationId: "adminSetTenantSettings",
    tags: ["Operator"],
    summary: "Set a tenant's settings (output retention, request body logging, request log retention)",
    description:
      "Sets those given. Output retention applies to what is stored from then on: outputs and uploads already stored keep the end they were given (their `expires_at`). The request log settings apply to requests from then on, in every isolate within 5 seconds.",
    security: [{ adminToken: [] }],
    request: { params: TenantId, body: { required: true, content: { "application/json": { schema: SettingsInput } } } },
    responses: {
      200: { description: "The tenant", content: { "application/json": { schema: Tenant } } },
      ...errorResponses(401, 404, 422),
    },
  },
  async (c) => {
    const tenantId = c.req.valid("param").tenant_id;
    const { output_retention_days, request_body_logging, request_log_retention_days } = c.req.valid("json");
    const acting = operator(c);
    const logChange = request_body_logging !== undefined || request_log_retention_days !== undefined;
    if (output_retention_days !== undefined) {
      const tenant = await setTenantSettings(c.env, tenantId, { output_retention_days }, acting);
      if (!logChange) return c.json(tenant, 200);
    }
    // The schema holds at least one setting: with none of the log's, the one above has answered.
    return c.json(
      await setRequestLogSettings(c.env, tenantId, { request_body_logging, request_log_retention_days }, acting),
      200,
    );
  },
);
