/** The error envelope every door answers a refusal with (REST bodies, MCP tool errors). */
import { z } from "@hono/zod-openapi";

export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "invalid_request" }),
      type: z.string().openapi({ example: "invalid_request_error" }),
      message: z.string(),
      retryable: z.boolean(),
      param: z.string().optional().openapi({ description: "JSON Pointer (RFC 6901) to the offending request field" }),
      details: z.record(z.string(), z.unknown()).optional(),
      request_id: z.string(),
    }),
  })
  .openapi("ErrorEnvelope");
