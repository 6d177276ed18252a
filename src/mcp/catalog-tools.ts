/**
 * The catalog and account tools: models, voices and the balance, as GET /v1/models,
 * /v1/catalog/models/{model}, /v1/voices and /v1/balance answer them for the same caller.
 */
import { z } from "@hono/zod-openapi";
import { balanceOf } from "../services/balance";
import { CAPABILITIES, catalogFor, modelDetailOf, modelList, voiceListOf } from "../services/catalog";
import { Balance } from "../services/contracts/balance";
import { ModelDetail, ModelList, VoiceList } from "../services/contracts/catalog";
import { VoiceQuery } from "../services/contracts/voices";
import { dataResult } from "./results";
import { READ_ONLY, zodTool } from "./tool";

export const listModelsTool = zodTool({
  name: "list_models",
  title: "List models",
  description:
    "The models of the catalog (id, capabilities, whether one is available to you now), optionally only those of one capability. Pass an id as `model` to a task-creating tool, or leave `model` out to let the service choose.",
  scopes: ["catalog:read"],
  annotations: READ_ONLY,
  input: z
    .object({
      capability: z
        .enum(CAPABILITIES)
        .optional()
        .openapi({ description: "Only models offering this capability (a tool name such as text_to_image)" }),
    })
    .strict(),
  output: ModelList,
  async run({ capability }, ctx) {
    const list = modelList(await catalogFor(ctx.env, ctx.caller.mode, ctx.caller.limits));
    const data = capability ? list.data.filter((m) => m.capabilities.includes(capability)) : list.data;
    const lines = data.map((m) => `${m.id} (${m.capabilities.join(", ")})${m.available ? "" : " unavailable"}`);
    return dataResult(`${data.length} model${data.length === 1 ? "" : "s"}:\n${lines.join("\n")}`, { ...list, data });
  },
});

export const getModelTool = zodTool({
  name: "get_model",
  title: "Get a model",
  description:
    "One model's detail: for each capability it offers, its interface card (controls and their allowed values, media limits, pricing). Read it before choosing options for a task.",
  scopes: ["catalog:read"],
  annotations: READ_ONLY,
  input: z
    .object({ model: z.string().min(1).max(128).openapi({ description: "A model id from list_models", example: "gpt-image-2" }) })
    .strict(),
  output: ModelDetail,
  async run({ model }, ctx) {
    const detail = modelDetailOf(await catalogFor(ctx.env, ctx.caller.mode, ctx.caller.limits), model);
    const caps = detail.interfaces.map((i) => String((i as { capability?: unknown }).capability)).join(", ");
    return dataResult(`${detail.model} (${detail.display_name}, ${detail.status}): ${caps}. ${detail.description}`, detail);
  },
});

export const listVoicesTool = zodTool({
  name: "list_voices",
  title: "List voices",
  description:
    "The voices for text_to_speech, optionally filtered by language, gender, category or a search in their names; pass a voice_id as `voice`.",
  scopes: ["catalog:read"],
  annotations: READ_ONLY,
  input: VoiceQuery,
  output: VoiceList,
  async run(filter, ctx) {
    const list = voiceListOf(ctx.env, await catalogFor(ctx.env, ctx.caller.mode, ctx.caller.limits), filter);
    const lines = list.data.map((v) => `${v.voice_id}: ${v.display_name} (${v.language}, ${v.gender})`);
    return dataResult(`${list.data.length} voice${list.data.length === 1 ? "" : "s"}:\n${lines.join("\n")}`, list);
  },
});

export const getBalanceTool = zodTool({
  name: "get_balance",
  title: "Get the balance",
  description:
    "The tenant's credit balance as your credentials see it: available and reserved credits (a test-mode key sees the fixed test balance).",
  scopes: [],
  annotations: READ_ONLY,
  input: z.object({}).strict(),
  output: Balance,
  async run(_args, ctx) {
    const balance = await balanceOf(ctx.env, ctx.caller);
    return dataResult(
      `${balance.available_credits} credits available, ${balance.reserved_credits} reserved (${balance.mode} mode).`,
      balance,
    );
  },
});
