/**
 * API keys as every door shows them: the record (never the secret), a key as issued (the secret,
 * shown once), its limits and its own view with its spend. The operator API and `/v1/keys`
 * answer with these; the console renders the same fields.
 */
import { z } from "@hono/zod-openapi";
import { PERIODS } from "../../accounts/key-period";
import { CreditAmountInput } from "../../billing/credit-amount";
import { CAPABILITIES } from "../../catalog/schema";
import { KEY_MODES, PERMISSIONS } from "../../keys/api-keys";

/** What a key may spend per period and use; every field optional (docs/spend-controls.md). */
export const KeyLimitsInput = z
  .object({
    credits: CreditAmountInput.nullable().optional().openapi({
      description:
        "Credits the key may hold and spend per period (a number or a decimal string); absent or null: no credit limit",
      example: "50",
    }),
    period: z.enum(PERIODS).optional().openapi({
      description:
        "`day`, `week` (from Monday), `month` (from the 1st) — all from 00:00 UTC — or `total` (never resets; the default)",
    }),
    models: z
      .array(z.string().min(1).max(200))
      .max(500)
      .nullable()
      .optional()
      .openapi({ description: "Model ids the key may use; absent or null: every model" }),
    capabilities: z
      .array(z.enum(CAPABILITIES))
      .max(CAPABILITIES.length)
      .nullable()
      .optional()
      .openapi({ description: "Capabilities the key may use (chat is `chat_completion`); absent or null: every capability" }),
  })
  .strict();

export const KeyLimits = z
  .object({
    credits: z.string().optional(),
    period: z.enum(PERIODS),
    models: z.array(z.string()).optional(),
    capabilities: z.array(z.string()).optional(),
  })
  .openapi("ApiKeyLimits");

export const IssuedKey = z
  .object({
    key_id: z.string(),
    api_key: z.string().openapi({ description: "Shown only in this response" }),
    name: z.string().nullable(),
    region: z.string(),
    mode: z.enum(KEY_MODES),
    permissions: z.array(z.enum(PERMISSIONS)),
    limits: KeyLimits.nullable(),
    created_at: z.string(),
  })
  .openapi("IssuedApiKey");

export const KeyRecord = z
  .object({
    key_id: z.string(),
    name: z.string().nullable(),
    prefix: z.string().nullable().openapi({ description: "The key's first characters, e.g. `sk_us_live_Ab3x`" }),
    region: z.string(),
    mode: z.enum(KEY_MODES),
    permissions: z.array(z.enum(PERMISSIONS)),
    status: z.enum(["active", "disabled", "revoked", "expired"]).openapi({
      description: "`disabled`: turned off until enabled again; `expired`: a rotated key whose grace period has ended",
    }),
    limits: KeyLimits.nullable(),
    created_at: z.string(),
    created_by: z.string().nullable().openapi({ description: "The member's email, `operator`, or `api_key:<key_id>`" }),
    last_used_at: z.string().nullable().openapi({ description: "To the minute" }),
    expires_at: z.string().nullable().openapi({ description: "Set by a rotation: when the key stops working" }),
    replaced_by: z.string().nullable().openapi({ description: "The key a rotation issued in its place" }),
    revoked_at: z.string().nullable(),
  })
  .openapi("ApiKey");

/** A key's spend in its current period, against its credit limit. */
export const KeySpendFields = {
  spent_credits: z.string().openapi({ description: "Captured in the current period" }),
  reserved_credits: z.string().openapi({ description: "Held by the key's requests under way" }),
  remaining_credits: z.string().nullable().openapi({ description: "What the key may still hold; null without a credit limit" }),
  period_started_at: z.string().nullable().openapi({ description: "null for a `total` period" }),
  period_resets_at: z.string().nullable().openapi({ description: "null for a `total` period" }),
};

/** `GET /v1/keys/{key_id}`: the record with its spend. */
export const KeyDetail = KeyRecord.extend(KeySpendFields).openapi("ApiKeyDetail");

/** `GET /v1/key`: the calling key's own view. */
export const OwnKey = z
  .object({
    key_id: z.string(),
    name: z.string().nullable(),
    mode: z.enum(KEY_MODES),
    permissions: z.array(z.enum(PERMISSIONS)),
    limits: KeyLimits.nullable(),
    ...KeySpendFields,
  })
  .openapi("OwnApiKey");

export const KeyPage = z
  .object({ object: z.literal("list"), data: z.array(KeyRecord), has_more: z.boolean(), next_cursor: z.string().nullable() })
  .openapi("ApiKeyPage");

export const KeyListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().max(512).optional(),
  })
  .strict();
