/** The balance every door answers with (`GET /v1/balance`, the `get_balance` tool). */
import { z } from "@hono/zod-openapi";
import { KEY_MODES } from "../../keys/api-keys";
import { credits } from "./credits";

/**
 * What a test-mode key is told it has. Test requests are priced at zero and draw on nothing (no
 * separate test ledger: docs/decisions.md), so this figure never changes and never limits; it is
 * there so that a client's check-before-submit runs unchanged in test mode.
 */
export const TEST_MODE_AVAILABLE_CREDITS = "1000000";

export const Balance = z
  .object({
    object: z.literal("balance"),
    mode: z.enum(KEY_MODES).openapi({ description: "The calling key's mode: each mode sees its own balance" }),
    available_credits: credits("What a new request can hold now: grants minus charges minus open holds"),
    reserved_credits: credits("Held for tasks and chat calls not yet settled"),
    currency: z.literal("credits"),
    as_of: z.string().openapi({ description: "ISO 8601 date-time (UTC) the figures were read at" }),
  })
  .openapi("Balance");

export type Balance = z.infer<typeof Balance>;
