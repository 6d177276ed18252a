/** A credit figure as every door shows it: a decimal string. */
import { z } from "@hono/zod-openapi";

export { CreditAmountInput } from "../../billing/credit-amount";
export { MaxCredits } from "../../billing/max-credits";

export const credits = (description: string) =>
  z.string().openapi({ description: `${description} (decimal string, up to 9 decimals)`, example: "982.5" });
