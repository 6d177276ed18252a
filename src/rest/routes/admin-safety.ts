/** Operator routes for a tenant's content review policy (src/safety/policy.ts; README, Content safety). */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type AppEnv, newRouter } from "../../http/context";
import type { Acting } from "../../services/people";
import { BLOCK_THRESHOLD, CATEGORIES, getSafetyPolicy, SafetyPolicyInput, setSafetyPolicy } from "../../services/safety";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

const security = [{ adminToken: [] }];
const TenantId = z.object({ tenant_id: z.string().openapi({ example: "ten_0123456789abcdefghjkmnpqrs" }) });

const SafetyPolicy = z
  .object({
    tenant_id: z.string(),
    enabled: z.boolean().openapi({ description: "false: the tenant's requests are not reviewed (it runs its own moderation)" }),
    block_categories: z.array(z.string()).openapi({
      description: `Categories refused from a score of ${BLOCK_THRESHOLD} (or their threshold) even when the provider does not flag them`,
    }),
    thresholds: z.record(z.string(), z.number()).openapi({
      description: "Category → the score from which it refuses (0 < t ≤ 1); flagged content refuses whatever they say",
    }),
  })
  .openapi("TenantSafetyPolicy");

const PolicyBody = SafetyPolicyInput.openapi("TenantSafetyPolicyInput", {
  description: `Replaces the tenant's policy. Categories: ${CATEGORIES.join(", ")}.`,
});

function operator(c: Context<AppEnv>): Acting {
  return {
    principal: { kind: "operator" },
    ip: c.req.header("CF-Connecting-IP") ?? null,
    user_agent: c.req.header("User-Agent") ?? null,
  };
}

export const adminSafetyRoutes = newRouter();

declare(
  adminSafetyRoutes,
  {
    operator: true,
    method: "get",
    path: "/admin/v1/tenants/{tenant_id}/safety",
    operationId: "adminGetTenantSafetyPolicy",
    tags: ["Operator"],
    summary: "Read a tenant's content review policy",
    security,
    request: { params: TenantId },
    responses: {
      200: { description: "The policy that applies", content: { "application/json": { schema: SafetyPolicy } } },
      ...errorResponses(401, 404),
    },
  },
  async (c) => c.json(await getSafetyPolicy(c.env, c.req.valid("param").tenant_id), 200),
);

declare(
  adminSafetyRoutes,
  {
    operator: true,
    method: "put",
    path: "/admin/v1/tenants/{tenant_id}/safety",
    operationId: "adminSetTenantSafetyPolicy",
    tags: ["Operator"],
    summary: "Set a tenant's content review policy (stricter categories and thresholds, or review off)",
    security,
    request: { params: TenantId, body: { required: true, content: { "application/json": { schema: PolicyBody } } } },
    responses: {
      200: { description: "The policy now applied", content: { "application/json": { schema: SafetyPolicy } } },
      ...errorResponses(401, 404, 422),
    },
  },
  async (c) => {
    const policy = await setSafetyPolicy(c.env, c.req.valid("param").tenant_id, c.req.valid("json"), operator(c));
    return c.json(policy, 200);
  },
);
