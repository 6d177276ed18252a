/** A tenant's own provider key, as written and as read (never the key itself: `last4` only). */
import { z } from "@hono/zod-openapi";

export const ProviderKeyInput = z
  .object({
    api_key: z.string().min(1).max(4096).optional().openapi({
      description:
        "The provider's API key; never shown again (`last4` only). Absent: the stored key is kept and only its mode, models and failover change",
    }),
    base_url: z.string().max(2048).nullable().optional().openapi({
      description: "The provider's host for this key (HTTPS, public; default: the provider's documented host)",
    }),
    mode: z.enum(["prefer", "fallback", "only"]).openapi({
      description:
        "`prefer`: its routes first, then the platform's; `fallback`: after the platform's routes; `only`: never the platform's key for this provider",
    }),
    models: z.array(z.string().max(200)).max(200).nullable().optional().openapi({
      description: "The catalog models it serves (each with a route to the provider); absent or null: every such model",
    }),
    failover: z.boolean().optional().openapi({
      description: "With `only`: whether a task may move to other providers' routes of the same model (default true)",
    }),
  })
  .strict();

export const ProviderKey = z
  .object({
    object: z.literal("provider_key"),
    provider: z.string(),
    mode: z.enum(["prefer", "fallback", "only"]),
    models: z.array(z.string()).nullable(),
    failover: z.boolean(),
    base_url: z.string().nullable(),
    last4: z.string().openapi({ description: "The key's last four characters" }),
    status: z.enum(["active", "unchecked", "invalid"]).openapi({
      description:
        "`active`: the provider accepted it when it was put; `unchecked`: stored and used, but the provider documents no call to check a key with (the first task tells); `invalid`: the provider refused it on a task (401, 403, quota); tasks no longer use it until it is replaced",
    }),
    status_reason: z.string().nullable().openapi({
      description: "Why it is invalid or unchecked, or what its check warned of (an account without credit); null otherwise",
    }),
    created_at: z.string(),
    updated_at: z.string(),
    last_used_at: z.string().nullable().openapi({ description: "When a task last called the provider with it" }),
    warnings: z
      .array(z.object({ code: z.string(), message: z.string(), field: z.string() }))
      .optional()
      .openapi({
        description:
          "On the answer to a PUT with `api_key` only: what the provider's check found besides accepting the key, e.g. `provider_key_no_credit` (a valid key whose account has no credit: tasks on it are refused until it is topped up)",
      }),
  })
  .openapi("ProviderKey");

export const ProviderKeyList = z
  .object({ object: z.literal("list"), data: z.array(ProviderKey), has_more: z.literal(false) })
  .openapi("ProviderKeyList");

export const DeletedProviderKey = z
  .object({ object: z.literal("provider_key"), provider: z.string(), deleted: z.literal(true) })
  .openapi("DeletedProviderKey");
