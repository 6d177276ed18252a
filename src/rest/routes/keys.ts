/**
 * Keys managed by the API (`keys:manage`): create, list, read, change, revoke; and any key's
 * own view (`GET /v1/key`). Each route calls src/services/keys.ts, which holds the rules.
 */
import { z } from "@hono/zod-openapi";
import { newRouter } from "../../http/context";
import { KEY_MODES, PERMISSIONS } from "../../services/accounts";
import { IssuedKey, KeyDetail, KeyLimitsInput, KeyListQuery, KeyPage, KeyRecord, OwnKey } from "../../services/contracts/keys";
import { requestFrom } from "../../services/contracts/request-from";
import { createKeyByKey, getKeyByKey, listKeysByKey, ownKey, patchKeyByKey, revokeKeyByKey } from "../../services/keys";
import { callerAuditBy } from "../../services/tasks";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

const security = [{ bearerAuth: [] }];
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });
const KeyPath = z.object({ key_id: z.string().max(64).openapi({ example: "key_0123456789abcdefghjkmnpqrs" }) });
const KeyName = z.string().trim().min(1).max(100);

export const keyRoutes = newRouter();

declare(
  keyRoutes,
  {
    method: "get",
    path: "/v1/key",
    operationId: "getOwnKey",
    tags: ["Keys"],
    summary: "The calling key: its permissions, limits and spend in the current period",
    description: "Any valid key may read its own view, whatever its permissions.",
    security,
    "x-lifecycle": "preview",
    permission: null,
    responses: { 200: json(OwnKey, "The calling key"), ...errorResponses(401, 403, 429) },
  },
  async (c) => c.json(await ownKey(c.env, c.get("caller")), 200),
);

declare(
  keyRoutes,
  {
    method: "post",
    path: "/v1/keys",
    operationId: "createKey",
    tags: ["Keys"],
    summary: "Create a key (shown once), within the calling key's own permissions, mode and limits",
    security,
    "x-lifecycle": "preview",
    permission: "keys:manage",
    request: {
      ...body(
        z
          .object({
            name: KeyName.optional().openapi({ description: "A label (1 to 100 characters)", example: "user-42" }),
            permissions: z.array(z.enum(PERMISSIONS)).min(1).max(PERMISSIONS.length).optional().openapi({
              description: "Each must be held by the calling key; default: the calling key's, less `keys:manage`",
            }),
            mode: z
              .enum(KEY_MODES)
              .optional()
              .openapi({ description: "Default: the calling key's; a test key makes test keys only" }),
            limits: KeyLimitsInput.nullable().optional(),
          })
          .strict(),
      ),
    },
    responses: {
      201: json(IssuedKey, "The key; `api_key` is shown only in this response"),
      ...errorResponses(400, 401, 403, 422, 429),
    },
  },
  async (c) => {
    const caller = c.get("caller");
    return c.json(await createKeyByKey(c.env, caller, c.req.valid("json"), callerAuditBy(caller, requestFrom(c.req.raw))), 201);
  },
);

declare(
  keyRoutes,
  {
    method: "get",
    path: "/v1/keys",
    operationId: "listKeys",
    tags: ["Keys"],
    summary: "List the tenant's keys, newest first (a test key lists test keys); never their secrets",
    security,
    "x-lifecycle": "preview",
    permission: "keys:manage",
    request: { query: KeyListQuery },
    responses: { 200: json(KeyPage, "A page of keys"), ...errorResponses(400, 401, 403, 422, 429) },
  },
  async (c) => c.json(await listKeysByKey(c.env, c.get("caller"), c.req.valid("query")), 200),
);

declare(
  keyRoutes,
  {
    method: "get",
    path: "/v1/keys/{key_id}",
    operationId: "getKey",
    tags: ["Keys"],
    summary: "Get a key with its spend in the current period",
    security,
    "x-lifecycle": "preview",
    permission: "keys:manage",
    request: { params: KeyPath },
    responses: { 200: json(KeyDetail, "The key"), ...errorResponses(401, 403, 404, 429) },
  },
  async (c) => c.json(await getKeyByKey(c.env, c.get("caller"), c.req.valid("param").key_id), 200),
);

declare(
  keyRoutes,
  {
    method: "patch",
    path: "/v1/keys/{key_id}",
    operationId: "updateKey",
    tags: ["Keys"],
    summary: "Rename a key, replace its limits (null removes them) or disable and enable it",
    description:
      "A credit limit binds the next admission at once; model and capability lists and `disabled` reach every isolate within seconds. A key may not change its own limits, nor give a key limits wider than its own.",
    security,
    "x-lifecycle": "preview",
    permission: "keys:manage",
    request: {
      params: KeyPath,
      ...body(
        z
          .object({
            name: KeyName.nullable().optional(),
            limits: KeyLimitsInput.nullable().optional(),
            disabled: z.boolean().optional(),
          })
          .strict(),
      ),
    },
    responses: { 200: json(KeyRecord, "The key"), ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    return c.json(await patchKeyByKey(c.env, caller, c.req.valid("param").key_id, c.req.valid("json"), by), 200);
  },
);

declare(
  keyRoutes,
  {
    method: "delete",
    path: "/v1/keys/{key_id}",
    operationId: "revokeKey",
    tags: ["Keys"],
    summary: "Revoke a key (for good; effective everywhere within seconds)",
    security,
    "x-lifecycle": "preview",
    permission: "keys:manage",
    request: { params: KeyPath },
    responses: { 200: json(KeyRecord, "The revoked key"), ...errorResponses(401, 403, 404, 429) },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    return c.json(await revokeKeyByKey(c.env, caller, c.req.valid("param").key_id, by), 200);
  },
);
