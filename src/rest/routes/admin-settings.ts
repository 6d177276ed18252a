/** The operator's route for a tenant's settings: how long its outputs and uploads are kept (src/retention). */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type AppEnv, newRouter } from "../../http/context";
import type { Acting } from "../../services/people";
import { RETENTION_DESCRIPTION, RetentionDays, setTenantSettings } from "../../services/retention";
import { declare } from "../declare";
import { errorResponses } from "../schemas";
import { Tenant } from "./admin";

const TenantId = z.object({ tenant_id: z.string().openapi({ example: "ten_0123456789abcdefghjkmnpqrs" }) });

const SettingsInput = z
  .object({ output_retention_days: RetentionDays.openapi({ description: RETENTION_DESCRIPTION }) })
  .strict()
  .openapi("TenantSettingsInput");

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
    summary: "Set a tenant's settings (how many days its outputs and uploads are kept)",
    description:
      "Applies to what is stored from then on: outputs and uploads already stored keep the end they were given (their `expires_at`).",
    security: [{ adminToken: [] }],
    request: { params: TenantId, body: { required: true, content: { "application/json": { schema: SettingsInput } } } },
    responses: {
      200: { description: "The tenant", content: { "application/json": { schema: Tenant } } },
      ...errorResponses(401, 404, 422),
    },
  },
  async (c) => c.json(await setTenantSettings(c.env, c.req.valid("param").tenant_id, c.req.valid("json"), operator(c)), 200),
);
