import { ApiError } from "../errors/api-error";
import { sha256Hex } from "../lib/crypto";
import { idempotencyKeyProblem } from "./idempotency-key";

export function requireIdempotencyKey(value: string | undefined): string {
  const problem = value === undefined ? "missing" : idempotencyKeyProblem(value);
  if (value === undefined || problem !== null) {
    const reason =
      problem === "missing"
        ? "the Idempotency-Key header is required on task-creating requests"
        : problem === "length"
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
