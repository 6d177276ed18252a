import { z } from "@hono/zod-openapi";
import { tenantNotFound } from "../../errors/not-found";
import { newRouter } from "../../http/context";
import { createTenant, getTenantOr404, tenantAccount } from "../../services/accounts";
import { CreditAmountInput } from "../../services/contracts/credits";
import { BodyLoggingSetting, LogRetentionDays } from "../../services/contracts/request-log";
import { createTenantWithOwner } from "../../services/people";
import { RETENTION_DESCRIPTION } from "../../services/retention";
import { declare } from "../declare";
import { body, errors, json, operator, security, TenantId } from "./admin-shared";

const Amount = CreditAmountInput.refine((s) => !/^0+(\.0+)?$/.test(s), "must be greater than zero").openapi({
  description: "Credits: a number or a decimal string, at most 9 decimals",
  example: "1000",
});

export const Tenant = z
  .object({
    tenant_id: z.string(),
    name: z.string(),
    status: z.enum(["active", "disabled"]),
    balance: z.string(),
    created_at: z.string(),
    rate_limit_per_minute: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Requests per minute per API key; null follows the deployment default" }),
    output_retention_days: z.number().int().openapi({ description: RETENTION_DESCRIPTION }),
    request_body_logging: BodyLoggingSetting,
    request_log_retention_days: LogRetentionDays,
  })
  .openapi("Tenant");
const RateLimit = z.number().int().min(1).max(1_000_000).nullable();

export const adminRoutes = newRouter();

declare(
  adminRoutes,
  {
    operator: true,
    method: "post",
    path: "/admin/v1/tenants",
    operationId: "adminCreateTenant",
    tags: ["Operator"],
    summary: "Create a tenant",
    security,
    request: body(
      z
        .object({
          name: z.string().trim().min(1).max(200),
          credits: Amount.optional(),
          rate_limit_per_minute: RateLimit.optional(),
          owner_email: z.email().max(254).optional().openapi({
            description: "The first owner: signs in to the console with this address (a user is made for it when new)",
            example: "owner@example.com",
          }),
        })
        .strict(),
    ),
    responses: { 201: json(Tenant, "The new tenant"), ...errors },
  },
  async (c) => {
    const input = c.req.valid("json");
    const tenant = input.owner_email
      ? await createTenantWithOwner(
          c.env,
          { name: input.name, credits: input.credits, source: "opening_balance", owner_email: input.owner_email },
          operator(c),
        )
      : await createTenant(c.env, { name: input.name, credits: input.credits, source: "opening_balance" });
    if (input.rate_limit_per_minute === undefined) return c.json(tenant, 201);
    return c.json((await tenantAccount(c.env, tenant.tenant_id).setRateLimit(input.rate_limit_per_minute)) ?? tenant, 201);
  },
);

declare(
  adminRoutes,
  {
    operator: true,
    method: "post",
    path: "/admin/v1/tenants/{tenant_id}/rate-limit",
    operationId: "adminSetTenantRateLimit",
    tags: ["Operator"],
    summary: "Set a tenant's rate limit (requests per minute per API key; null for the default)",
    security,
    request: { params: TenantId, ...body(z.object({ rate_limit_per_minute: RateLimit }).strict()) },
    responses: { 200: json(Tenant, "The tenant"), ...errors },
  },
  async (c) => {
    const { tenant_id } = c.req.valid("param");
    const tenant = await tenantAccount(c.env, tenant_id).setRateLimit(c.req.valid("json").rate_limit_per_minute);
    if (!tenant) throw tenantNotFound(tenant_id);
    return c.json(tenant, 200);
  },
);

declare(
  adminRoutes,
  {
    operator: true,
    method: "get",
    path: "/admin/v1/tenants/{tenant_id}",
    operationId: "adminGetTenant",
    tags: ["Operator"],
    summary: "Read a tenant",
    security,
    request: { params: TenantId },
    responses: { 200: json(Tenant, "The tenant"), ...errors },
  },
  async (c) => c.json(await getTenantOr404(c.env, c.req.valid("param").tenant_id), 200),
);

const Ledger = z
  .object({
    totals: z.object({ granted: z.string(), captured: z.string(), reserved: z.string() }),
    balance: z.string(),
    recomputed: z.object({ granted: z.string(), captured: z.string(), reserved: z.string() }),
    reservations: z.number().int(),
    open_reservations: z.number().int(),
    key_spend_mismatches: z
      .array(z.string())
      .openapi({ description: "Keys whose running spend differs from their reservation rows: always empty" }),
  })
  .openapi("Ledger");

declare(
  adminRoutes,
  {
    operator: true,
    method: "get",
    path: "/admin/v1/tenants/{tenant_id}/ledger",
    operationId: "adminGetTenantLedger",
    tags: ["Operator"],
    summary: "A tenant's ledger: running totals beside the same figures recomputed from its rows (audits)",
    security,
    request: { params: TenantId },
    responses: { 200: json(Ledger, "The ledger"), ...errors },
  },
  async (c) => {
    const { tenant_id } = c.req.valid("param");
    await getTenantOr404(c.env, tenant_id);
    return c.json(await tenantAccount(c.env, tenant_id).ledger(), 200);
  },
);

for (const action of ["disable", "enable"] as const) {
  declare(
    adminRoutes,
    {
      operator: true,
      method: "post",
      path: `/admin/v1/tenants/{tenant_id}/${action}`,
      operationId: action === "disable" ? "adminDisableTenant" : "adminEnableTenant",
      tags: ["Operator"],
      summary: action === "disable" ? "Disable a tenant (its keys stop working within seconds)" : "Enable a tenant",
      security,
      request: { params: TenantId },
      responses: { 200: json(Tenant, "The tenant"), ...errors },
    },
    async (c) => {
      const { tenant_id } = c.req.valid("param");
      const tenant = await tenantAccount(c.env, tenant_id).setStatus(action === "disable" ? "disabled" : "active");
      if (!tenant) throw tenantNotFound(tenant_id);
      return c.json(tenant, 200);
    },
  );
}

const Grant = z
  .object({
    grant: z.object({ grant_id: z.string(), amount: z.string(), source: z.string(), created_at: z.string() }),
    balance: z.string(),
  })
  .openapi("CreditGrant");

declare(
  adminRoutes,
  {
    operator: true,
    method: "post",
    path: "/admin/v1/tenants/{tenant_id}/credits",
    operationId: "adminGrantCredits",
    tags: ["Operator"],
    summary: "Grant credits",
    security,
    request: {
      params: TenantId,
      ...body(
        z
          .object({
            amount: Amount,
            source: z
              .string()
              .trim()
              .min(1)
              .max(64)
              .regex(/^[a-z0-9_.:-]+$/, "use lowercase letters, digits and _ . : -")
              .openapi({ example: "purchase" }),
          })
          .strict(),
      ),
    },
    responses: { 201: json(Grant, "The grant and the new balance"), ...errors },
  },
  async (c) => {
    const { tenant_id } = c.req.valid("param");
    const { amount, source } = c.req.valid("json");
    const result = await tenantAccount(c.env, tenant_id).grantCredits(amount, source);
    if (!result) throw tenantNotFound(tenant_id);
    return c.json(result, 201);
  },
);
