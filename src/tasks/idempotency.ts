import { ApiError } from "../errors/api-error";
import { sha256Hex } from "../lib/crypto";

/** Printable ASCII, 1 to 128 characters (the spec's limit). */
const KEY_PATTERN = /^[\x20-\x7e]{1,128}$/;

export function requireIdempotencyKey(value: string | undefined): string {
  if (value === undefined || !KEY_PATTERN.test(value)) {
    const reason =
      value === undefined
        ? "the Idempotency-Key header is required on task-creating requests"
        : value.length === 0 || value.length > 128
          ? "must be 1 to 128 characters"
          : "must be printable ASCII";
    throw new ApiError("invalid_request", `Idempotency-Key: ${reason}.`, {
      details: { errors: [{ loc: ["header", "idempotency-key"], reason }] },
    });
  }
  return value;
}

/** JSON with object keys sorted at every depth: equal bodies hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

export function requestHash(operation: string, body: unknown): Promise<string> {
  return sha256Hex(`${operation}\n${canonicalJson(body)}`);
}
