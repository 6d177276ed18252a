/** The catalog and voice views every door answers with: models, capabilities, interface cards, voices. */
import { z } from "@hono/zod-openapi";

export const ModelListItem = z
  .object({
    id: z.string(),
    object: z.literal("model"),
    created: z.number().int(),
    owned_by: z.string(),
    display_name: z.string(),
    status: z.string(),
    capabilities: z.array(z.string()),
    available: z.boolean(),
  })
  .openapi("Model");
export const ModelList = z.object({ object: z.literal("list"), data: z.array(ModelListItem) }).openapi("ModelList");

export const CapabilitySummary = z
  .object({
    capability: z.string(),
    endpoint: z.string(),
    input_modality: z.array(z.string()),
    output_modality: z.string(),
    execution_mode: z.string(),
    description: z.string(),
    status: z.string(),
    lifecycle: z.string(),
    visibility: z.string(),
    model_count: z.number().int(),
    starting_credits: z.string().nullable(),
  })
  .openapi("CapabilitySummary");
export const CapabilityList = z.object({ object: z.literal("list"), data: z.array(CapabilitySummary) }).openapi("CapabilityList");

export const AutoSelection = z
  .object({
    default_model: z.literal("auto"),
    basic_request_preference: z.string(),
    request_dependent: z.boolean(),
    persisted_selection_field: z.literal("resolved_model"),
    description: z.string(),
  })
  .openapi("AutoSelection");

export const InterfaceCard = z
  .object({
    schema_version: z.string(),
    model: z.string(),
    display_name: z.string(),
    owned_by: z.string(),
    capability: z.string(),
    status: z.string(),
    available: z.boolean(),
    quality_tier: z.string(),
    controls: z.array(z.record(z.string(), z.unknown())),
    prompt: z.record(z.string(), z.unknown()).optional(),
    inputs: z.array(z.record(z.string(), z.unknown())),
    outputs: z.record(z.string(), z.unknown()).optional(),
    canvas: z.record(z.string(), z.unknown()).optional(),
    rules: z.array(z.record(z.string(), z.unknown())),
    timing: z
      .object({
        typical_seconds: z.number().int(),
        stall_after_seconds: z.number().int(),
        min_deadline_seconds: z.number().int(),
      })
      .optional()
      .openapi({
        description:
          "How long the model's jobs take: the ETA's basis, the stall threshold (no progress for longer moves the job to the next route), and the shortest deadline_seconds a create may set",
      }),
    pricing: z.record(z.string(), z.unknown()),
    auto: AutoSelection,
    routes: z.array(
      z
        .object({
          provider: z.string(),
          upstream_model: z.string(),
          live: z.boolean(),
          health: z.enum(["operational", "degraded", "down"]).openapi({
            description:
              "The route's circuit now: down while it is open (failing for every caller), degraded while it is probed.",
          }),
        })
        .passthrough()
        .openapi("CatalogRoute"),
    ),
  })
  .passthrough()
  .openapi("InterfaceCard");

export const CapabilityDetail = CapabilitySummary.extend({
  detail_variant: z.string(),
  schema_version: z.string(),
  auto: AutoSelection,
  max_output_images: z.number().int().optional(),
  max_canvas_pixels: z.number().int().optional(),
  models: z.array(InterfaceCard),
})
  .passthrough()
  .openapi("CapabilityDetail");

export const ModelDetail = z
  .object({
    model: z.string(),
    display_name: z.string(),
    owned_by: z.string(),
    description: z.string(),
    status: z.string(),
    source: z.string(),
    interfaces: z.array(InterfaceCard),
  })
  .openapi("ModelDetail");

export const Voice = z
  .object({
    voice_id: z.string(),
    display_name: z.string(),
    category: z.enum(["preset", "cloned"]),
    language: z.string(),
    languages_supported: z.array(z.string()),
    gender: z.string(),
    age: z.string(),
    accent: z.string(),
    use_case: z.array(z.string()),
    preview_url: z.string(),
    compatible_models: z.array(z.string()),
    status: z.string(),
    created_at: z.string(),
  })
  .openapi("Voice");
export const VoiceList = z.object({ object: z.literal("list"), data: z.array(Voice) }).openapi("VoiceList");

export type ModelDetail = z.infer<typeof ModelDetail>;
export type CapabilityDetail = z.infer<typeof CapabilityDetail>;
export type Voice = z.infer<typeof Voice>;
