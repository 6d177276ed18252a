/** A cost cap as sent: a credit figure, a number or a decimal string (task, batch and chat requests all take one). */
import { CreditAmountInput } from "./credit-amount";

export const MaxCredits = CreditAmountInput.openapi({
  description:
    'The most this request may cost, in credits: a number (2.5) or a decimal string ("2.5"), at most 9 decimals. A concrete model whose estimate is above it is refused (422, param /max_credits); `auto` passes over such models. The charge never exceeds it.',
  example: "2.5",
});
