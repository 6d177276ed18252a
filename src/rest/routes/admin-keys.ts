/** Operator routes for API keys (issue, revoke, rotate, permissions, limits) and callback signing keys. */
import { z } from "@hono/zod-openapi";
import { ApiError } from "../../errors/api-error";
import { newRouter } from "../../http/context";
import {
  createSigningKey,
  DEFAULT_OVERLAP,
  GRACES,
  issueApiKey,
  KEY_MODES,
  PERMISSIONS,
  REGION_PATTERN,
  retireSigningKey,
  revokeApiKey,
  rotateApiKey,
  rotateSigningKey,
  setKeyPermissions,
  WORK_PERMISSIONS,
} from "../../services/accounts";
import { IssuedKey, KeyLimitsInput, KeyRecord } from "../../services/contracts/keys";
import { issuedView, limitsFrom, setKeyLimits } from "../../services/keys";
import { declare } from "../declare";
import { errorResponses } from "../schemas";
import { body, errors, json, operator, security, TenantId } from "./admin-shared";

export const adminKeyRoutes = newRouter();

const KeyName = z.string().trim().min(1).max(100);

declare(
  adminKeyRoutes,
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
              description:
                "Default: the work permissions (`catalog:read`, `tasks:read`, `tasks:write`, `chat`); the managing ones only when listed",
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
  adminKeyRoutes,
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
  adminKeyRoutes,
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
  adminKeyRoutes,
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
  adminKeyRoutes,
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
  adminKeyRoutes,
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
  adminKeyRoutes,
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
  adminKeyRoutes,
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
