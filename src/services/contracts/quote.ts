/** A binding price quote (`POST /v1/quotes`, the `get_quote` tool, the SDK's `quote()`). */
import { z } from "@hono/zod-openapi";
import { credits } from "./credits";

export const QuoteLine = z
  .object({
    meter: z
      .string()
      .openapi({ description: "What is counted; the task's usage.lines name the same meters", example: "video_seconds" }),
    quantity: z.string().openapi({ description: "The most the task can use of it (decimal string)", example: "5" }),
    unit: z.string().openapi({ example: "second" }),
    unit_credits: credits("The price of one unit when quoted"),
    credits: credits("quantity × unit_credits"),
  })
  .openapi("QuoteLine");

export const Quote = z
  .object({
    object: z.literal("quote"),
    quote_id: z.string().openapi({ example: "quo_01jd8x3k2m4n5p6q7r8s9t0v1w" }),
    operation: z.string().openapi({ description: "The capability quoted", example: "text_to_video" }),
    resolved_model: z
      .string()
      .openapi({ description: "The model a create with this quote runs on (the `auto` choice, when asked)" }),
    credits: credits("The most the task can cost: what a create reserves, and the most it is charged with this quote"),
    lines: z.array(QuoteLine),
    expires_at: z.string().openapi({ description: "ISO 8601 (UTC): 15 minutes after created_at" }),
    created_at: z.string(),
  })
  .openapi("Quote");
export type Quote = z.infer<typeof Quote>;

export const QuoteRequest = z
  .object({
    operation: z.string().min(1).max(64).openapi({
      description: "The capability to quote, as GET /v1/capabilities names it (text_to_image, text_to_video, text_to_speech, …)",
      example: "text_to_video",
    }),
    request: z.record(z.string(), z.unknown()).openapi({
      description:
        "The create body exactly as it will be sent (without quote_id): validated and resolved as the create is, with the same errors and params.",
      example: { model: "auto", prompt: "A red fox running through snow", duration: 5 },
    }),
  })
  .strict()
  .openapi("QuoteRequest");
