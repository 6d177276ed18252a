/** A cost cap as sent: a decimal credit figure (task, batch and chat requests all take one). */
import { z } from "@hono/zod-openapi";

export const MaxCredits = z
  .string()
  .regex(/^\d{1,12}(\.\d{1,9})?$/, "must be a non-negative decimal string with at most 9 decimals")
  .openapi({
    description:
      "The most this request may cost, in credits (decimal string). A concrete model whose estimate is above it is refused (422, param /max_credits); `auto` passes over such models. The charge never exceeds it.",
    example: "2.5",
  });
