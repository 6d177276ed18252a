/**
 * API keys as every door shows them: the record (never the secret), and a key as issued (the
 * secret, shown once). The operator API answers with these; the console renders the same fields.
 */
import { z } from "@hono/zod-openapi";
import { KEY_MODES, PERMISSIONS } from "../../accounts/api-keys";

export const IssuedKey = z
  .object({
    key_id: z.string(),
    api_key: z.string().openapi({ description: "Shown only in this response" }),
    name: z.string().nullable(),
    region: z.string(),
    mode: z.enum(KEY_MODES),
    permissions: z.array(z.enum(PERMISSIONS)),
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
    status: z.enum(["active", "revoked", "expired"]).openapi({
      description: "`expired`: a rotated key whose grace period has ended",
    }),
    created_at: z.string(),
    created_by: z.string().nullable().openapi({ description: "The member's email, or `operator`" }),
    last_used_at: z.string().nullable().openapi({ description: "To the minute" }),
    expires_at: z.string().nullable().openapi({ description: "Set by a rotation: when the key stops working" }),
    replaced_by: z.string().nullable().openapi({ description: "The key a rotation issued in its place" }),
    revoked_at: z.string().nullable(),
  })
  .openapi("ApiKey");
