/**
 * Routes answered without the router (src/index.ts sends them here by their path): the busiest
 * ones, which would otherwise pay for matching against every route of the API and a middleware
 * chain on each call. Each does the steps of its declared route, in its order, with the same
 * answers: the request id, the key and its permission, the error envelope, the rate headers, and
 * the drain of a body refused before its end.
 */

import type { Permission } from "../accounts/api-keys";
import type { RateState } from "../accounts/rate-limit";
import { authenticate, type Caller, rateHeaders } from "../accounts/service";
import type { Env } from "../env";
import { requirePermission } from "./auth";
import { errorResponse, toApiError } from "./error-response";
import { requestIdOf } from "./request-id";
import { drainRequest } from "./unread-body";

export interface DirectCall {
  requestId: string;
  /** The calling key, refused (401/403) unless valid and holding `permission`. */
  caller(permission: Permission | null): Promise<Caller>;
}

export async function answerDirectly(
  request: Request,
  env: Env,
  ctx: ExecutionContext,
  answer: (call: DirectCall) => Promise<Response>,
): Promise<Response> {
  const requestId = requestIdOf(request.headers.get("X-Request-Id"));
  let rate: RateState | null = null;
  const call: DirectCall = {
    requestId,
    async caller(permission) {
      const caller = await authenticate(env, request.headers.get("Authorization") ?? undefined, (p) => ctx.waitUntil(p));
      rate = caller.rate;
      requirePermission(caller, permission);
      return caller;
    },
  };
  let response: Response;
  try {
    response = await answer(call);
  } catch (err) {
    response = errorResponse(toApiError(err, requestId), requestId);
  }
  await drainRequest(request);
  if (rate) for (const [k, v] of Object.entries(rateHeaders(rate))) response.headers.set(k, v);
  response.headers.set("X-Request-Id", requestId);
  return response;
}
