import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { KeyMode } from "../../accounts/api-keys";
import { CAPABILITIES } from "../../catalog/schema";
import { loadCatalog } from "../../catalog/store";
import { type CatalogContext, capabilityDetail, capabilityList, modelDetail, modelList } from "../../catalog/views";
import { filterVoices, voiceView } from "../../catalog/voices";
import type { Env } from "../../env";
import { ApiError } from "../../errors/api-error";
import { publicBaseUrl } from "../../lib/public-url";
import { liveProviders } from "../../providers/routing";
import { requireKey } from "../auth";
import { type AppEnv, newRouter } from "../context";
import { CapabilityDetail, CapabilityList, errorResponses, ModelDetail, ModelList, Voice, VoiceList } from "../schemas";

const security = [{ bearerAuth: [] }];
const authErrors = errorResponses(400, 401, 403, 422);

/** The catalog as a caller of `mode` sees it (also the /mcp tools' view). */
export async function catalogFor(env: Env, mode: KeyMode): Promise<CatalogContext> {
  // What is live depends on who asks: a test-mode key sees the sandbox, a live key the real routes.
  return { bundle: await loadCatalog(env.CATALOG), providers: liveProviders(env, mode) };
}

function catalogContext(c: Context<AppEnv>): Promise<CatalogContext> {
  return catalogFor(c.env, c.get("caller")?.mode ?? "live");
}

/** One model's detail, or 404 `not_found`. */
export function modelDetailOf(ctx: CatalogContext, model: string) {
  const found = Object.hasOwn(ctx.bundle.models, model) ? ctx.bundle.models[model] : undefined;
  if (!found) throw new ApiError("not_found", `Model '${model}' does not exist in the catalog.`);
  return modelDetail(ctx, found) as z.infer<typeof ModelDetail>;
}

/** The voices matching `filter`, as `GET /v1/voices` lists them. */
export function voiceListOf(env: Env, ctx: CatalogContext, filter: z.infer<typeof VoiceQuery>) {
  return {
    object: "list" as const,
    data: filterVoices(ctx.bundle.voices, filter).map((v) => voiceView(v, publicBaseUrl(env))),
  };
}

function modelListRoute(path: string, operationId: string, summary: string) {
  return createRoute({
    method: "get",
    path,
    operationId,
    tags: ["Catalog"],
    summary,
    security,
    middleware: [requireKey("catalog:read")] as const,
    "x-lifecycle": "preview",
    responses: { 200: { description: "Model list", content: { "application/json": { schema: ModelList } } }, ...authErrors },
  });
}

export const catalogRoutes = newRouter();

catalogRoutes.openapi(modelListRoute("/v1/models", "listModels", "List models (chat-compatible list shape)"), async (c) =>
  c.json(modelList(await catalogContext(c)), 200),
);
catalogRoutes.openapi(
  modelListRoute("/v1/catalog/models", "listCatalogModels", "List models under the catalog namespace"),
  async (c) => c.json(modelList(await catalogContext(c)), 200),
);

catalogRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/catalog/capabilities",
    operationId: "listCapabilities",
    tags: ["Catalog"],
    summary: "List capabilities",
    security,
    middleware: [requireKey("catalog:read")] as const,
    "x-lifecycle": "preview",
    responses: {
      200: { description: "Capability list", content: { "application/json": { schema: CapabilityList } } },
      ...authErrors,
    },
  }),
  async (c) => c.json(capabilityList(await catalogContext(c)), 200),
);

catalogRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/catalog/capabilities/{capability}",
    operationId: "getCapability",
    tags: ["Catalog"],
    summary: "Capability detail with typed media interface cards",
    security,
    middleware: [requireKey("catalog:read")] as const,
    "x-lifecycle": "preview",
    request: { params: z.object({ capability: z.string().openapi({ example: "text_to_image" }) }) },
    responses: {
      200: { description: "Capability detail", content: { "application/json": { schema: CapabilityDetail } } },
      ...errorResponses(400, 401, 403, 404, 422),
    },
  }),
  async (c) => {
    const { capability } = c.req.valid("param");
    const cap = CAPABILITIES.find((x) => x === capability);
    if (!cap) {
      throw new ApiError("not_found", `Capability '${capability}' does not exist.`, {
        details: { known_capabilities: CAPABILITIES },
      });
    }
    return c.json(capabilityDetail(await catalogContext(c), cap) as z.infer<typeof CapabilityDetail>, 200);
  },
);

catalogRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/catalog/models/{model}",
    operationId: "getModel",
    tags: ["Catalog"],
    summary: "Model detail with typed media interface cards",
    security,
    middleware: [requireKey("catalog:read")] as const,
    "x-lifecycle": "preview",
    request: { params: z.object({ model: z.string().openapi({ example: "gpt-image-2" }) }) },
    responses: {
      200: { description: "Model detail", content: { "application/json": { schema: ModelDetail } } },
      ...errorResponses(400, 401, 403, 404, 422),
    },
  }),
  async (c) => {
    const { model } = c.req.valid("param");
    return c.json(modelDetailOf(await catalogContext(c), model), 200);
  },
);

export const VoiceQuery = z
  .object({
    language: z
      .string()
      .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, "must be a BCP-47 tag or an ISO 639-1 code")
      .optional()
      .openapi({ example: "en" }),
    gender: z.string().max(32).optional().openapi({ example: "female" }),
    category: z.enum(["preset", "cloned"]).optional(),
    q: z.string().max(200).optional().openapi({ description: "Search in display names" }),
  })
  .strict();

catalogRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/voices",
    operationId: "listVoices",
    tags: ["Voices"],
    summary: "List voices",
    security,
    middleware: [requireKey("catalog:read")] as const,
    "x-lifecycle": "preview",
    request: { query: VoiceQuery },
    responses: { 200: { description: "Voice list", content: { "application/json": { schema: VoiceList } } }, ...authErrors },
  }),
  async (c) => {
    return c.json(voiceListOf(c.env, await catalogContext(c), c.req.valid("query")), 200);
  },
);

catalogRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/voices/{voice_id}",
    operationId: "getVoice",
    tags: ["Voices"],
    summary: "Voice detail",
    security,
    middleware: [requireKey("catalog:read")] as const,
    "x-lifecycle": "preview",
    request: { params: z.object({ voice_id: z.string().openapi({ example: "English_expressive_narrator" }) }) },
    responses: {
      200: { description: "Voice", content: { "application/json": { schema: Voice } } },
      ...errorResponses(400, 401, 403, 404, 422),
    },
  }),
  async (c) => {
    const { voice_id } = c.req.valid("param");
    const { bundle } = await catalogContext(c);
    const voice = bundle.voices.find((v) => v.voice_id === voice_id);
    if (!voice) throw new ApiError("voice_not_found", `Voice '${voice_id}' does not exist.`);
    return c.json(voiceView(voice, publicBaseUrl(c.env)), 200);
  },
);
