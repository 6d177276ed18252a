import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ApiError } from "../../errors/api-error";
import { tenantNotFound } from "../../errors/not-found";
import { type AppEnv, newRouter } from "../../http/context";
import { isDecimalString } from "../../lib/decimal";
import {
  createSigningKey,
  createTenant,
  DEFAULT_OVERLAP,
  GRACES,
  getTenantOr404,
  issueApiKey,
  KEY_MODES,
  PERMISSIONS,
  REGION_PATTERN,
  retireSigningKey,
  revokeApiKey,
  rotateApiKey,
  rotateSigningKey,
  setKeyPermissions,
  tenantAccount,
  WORK_PERMISSIONS,
} from "../../services/accounts";
import { IssuedKey, KeyLimitsInput, KeyRecord } from "../../services/contracts/keys";
import { issuedView, limitsFrom, setKeyLimits } from "../../services/keys";
import type { Acting } from "../../services/people";
import { createTenantWithOwner } from "../../services/people";
import { RETENTION_DESCRIPTION } from "../../services/retention";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

const security = [{ adminToken: [] }];
const Amount = z
  .string()
  .refine(isDecimalString, 'must be a decimal string such as "100" or "12.5" (at most 9 decimals)')
  .refine((s) => !/^0+(\.0+)?$/.test(s), "must be greater than zero")
  .openapi({ example: "1000" });

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
  })
  .openapi("Tenant");
const RateLimit = z.number().int().min(1).max(1_000_000).nullable();
const TenantId = z.object({ tenant_id: z.string().openapi({ example: "ten_0123456789abcdefghjkmnpqrs" }) });
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });
const errors = errorResponses(401, 404, 422);

export const adminRoutes = newRouter();

/** The operator, as services and the audit log know it, with where the call came from. */
function operator(c: Context<AppEnv>): Acting {
  return {
    principal: { kind: "operator" },
    ip: c.req.header("CF-Connecting-IP") ?? null,
    user_agent: c.req.header("User-Agent") ?? null,
  };
}

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

const KeyName = z.string().trim().min(1).max(100);

declare(
  adminRoutes,
  {
    operator: true,
    method: "post",
    path: "/admin/v1/tenants/{tenant_id}/api-keys",
    operationId: "adminCreateApiKey",
    tags: ["Operator"],
    summary: "Issue an API key",
    security,
    request: {
      params: TenantId,
      ...body(
        z
          .object({
            name: KeyName.optional().openapi({ description: "A label for the key (1 to 100 characters)", example: "ci" }),
            region: z.string().regex(REGION_PATTERN, "must be 2 to 8 lowercase letters").optional(),
            permissions: z.array(z.enum(PERMISSIONS)).min(1).max(PERMISSIONS.length).optional().openapi({
              description: "Default: every permission but `keys:manage`",
            }),
            limits: KeyLimitsInput.nullable().optional().openapi({ description: "Credits per period, models, capabilities" }),
            mode: z.enum(KEY_MODES).default("live").openapi({
              description:
                "`live` (default) reaches real models and is charged; `test` runs on the sandbox only and is charged nothing",
            }),
          })
          .strict(),
      ),
    },
    responses: { 201: json(IssuedKey, "The key, shown once"), ...errors },
  },
  async (c) => {
    const { tenant_id } = c.req.valid("param");
    const input = c.req.valid("json");
    const region = input.region ?? c.env.REGION;
    if (region !== c.env.REGION) {
      // Each regional deployment keeps its own tenants' keys: issue a key from its region's deployment.
      throw new ApiError("invalid_request", `This deployment issues keys for region '${c.env.REGION}' only.`, {
        param: "/region",
        details: { errors: [{ loc: ["body", "region"], reason: `must be '${c.env.REGION}' on this deployment` }] },
      });
    }
    const permissions = [...new Set(input.permissions ?? WORK_PERMISSIONS)];
    const { record, api_key } = await issueApiKey(c.env, tenant_id, region, permissions, input.mode, {
      name: input.name ?? null,
      acting: operator(c),
      limits: await limitsFrom(c.env, input.limits),
    });
    return c.json(issuedView(record, api_key), 201);
  },
);

declare(
  adminRoutes,
  {
    operator: true,
    method: "post",
    path: "/admin/v1/api-keys/{key_id}/revoke",
    operationId: "adminRevokeApiKey",
    tags: ["Operator"],
    summary: "Revoke an API key (effective everywhere within seconds: docs/scaling.md)",
    security,
    request: { params: z.object({ key_id: z.string() }) },
    responses: { 200: json(KeyRecord, "The revoked key"), ...errors },
  },
  async (c) => c.json(await revokeApiKey(c.env, c.req.valid("param").key_id, operator(c)), 200),
);

const RotatedKey = z
  .object({
    old: KeyRecord,
    key: IssuedKey.openapi({ description: "The new key; `api_key` is shown only in this response" }),
  })
  .openapi("RotatedApiKey");

declare(
  adminRoutes,
  {
    operator: true,
    method: "post",
    path: "/admin/v1/api-keys/{key_id}/rotate",
    operationId: "adminRotateApiKey",
    tags: ["Operator"],
    summary:
      "Rotate an API key: a new key with the same name, permissions and mode; the old one works for the grace period, then stops",
    security,
    request: {
      params: z.object({ key_id: z.string() }),
      ...body(
        z
          .object({
            grace: z.enum(GRACES).openapi({
              description: "How long the old key keeps working: `none` (stops now), `1h`, `24h` or `7d`",
              example: "24h",
            }),
          })
          .strict(),
      ),
    },
    responses: {
      200: json(RotatedKey, "The old key (with its expiry) and the new key, shown once"),
      ...errorResponses(401, 404, 409, 422),
    },
  },
  async (c) => {
    const r = await rotateApiKey(c.env, c.req.valid("param").key_id, c.req.valid("json").grace, operator(c));
    const { record } = r;
    return c.json(
      {
        old: r.old,
        key: issuedView(record, r.api_key),
      },
      200,
    );
  },
);

declare(
  adminRoutes,
  {
    operator: true,
    method: "post",
    path: "/admin/v1/api-keys/{key_id}/permissions",
    operationId: "adminSetApiKeyPermissions",
    tags: ["Operator"],
    summary: "Replace an API key's permissions (effective everywhere within seconds: docs/scaling.md)",
    security,
    request: {
      params: z.object({ key_id: z.string() }),
      ...body(z.object({ permissions: z.array(z.enum(PERMISSIONS)).max(PERMISSIONS.length) }).strict()),
    },
    responses: { 200: json(KeyRecord, "The key"), ...errors },
  },
  async (c) =>
    c.json(await setKeyPermissions(c.env, c.req.valid("param").key_id, [...new Set(c.req.valid("json").permissions)]), 200),
);

declare(
  adminRoutes,
  {
    operator: true,
    method: "post",
    path: "/admin/v1/api-keys/{key_id}/limits",
    operationId: "adminSetApiKeyLimits",
    tags: ["Operator"],
    summary: "Replace an API key's limits (null: none); a credit limit binds at once, lists within seconds",
    security,
    request: {
      params: z.object({ key_id: z.string() }),
      ...body(z.object({ limits: KeyLimitsInput.nullable() }).strict()),
    },
    responses: { 200: json(KeyRecord, "The key"), ...errors },
  },
  async (c) => c.json(await setKeyLimits(c.env, c.req.valid("param").key_id, c.req.valid("json").limits, operator(c)), 200),
);

const SigningKey = z.object({ id: z.string(), secret: z.string(), created_at: z.string() }).openapi("CallbackSigningKey");
const RetiredKey = z
  .object({
    id: z.string(),
    status: z.enum(["active", "retired"]),
    created_at: z.string(),
    retired_at: z.string().nullable(),
    rotated_at: z.string().nullable(),
    previous_valid_until: z
      .string()
      .nullable()
      .openapi({ description: "While a rotation's overlap runs: until when the previous secret still signs" }),
  })
  .openapi("CallbackSigningKeyState");
const RotatedSigningKey = RetiredKey.extend({
  secret: z.string().openapi({ description: "The new secret (`whsec_…`), shown only in this response" }),
}).openapi("RotatedCallbackSigningKey");

declare(
  adminRoutes,
  {
    operator: true,
    method: "post",
    path: "/admin/v1/tenants/{tenant_id}/callback-signing-keys",
    operationId: "adminCreateCallbackSigningKey",
    tags: ["Operator"],
    summary: "Create a callback signing key (Standard Webhooks secret, shown once)",
    security,
    request: { params: TenantId },
    responses: { 201: json(SigningKey, "The key and its secret"), ...errors },
  },
  async (c) => c.json(await createSigningKey(c.env, c.req.valid("param").tenant_id, operator(c)), 201),
);

declare(
  adminRoutes,
  {
    operator: true,
    method: "post",
    path: "/admin/v1/callback-signing-keys/{id}/retire",
    operationId: "adminRetireCallbackSigningKey",
    tags: ["Operator"],
    summary: "Retire a callback signing key",
    security,
    request: { params: z.object({ id: z.string() }) },
    responses: { 200: json(RetiredKey, "The retired key"), ...errors },
  },
  async (c) => c.json(await retireSigningKey(c.env, c.req.valid("param").id, operator(c)), 200),
);

declare(
  adminRoutes,
  {
    operator: true,
    method: "post",
    path: "/admin/v1/callback-signing-keys/{id}/rotate",
    operationId: "adminRotateCallbackSigningKey",
    tags: ["Operator"],
    summary: "Rotate a callback signing key's secret; during the overlap deliveries carry both signatures, then only the new one",
    security,
    request: {
      params: z.object({ id: z.string() }),
      body: {
        required: false,
        content: {
          "application/json": {
            schema: z
              .object({
                overlap: z.enum(GRACES).default(DEFAULT_OVERLAP).openapi({
                  description:
                    "How long the previous secret keeps signing beside the new one: `none`, `1h`, `24h` (default) or `7d`",
                }),
              })
              .strict(),
          },
        },
      },
    },
    responses: { 200: json(RotatedSigningKey, "The key and its new secret"), ...errors },
  },
  async (c) => {
    const overlap = (c.req.valid("json") as { overlap?: (typeof GRACES)[number] } | undefined)?.overlap ?? DEFAULT_OVERLAP;
    return c.json(await rotateSigningKey(c.env, c.req.valid("param").id, overlap, operator(c)), 200);
  },
);
