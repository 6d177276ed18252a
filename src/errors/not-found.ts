/**
 * The 404s raised at many sites, each worded once here: a caller sees the same answer whichever
 * door or step found the thing missing (or outside its scope, which reads the same).
 */
import { ApiError } from "./api-error";

export function taskNotFound(taskId: string): ApiError {
  return new ApiError("task_not_found", `Task '${taskId}' does not exist.`);
}

export function tenantNotFound(tenantId: string): ApiError {
  return new ApiError("not_found", `Tenant ${tenantId} does not exist.`);
}

export function apiKeyNotFound(keyId: string): ApiError {
  return new ApiError("not_found", `API key ${keyId} does not exist.`);
}

/** A device sign-in's user code that is unknown, used up or expired: all three read the same. */
export function userCodeNotFound(): ApiError {
  return new ApiError("not_found", "That code is not valid or has expired.");
}

/** A request id the log does not hold for the caller (another tenant's, another mode's, or gone). */
export function requestNotFound(requestId: string): ApiError {
  return new ApiError("not_found", `Request '${requestId}' is not in the request log.`);
}
