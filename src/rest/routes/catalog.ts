/** The catalog and voices over REST: each route reads src/services/catalog.ts as its caller sees it. */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type AppEnv, newRouter } from "../../http/context";
import {
  capabilityDetailOf,
  capabilityList,
  catalogFor,
  modelDetailOf,
  modelList,
  voiceListOf,
  voiceOf,
} from "../../services/catalog";
import { CapabilityDetail, CapabilityList, ModelDetail, ModelList, Voice, VoiceList } from "../../services/contracts/catalog";
import { VoiceQuery } from "../../services/contracts/voices";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

const security = [{ bearerAuth: [] }];
const authErrors = errorResponses(400, 401, 403, 422);

function catalogContext(c: Context<AppEnv>) {
  const caller = c.get("caller");
  return catalogFor(c.env, caller?.mode ?? "live", caller?.limits);
}

function modelListRoute(path: string, operationId: string, summary: string) {
  return {
    method: "get" as const,
    path,
    operationId,
    tags: ["Catalog"],
    summary,
    security,
    permission: "catalog:read" as const,
    "x-lifecycle": "preview",
    responses: { 200: { description: "Model list", content: { "application/json": { schema: ModelList } } }, ...authErrors },
  };
}

export const catalogRoutes = newRouter();

declare(catalogRoutes, modelListRoute("/v1/models", "listModels", "List models (chat-compatible list shape)"), async (c) =>
  c.json(modelList(await catalogContext(c)), 200),
);
declare(
  catalogRoutes,
  modelListRoute("/v1/catalog/models", "listCatalogModels", "List models under the catalog namespace"),
  async (c) => c.json(modelList(await catalogContext(c)), 200),
);

declare(
  catalogRoutes,
  {
    method: "get",
    path: "/v1/catalog/capabilities",
    operationId: "listCapabilities",
    tags: ["Catalog"],
    summary: "List capabilities",
    security,
    permission: "catalog:read",
    "x-lifecycle": "preview",
    responses: {
      200: { description: "Capability list", content: { "application/json": { schema: CapabilityList } } },
      ...authErrors,
    },
  },
  async (c) => c.json(capabilityList(await catalogContext(c)), 200),
);

declare(
  catalogRoutes,
  {
    method: "get",
    path: "/v1/catalog/capabilities/{capability}",
    operationId: "getCapability",
    tags: ["Catalog"],
    summary: "Capability detail with typed media interface cards",
    security,
    permission: "catalog:read",
    "x-lifecycle": "preview",
    request: { params: z.object({ capability: z.string().openapi({ example: "text_to_image" }) }) },
    responses: {
      200: { description: "Capability detail", content: { "application/json": { schema: CapabilityDetail } } },
      ...errorResponses(400, 401, 403, 404, 422),
    },
  },
  async (c) => {
    const { capability } = c.req.valid("param");
    return c.json(capabilityDetailOf(await catalogContext(c), capability), 200);
  },
);

declare(
  catalogRoutes,
  {
    method: "get",
    path: "/v1/catalog/models/{model}",
    operationId: "getModel",
    tags: ["Catalog"],
    summary: "Model detail with typed media interface cards",
    security,
    permission: "catalog:read",
    "x-lifecycle": "preview",
    request: { params: z.object({ model: z.string().openapi({ example: "gpt-image-2" }) }) },
    responses: {
      200: { description: "Model detail", content: { "application/json": { schema: ModelDetail } } },
      ...errorResponses(400, 401, 403, 404, 422),
    },
  },
  async (c) => {
    const { model } = c.req.valid("param");
    return c.json(modelDetailOf(await catalogContext(c), model), 200);
  },
);

declare(
  catalogRoutes,
  {
    method: "get",
    path: "/v1/voices",
    operationId: "listVoices",
    tags: ["Voices"],
    summary: "List voices",
    security,
    permission: "catalog:read",
    "x-lifecycle": "preview",
    request: { query: VoiceQuery },
    responses: { 200: { description: "Voice list", content: { "application/json": { schema: VoiceList } } }, ...authErrors },
  },
  async (c) => {
    return c.json(voiceListOf(c.env, await catalogContext(c), c.req.valid("query")), 200);
  },
);

declare(
  catalogRoutes,
  {
    method: "get",
    path: "/v1/voices/{voice_id}",
    operationId: "getVoice",
    tags: ["Voices"],
    summary: "Voice detail",
    security,
    permission: "catalog:read",
    "x-lifecycle": "preview",
    request: { params: z.object({ voice_id: z.string().openapi({ example: "English_expressive_narrator" }) }) },
    responses: {
      200: { description: "Voice", content: { "application/json": { schema: Voice } } },
      ...errorResponses(400, 401, 403, 404, 422),
    },
  },
  async (c) => {
    const { voice_id } = c.req.valid("param");
    return c.json(voiceOf(c.env, await catalogContext(c), voice_id), 200);
  },
);
