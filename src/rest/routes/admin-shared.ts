/** What the operator routes share: their security scheme, body and answer shapes, and who acts. */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../http/context";
import type { Acting } from "../../services/people";
import { errorResponses } from "../schemas";

export const security = [{ adminToken: [] }];
export const TenantId = z.object({ tenant_id: z.string().openapi({ example: "ten_0123456789abcdefghjkmnpqrs" }) });
export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
export const body = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { "application/json": { schema } } },
});
export const errors = errorResponses(401, 404, 422);

/** The operator, as services and the audit log know it, with where the call came from. */
export function operator(c: Context<AppEnv>): Acting {
  return {
    principal: { kind: "operator" },
    ip: c.req.header("CF-Connecting-IP") ?? null,
    user_agent: c.req.header("User-Agent") ?? null,
  };
}
