/**
 * The Idempotency-Key rule every door applies: 1 to 128 printable ASCII characters, one key space
 * per tenant and key mode (REST's header, MCP's `idempotency_key` argument, the console form's key).
 */
import { z } from "@hono/zod-openapi";

export const IDEMPOTENCY_KEY_MAX_LENGTH = 128;
const PRINTABLE_ASCII = "^[\\x20-\\x7e]+$";

/** What is wrong with a key, or null when it keeps the rule. */
export function idempotencyKeyProblem(value: string): "length" | "characters" | null {
  if (value.length === 0 || value.length > IDEMPOTENCY_KEY_MAX_LENGTH) return "length";
  return new RegExp(PRINTABLE_ASCII).test(value) ? null : "characters";
}

/** The rule as a zod string, for the documents that describe it (OpenAPI, tool schemas). */
export const IdempotencyKeyString = z.string().min(1).max(IDEMPOTENCY_KEY_MAX_LENGTH).regex(new RegExp(PRINTABLE_ASCII));

/** The rule as JSON Schema, for the MCP tools' argument. */
export const IDEMPOTENCY_KEY_JSON_SCHEMA = {
  type: "string",
  minLength: 1,
  maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
  pattern: PRINTABLE_ASCII,
} as const;
