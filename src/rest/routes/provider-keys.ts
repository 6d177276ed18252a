/** A tenant's own provider keys (`providers:manage`). Each route calls src/services/provider-keys.ts. */
import { z } from "@hono/zod-openapi";
import { newRouter } from "../../http/context";
import { DeletedProviderKey, ProviderKey, ProviderKeyInput, ProviderKeyList } from "../../services/contracts/provider-keys";
import { requestFrom } from "../../services/contracts/request-from";
import { deleteProviderKey, listProviderKeys, putProviderKey } from "../../services/provider-keys";
import { callerAuditBy, keyScope } from "../../services/tasks";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

const security = [{ bearerAuth: [] }];
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const ProviderPath = z.object({ provider: z.string().max(64).openapi({ example: "fal" }) });
const tags = ["Provider keys"];

export const providerKeyRoutes = newRouter();

declare(
  providerKeyRoutes,
  {
    method: "put",
    path: "/v1/provider-keys/{provider}",
    operationId: "setProviderKey",
    tags,
    summary: "Add or replace the tenant's own key for a provider (checked with the provider first)",
    security,
    "x-lifecycle": "preview",
    permission: "providers:manage",
    request: {
      params: ProviderPath,
      body: { required: true, content: { "application/json": { schema: ProviderKeyInput } } },
    },
    responses: {
      200: json(ProviderKey, "The key as stored: never the key, `last4` only"),
      ...errorResponses(400, 401, 403, 404, 422, 429, 503),
    },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    return c.json(await putProviderKey(c.env, keyScope(caller), c.req.valid("param").provider, c.req.valid("json"), by), 200);
  },
);

declare(
  providerKeyRoutes,
  {
    method: "get",
    path: "/v1/provider-keys",
    operationId: "listProviderKeys",
    tags,
    summary: "List the tenant's provider keys, by provider; never the keys",
    security,
    "x-lifecycle": "preview",
    permission: "providers:manage",
    responses: { 200: json(ProviderKeyList, "The keys"), ...errorResponses(401, 403, 429) },
  },
  async (c) => c.json(await listProviderKeys(c.env, keyScope(c.get("caller"))), 200),
);

declare(
  providerKeyRoutes,
  {
    method: "delete",
    path: "/v1/provider-keys/{provider}",
    operationId: "deleteProviderKey",
    tags,
    summary: "Remove the tenant's key for a provider: its tasks use the platform's routes again",
    security,
    "x-lifecycle": "preview",
    permission: "providers:manage",
    request: { params: ProviderPath },
    responses: { 200: json(DeletedProviderKey, "The key removed"), ...errorResponses(401, 403, 404, 429) },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    return c.json(await deleteProviderKey(c.env, keyScope(caller), c.req.valid("param").provider, by), 200);
  },
);
