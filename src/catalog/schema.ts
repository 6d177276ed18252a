/**
 * Schemas of the files in `catalog-data/`. Every file is checked against these when the
 * catalog is built, so a bad card fails the load with the file and the field it is about.
 */
import { z } from "zod";
import { Capability } from "./capability";
import { minimumWithinDefault, Timing } from "./timing";

export { CAPABILITIES, Capability } from "./capability";

const decimal = z.string().regex(/^\d+(\.\d{1,9})?$/, "must be a non-negative decimal string with at most 9 decimals");
const ratio = z.string().regex(/^\d+(\.\d+)?(:\d+(\.\d+)?)?$/, "must be a ratio such as 16:9 or 0.5");
const Modality = z.enum(["text", "image", "video", "audio"]);

/** A model-level status. `retired` cards stay readable but are never selectable. */
export const ModelStatus = z.enum(["live", "preview", "deprecated", "retired"]);

export const Control = z
  .object({
    field: z.string().min(1),
    value_type: z.enum(["string", "integer", "number", "boolean", "array", "object"]),
    required: z.boolean().default(false),
    nullable: z.boolean().default(false),
    model_default: z.boolean().default(false),
    default: z.unknown().optional(),
    omitted_behavior: z.enum(["use_default", "model_default", "omit", "invalid"]).default("omit"),
    null_behavior: z.enum(["invalid", "use_default", "model_default", "omit"]).default("invalid"),
    allowed_values: z
      .array(z.union([z.string(), z.number(), z.boolean()]))
      .min(1)
      .optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    min_items: z.number().int().nonnegative().optional(),
    max_items: z.number().int().positive().optional(),
    max_length: z.number().int().positive().optional(),
    description: z.string().optional(),
  })
  .strict()
  .refine((c) => c.minimum === undefined || c.maximum === undefined || c.minimum <= c.maximum, {
    message: "minimum must not exceed maximum",
    path: ["minimum"],
  });
export type Control = z.infer<typeof Control>;

export const PromptSpec = z
  .object({
    limit: z.number().int().positive(),
    unit: z.enum(["characters", "tokens"]).default("characters"),
    overflow: z.enum(["reject", "truncate"]).default("reject"),
    languages: z.array(z.string()).default([]),
    counter: z.enum(["unicode_characters", "utf16_units", "approximate_tokens"]).default("unicode_characters"),
    counter_is_exact: z.boolean().default(true),
    counter_unavailable_behavior: z.enum(["reject", "allow"]).default("reject"),
    required: z.boolean().default(true),
  })
  .strict()
  // A limit is checked in the unit it is published in: tokens with the token counter, characters with a character one.
  .refine((p) => (p.unit === "tokens") === (p.counter === "approximate_tokens"), {
    message: "a limit in tokens needs counter approximate_tokens, and a limit in characters a character counter",
    path: ["counter"],
  })
  .refine((p) => p.counter !== "approximate_tokens" || !p.counter_is_exact, {
    message: "approximate_tokens is a lower bound, not an exact count: set counter_is_exact to false",
    path: ["counter_is_exact"],
  });

const Transport = z
  .object({
    accepted_kinds: z.array(z.enum(["url", "artifact", "data_uri"])).min(1),
    https_only: z.boolean().default(true),
    data_uri_max_encoded_length: z.number().int().positive().optional(),
  })
  .strict();

/** Media inputs of one kind (images, a video, audio, references) for one interface. */
export const InputSpec = z
  .object({
    field: z.string().min(1),
    kind: z.enum(["image", "video", "audio"]),
    minimum_count: z.number().int().nonnegative(),
    public_max_count: z.number().int().nonnegative(),
    native_max_count: z.number().int().nonnegative(),
    formats: z.array(z.string().regex(/^(image|video|audio)\/[a-z0-9.+-]+$/)).min(1),
    hard_constraints: z
      .object({
        max_bytes: z.number().int().positive(),
        edge_pixels: z.object({ minimum: z.number().int().positive(), maximum: z.number().int().positive() }).strict().optional(),
        aspect_ratio: z.object({ minimum: ratio, maximum: ratio }).strict().optional(),
        alpha: z.enum(["allowed", "rejected", "flattened"]).optional(),
        min_duration_seconds: z.number().positive().optional(),
        max_duration_seconds: z.number().positive().optional(),
      })
      .strict(),
    recommendations: z
      .object({ edge_pixels: z.object({ minimum: z.number().int(), maximum: z.number().int() }).strict().optional() })
      .strict()
      .optional(),
    animation: z.record(z.string(), z.enum(["as_provided", "first_frame", "rejected"])).optional(),
    transport: Transport,
    ordering: z.enum(["ordered", "unordered", "single"]).default("ordered"),
    source_aspect_anchor: z.enum(["first", "last", "none"]).optional(),
    roles: z.array(z.string()).optional(),
  })
  .strict()
  .refine((s) => s.minimum_count <= s.public_max_count, {
    message: "minimum_count exceeds public_max_count",
    path: ["minimum_count"],
  })
  .refine((s) => s.public_max_count <= s.native_max_count, {
    message: "public_max_count exceeds native_max_count",
    path: ["public_max_count"],
  });

export const OutputSpec = z
  .object({
    public_max_count: z.number().int().positive(),
    native_max_independent_count: z.number().int().nonnegative(),
    native_max_sequence_count: z.number().int().nonnegative(),
    supported_counts: z.array(z.number().int().positive()).optional(),
    relationships: z.array(z.enum(["independent", "sequence"])).min(1),
    format: z.string().regex(/^(image|video|audio|text|application)\/[a-z0-9.+-]+$/),
    formats: z.array(z.string()).optional(),
  })
  .strict();

const Dim = z.tuple([z.number().int().positive(), z.number().int().positive()]);
export const CanvasSpec = z
  .object({
    default: z.record(z.string(), z.string()),
    preset_tiers: z.array(z.string()).min(1),
    /** tier → aspect → [width, height]; the exact pixels a preset yields. */
    presets: z.record(z.string(), z.record(z.string(), Dim)),
    target: z
      .object({
        supported: z.boolean(),
        minimum_total_pixels: z.number().int().positive(),
        maximum_total_pixels: z.number().int().positive(),
        normalization_multiple: z.number().int().positive(),
        minimum_aspect_ratio: ratio,
        maximum_aspect_ratio: ratio,
        actual_dimensions_may_differ: z.boolean(),
      })
      .strict(),
    source_aspect_anchor: z.enum(["first", "last", "none"]).optional(),
  })
  .strict();

export const Rule = z
  .object({
    id: z.string().min(1),
    description: z.string().optional(),
    when: z
      .array(
        z
          .object({
            field: z.string().min(1),
            operator: z.enum(["equals", "not_equals", "in", "not_in", "present", "absent", "greater_than", "less_than"]),
            value: z.unknown().optional(),
          })
          .strict(),
      )
      .min(1),
    effect: z
      .object({
        type: z.enum(["allow", "reject", "require", "restrict"]),
        field: z.string().min(1),
        value: z.unknown().optional(),
        message: z.string().optional(),
      })
      .strict(),
  })
  .strict();

export const PricingOption = z.object({ dimensions: z.record(z.string(), z.string()), unit_credits: decimal }).strict();

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD");

/** A published price change: from `effective_from` (00:00 UTC) these options replace the ones before. */
export const PriceStep = z
  .object({
    effective_from: isoDate,
    options: z.array(PricingOption).min(1),
    source: z.string().min(1),
    /** As on Pricing: whose price this step is, and why a direct route may bill it when it is a reseller's. */
    source_kind: z.enum(["first_party", "reseller"]),
    estimate_reason: z.string().min(1).optional(),
  })
  .strict();
export type PriceStep = z.infer<typeof PriceStep>;

export const Pricing = z
  .object({
    meter: z.string().min(1),
    unit: z.string().min(1),
    billing_basis: z.string().min(1),
    estimate_formula: z.string().min(1),
    options: z.array(PricingOption).min(1),
    /**
     * Whose price this is: `first_party` is the maker's own list price, `reseller` a host's or a
     * relay's. A direct route (the maker's own API) billing at a reseller's price is an estimate
     * and says why in `estimate_reason`; catalog:check refuses it otherwise.
     */
    source_kind: z.enum(["first_party", "reseller"]),
    estimate_reason: z.string().min(1).optional(),
    /** Published future prices, in date order; `options` is the price before the first of them. */
    schedule: z.array(PriceStep).min(1).optional(),
  })
  .strict()
  .refine(
    (p) => (p.schedule ?? []).every((s, i, all) => i === 0 || (all[i - 1] as PriceStep).effective_from < s.effective_from),
    {
      message: "schedule steps must be in strictly increasing effective_from order",
      path: ["schedule"],
    },
  );

export type Pricing = z.infer<typeof Pricing>;

export const AutoSpec = z
  .object({
    default_model: z.literal("auto"),
    basic_request_preference: z.string().min(1),
    request_dependent: z.boolean(),
    persisted_selection_field: z.literal("resolved_model"),
    description: z.string().min(1),
  })
  .strict();

/** One capability a model offers: the typed interface card, as written in a model file. */
export const InterfaceFile = z
  .object({
    capability: Capability,
    schema_version: z.string().regex(/^[a-z-]+-interface\.v\d+$/),
    quality_tier: z.enum(["economy", "standard", "premium"]),
    status: ModelStatus.optional(),
    /** Lower is preferred by `auto` when the request is basic. */
    auto_rank: z.number().int().nonnegative(),
    controls: z.array(Control).default([]),
    prompt: PromptSpec.optional(),
    inputs: z.array(InputSpec).default([]),
    outputs: OutputSpec.optional(),
    canvas: CanvasSpec.optional(),
    context_window: z.number().int().positive().optional(),
    max_output_tokens: z.number().int().positive().optional(),
    /**
     * The output budget of a task that names none: what the model typically returns for this
     * operation, with room to spare. It is what is reserved and what the upstream is allowed to
     * generate (docs/catalog-data.md, "Reservations").
     */
    default_output_tokens: z.number().int().positive().optional(),
    supported_languages: z.array(z.string()).optional(),
    rules: z.array(Rule).default([]),
    pricing: Pricing,
    /** How long its jobs take (src/catalog/timing.ts): every task-making card has one. */
    timing: Timing.optional(),
  })
  .strict()
  .refine((c) => c.capability === "chat_completion" || c.timing !== undefined, {
    message: "a task-making card needs timing (typical_seconds, stall_after_seconds, min_deadline_seconds)",
    path: ["timing"],
  })
  .refine((c) => minimumWithinDefault(c.capability, c.timing), {
    message: "timing.min_deadline_seconds is longer than the capability's default deadline",
    path: ["timing", "min_deadline_seconds"],
  })
  .refine((c) => !c.default_output_tokens || !c.max_output_tokens || c.default_output_tokens <= c.max_output_tokens, {
    message: "default_output_tokens exceeds max_output_tokens",
    path: ["default_output_tokens"],
  });
export type InterfaceFile = z.infer<typeof InterfaceFile>;

export const Route = z
  .object({
    provider: z.string().regex(/^[a-z][a-z0-9-]*$/),
    upstream_model: z.string().min(1),
    /** The capabilities this route serves, when fewer than the model's (default: all the provider serves). */
    capabilities: z.array(Capability).min(1).optional(),
    /** The upstream's id per capability where it differs (fal's `…/image-to-video` endpoints, for one). */
    upstream_models: z.partialRecord(Capability, z.string().min(1)).optional(),
    /**
     * This route's own price per capability, where it differs from the card's (a reseller's price,
     * a platform's list price): estimates, captures and the catalog use the price of the route that serves.
     */
    pricing: z.partialRecord(Capability, Pricing).optional(),
    /** Where the route's id and price come from. */
    source: z.string().optional(),
    note: z.string().optional(),
  })
  .strict();

/**
 * A provider's deprecation of a model: selectable until `shutdown_at` (auto prefers others), not
 * live from that day, and `catalog:check` fails once the date has passed until the card is updated.
 */
export const Deprecation = z
  .object({
    announced_at: isoDate,
    shutdown_at: isoDate.optional(),
    replacement: z.string().optional(),
    note: z.string().min(1),
    source: z.string().min(1),
  })
  .strict();
export type Deprecation = z.infer<typeof Deprecation>;

export const ModelFile = z
  .object({
    model: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, "model ids are lowercase letters, digits, '.', '_' and '-'"),
    display_name: z.string().min(1),
    owned_by: z.string().min(1),
    description: z.string().min(1),
    status: ModelStatus,
    source: z.string().min(1),
    /** When the card's facts (limits, prices, ids) were last checked against the provider's pages. */
    checked_at: isoDate,
    /** The provider's announced deprecation, when there is one. */
    deprecation: Deprecation.optional(),
    routes: z.array(Route).min(1),
    interfaces: z.array(InterfaceFile).min(1),
  })
  .strict()
  .refine((m) => m.routes.some((r) => r.provider === "sandbox"), {
    message: "every model needs a sandbox route",
    path: ["routes"],
  })
  .refine((m) => new Set(m.interfaces.map((i) => i.capability)).size === m.interfaces.length, {
    message: "a capability appears twice",
    path: ["interfaces"],
  });
export type ModelFile = z.infer<typeof ModelFile>;

export const CapabilityFile = z
  .object({
    capability: Capability,
    endpoint: z.string().regex(/^(GET|POST) \/v1\//),
    input_modality: z.array(Modality).min(1),
    output_modality: Modality,
    execution_mode: z.enum(["async", "sync", "stream"]),
    description: z.string().min(1),
    status: z.enum(["available", "disabled"]),
    lifecycle: z.enum(["preview", "ga"]),
    visibility: z.enum(["public", "internal"]),
    detail_variant: z.enum(["chat", "image", "video", "music", "audio", "understanding", "video_prompt_enhancement"]),
    schema_version: z.string().regex(/^[a-z-]+-interface\.v\d+$/),
    auto: AutoSpec,
  })
  .strict();
export type CapabilityFile = z.infer<typeof CapabilityFile>;

export const VoiceFile = z
  .object({
    voice_id: z.string().min(1).max(128),
    display_name: z.string().min(1),
    category: z.enum(["preset", "cloned"]),
    language: z.string().min(2),
    languages_supported: z.array(z.string().min(2)).min(1),
    gender: z.enum(["male", "female", "neutral"]),
    age: z.enum(["child", "young", "young_adult", "adult", "middle_aged", "senior"]),
    accent: z.string(),
    use_case: z.array(z.string()).min(1),
    /** Sample voices no real upstream has (a cloned voice's demo): only the sandbox can speak them. */
    sample: z.boolean().optional(),
    compatible_models: z.array(z.string()).min(1),
    status: z.enum(["ready", "processing", "failed"]),
    created_at: z.string().datetime(),
    source: z.string().min(1),
  })
  .strict();
export type VoiceFile = z.infer<typeof VoiceFile>;
export const VoicesFile = z.array(VoiceFile).min(1);

/**
 * A provider's own web domains (catalog-data/providers/<provider>.json): a price marked
 * `first_party` must cite a page on one of them (or a subdomain), so a price read off a
 * reseller's page cannot pass as the provider's own.
 */
export const ProviderDomainsFile = z
  .object({
    provider: z.string().regex(/^[a-z][a-z0-9-]*$/),
    domains: z
      .array(z.string().regex(/^(?:[a-z0-9-]+\.)+[a-z]{2,}$/, "a lowercase host name such as openai.com (no scheme or path)"))
      .min(1),
    /** Where the domains are shown to be the provider's own (its site, its API's base URL). */
    source: z.string().min(1),
    checked_at: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD"),
  })
  .strict();
export type ProviderDomainsFile = z.infer<typeof ProviderDomainsFile>;
