/** Request pieces shared by the task-creating operations. */
import { z } from "@hono/zod-openapi";
import { MaxCredits } from "../billing/max-credits";
import { dec } from "../lib/decimal";
import { REQUEST_RETENTION_DESCRIPTION, RetentionDays } from "../retention/days";
import { ModelsList } from "../routing/models-list";
import { ProviderPreferences } from "../routing/preferences";
import { DeadlineSecondsField } from "./deadline-request";

export const Metadata = z
  .record(
    z.string().min(1).max(64, "metadata keys are at most 64 characters"),
    z.string().max(512, "metadata values are at most 512 characters"),
  )
  .refine((m) => Object.keys(m).length <= 16, "metadata has at most 16 keys")
  .openapi({ description: "String-to-string map echoed on the task (at most 16 keys; key ≤ 64, value ≤ 512 characters)" });

export const commonTaskFields = {
  metadata: Metadata.optional(),
  callback_url: z.string().max(2048).optional().openapi({
    description: "HTTPS URL that receives the final task envelope by POST",
    example: "https://example.com/hooks/tasks",
  }),
  callback_signing_key_id: z
    .string()
    .max(64)
    .optional()
    .openapi({ description: "Sign deliveries per Standard Webhooks with this key; requires callback_url" }),
  max_credits: MaxCredits.optional(),
  deadline_seconds: DeadlineSecondsField.optional(),
  output_destination_id: z.string().min(1).max(64).optional().openapi({
    description:
      "Write every output to this storage destination (`POST /v1/storage-destinations`) before the task succeeds; default: the tenant's default destination, if any",
    example: "dst_0123456789abcdefghjkmnpqrs",
  }),
  quote_id: z.string().min(1).max(64).optional().openapi({
    description:
      "A quote from POST /v1/quotes for this same body (without quote_id): the task runs on the quoted resolved_model and is charged at most the quote's credits. A quote lives 15 minutes and serves one task.",
    example: "quo_01jd8x3k2m4n5p6q7r8s9t0v1w",
  }),
  output_retention_days: RetentionDays.optional().openapi({ description: REQUEST_RETENTION_DESCRIPTION }),
  models: ModelsList.optional(),
  provider: ProviderPreferences.optional(),
};

const ModelId = z.string().min(1).max(128);

/** `model` where the spec lets it default to `auto`; the description says what `auto` picks. */
export const ModelField = (
  auto = "the service picks a compatible live model",
  concrete = "a concrete model id of this capability from the catalog",
) =>
  ModelId.default("auto").openapi({
    description: `Default \`auto\`: ${auto} (the choice is returned as \`resolved_model\`). Or ${concrete}.`,
    example: "auto",
  });

/** `model` where the spec makes it required: no default, `auto` must be asked for (or a `models` list sent instead). */
export const RequiredModelField = (concrete: string) =>
  ModelId.optional().openapi({
    description: `Required unless \`models\` is sent, no default: \`auto\` or ${concrete}.`,
    example: "auto",
  });

/** The check that goes with RequiredModelField: a missing `model` is refused as any missing field is, unless `models` stands in. */
export function requireModel(b: { model?: string; models?: string[] }, ctx: z.RefinementCtx): void {
  if (b.model === undefined && b.models === undefined) {
    ctx.addIssue({ code: "invalid_type", expected: "string", path: ["model"], input: undefined, message: "Required" });
  }
}

export const Prompt = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => s.trim().length > 0, "must contain at least one non-whitespace character");

const RATIO = /^\d{1,3}(\.\d{1,3})?:\d{1,3}(\.\d{1,3})?$/;

export const Canvas = z
  .discriminatedUnion("type", [
    z
      .object({
        type: z.literal("preset"),
        tier: z.string().min(1).max(16).openapi({ example: "2K" }),
        aspect: z
          .string()
          .refine((a) => a === "source" || RATIO.test(a), "must be a ratio such as 16:9, or source")
          .openapi({ example: "16:9" }),
      })
      .strict(),
    z
      .object({
        type: z.literal("target"),
        width: z.number().int().min(64).max(16384),
        height: z.number().int().min(64).max(16384),
      })
      .strict(),
  ])
  .openapi("Canvas");

const WEIGHT = /^(0(\.\d{1,4})?|1(\.0{1,4})?)$/;

export const PaletteEntry = z
  .object({
    color: z.string().regex(/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, "must be a hex colour such as #1e90ff"),
    weight: z.number().min(0).max(1),
  })
  .strict()
  .openapi("PaletteEntry");

export const Palette = z
  .array(PaletteEntry)
  .min(3)
  .max(10)
  .superRefine((entries, ctx) => {
    // Weights are decimals: 0.1 + 0.2 + 0.7 is exactly 1.0000 here, as it is to the client.
    const texts = entries.map((e) => String(e.weight));
    texts.forEach((t, i) => {
      if (!WEIGHT.test(t))
        ctx.addIssue({ code: "custom", path: [i, "weight"], message: "weights have at most 4 decimal places" });
    });
    const total = texts.reduce((acc, t) => (WEIGHT.test(t) ? acc.plus(t) : acc), dec(0));
    if (texts.every((t) => WEIGHT.test(t)) && !total.eq(1)) {
      ctx.addIssue({ code: "custom", message: `palette weights must sum to exactly 1.0000 (they sum to ${total.toFixed(4)})` });
    }
  });
