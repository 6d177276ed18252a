/** The error responses of the OpenAPI routes; the response shapes themselves are src/services/contracts/. */
import { ErrorEnvelope } from "../services/contracts/error-envelope";

/** The error responses a route can give, each with the envelope. */
export function errorResponses(...statuses: number[]) {
  const out: Record<number, { description: string; content: { "application/json": { schema: typeof ErrorEnvelope } } }> = {};
  for (const s of statuses) out[s] = { description: `Error (${s})`, content: { "application/json": { schema: ErrorEnvelope } } };
  return out;
}
