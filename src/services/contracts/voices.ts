/** The voice filter every door accepts (`GET /v1/voices`' query, the `list_voices` tool's arguments). */
import { z } from "@hono/zod-openapi";

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

export type VoiceFilter = z.infer<typeof VoiceQuery>;
