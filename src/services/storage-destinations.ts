/**
 * Storage destinations of a tenant: its own S3-compatible buckets that task outputs are delivered
 * to. Create (verified by writing and deleting a probe object, the key pair sealed), list, make
 * default, delete. The REST routes (`storage:manage`) and the console's settings page call these.
 * Live only: a test-mode key reaches none of them, reads included, and test tasks never deliver to
 * one (src/keys/mode-scope.ts).
 */

import { accountFor } from "../accounts/account-stub";
import { featuresChanged } from "../accounts/service";
import { recordAudit } from "../audit/audit";
import { type AuditBy, audited } from "../audit/audited";
import type { DestinationRecord } from "../destinations/destination-rows";
import { MAX_DESTINATIONS } from "../destinations/destination-rows";
import { deleteObject, putObject, type S3Answer, type S3Target } from "../destinations/s3";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { taskNotFound, tenantNotFound } from "../errors/not-found";
import { clause } from "../errors/sentence";
import { type ModeScope, requireLive } from "../keys/mode-scope";
import type { TaskScope } from "../keys/scope";
import { newId, randomToken } from "../lib/ids";
import { httpErrorCode, isNetworkCause, networkErrorCode } from "../lib/outbound-cause";
import { checkOutsideUrl, policyFrom } from "../lib/url-policy";
import { taskStub } from "../tasks/task-stub";
export interface NewDestinationInput {
  endpoint: string;
  bucket: string;
  region: string;
  prefix?: string;
  access_key_id: string;
  secret_access_key: string;
  path_style?: boolean;
  default?: boolean;
}

export function destinationView(d: DestinationRecord) {
  return { object: "storage_destination" as const, ...d };
}

function notFound(id: string): ApiError {
  return new ApiError("not_found", `Storage destination ${id} does not exist.`);
}

function invalid(param: string, reason: string): ApiError {
  return new ApiError("invalid_request", `${param.slice(1)} ${reason}.`, {
    param,
    details: { errors: [{ loc: ["body", param.slice(1)], reason }] },
  });
}

/** The outside-URL policy of callbacks (HTTPS, public host; loopback only where configured), and an origin only. */
function checkedEndpoint(env: Env, raw: string): string {
  const verdict = checkOutsideUrl(raw, policyFrom(env));
  if (!verdict.ok) throw invalid("/endpoint", verdict.reason);
  const url = verdict.url;
  if ((url.pathname !== "/" && url.pathname !== "") || url.search || url.hash) {
    throw invalid("/endpoint", "must be an origin without a path, query or fragment (the bucket is its own field)");
  }
  return url.origin;
}

/** The field a refusal points at: what the store's error code says is wrong. */
function paramOf(code: string): string {
  if (["NoSuchBucket", "InvalidBucketName", "PermanentRedirect"].includes(code)) return "/bucket";
  if (["AuthorizationHeaderMalformed", "IllegalLocationConstraintException"].includes(code)) return "/region";
  if (code === "InvalidAccessKeyId") return "/access_key_id";
  if (["SignatureDoesNotMatch"].includes(code)) return "/secret_access_key";
  if (isNetworkCause(code) || code.startsWith("http_")) return "/endpoint";
  return "";
}

/** The probe has this long for each of its two calls: a store that takes longer is not usable now. */
const PROBE_TIMEOUT_MS = 15_000;

/**
 * A probe call that failed, in the class every outside call gives (src/lib/outbound-cause.ts,
 * docs/errors.md): the store refused what was sent (a 4xx: 422, the request must change); the store
 * failed or was not reached (retryable, `details.cause` naming the kind).
 */
function probeFailed(step: "write" | "delete", answer: Extract<S3Answer, { ok: false }>): ApiError {
  const details = {
    reason: "destination_verification_failed",
    step,
    cause: answer.cause,
    bucket_error: { code: answer.code, message: answer.message, http_status: answer.status },
  };
  const param = paramOf(answer.code);
  if (answer.status === null) {
    const code = isNetworkCause(answer.cause) ? networkErrorCode(answer.cause) : "model_unavailable";
    return new ApiError(code, `The bucket could not be reached for the probe object's ${step}: ${answer.message}.`, {
      param,
      details,
    });
  }
  const said = `${answer.code} (${clause(answer.message)})`;
  const failed = httpErrorCode(answer.status);
  if (failed) {
    return new ApiError(failed, `The bucket failed the probe object's ${step} (${answer.cause}): ${said}.`, { param, details });
  }
  return new ApiError("invalid_request", `The bucket refused the probe object's ${step} (${answer.cause}): ${said}.`, {
    param,
    details,
  });
}

/** Writes and deletes a small object under the prefix: the credentials can write there. */
export async function verifyDestination(target: S3Target, prefix: string): Promise<void> {
  const key = `${prefix ? `${prefix}/` : ""}.gateway-probe-${randomToken(8)}`;
  const body = new TextEncoder().encode("storage destination probe\n");
  const written = await putObject(target, key, body, "text/plain", PROBE_TIMEOUT_MS);
  if (!written.ok) throw probeFailed("write", written);
  const deleted = await deleteObject(target, key, PROBE_TIMEOUT_MS);
  if (!deleted.ok) throw probeFailed("delete", deleted);
}

export async function createDestination(env: Env, scope: ModeScope, input: NewDestinationInput, by: AuditBy) {
  requireLive(scope.mode, "storage_destinations");
  const tenantId = scope.tenant_id;
  const endpoint = checkedEndpoint(env, input.endpoint);
  const prefix = (input.prefix ?? "").replace(/^\/+|\/+$/g, "");
  const target: S3Target = {
    endpoint,
    bucket: input.bucket,
    region: input.region,
    path_style: input.path_style ?? false,
    access_key_id: input.access_key_id,
    secret_access_key: input.secret_access_key,
  };
  const account = accountFor(env, tenantId);
  // Refused before any call to the bucket when the tenant has no room for another.
  if ((await account.storageDestinations()).length >= MAX_DESTINATIONS) throw tooMany();
  await verifyDestination(target, prefix);
  const destinationId = newId("dst");
  const result = await account.createStorageDestination(
    { destination_id: destinationId, ...target, prefix, default: input.default ?? false },
    audited(by, "storage_destination.create", destinationId, { endpoint, bucket: input.bucket }),
  );
  if (result.ok) {
    featuresChanged(tenantId);
    return destinationView(result.destination);
  }
  if (result.code === "too_many") throw tooMany();
  throw tenantNotFound(tenantId);
}

function tooMany(): ApiError {
  return new ApiError("conflict", `A tenant has at most ${MAX_DESTINATIONS} storage destinations; delete one first.`, {
    details: { reason: "destination_limit", limit: MAX_DESTINATIONS },
  });
}

export async function listDestinations(env: Env, scope: ModeScope) {
  requireLive(scope.mode, "storage_destinations");
  const list = await accountFor(env, scope.tenant_id).storageDestinations();
  return { object: "list" as const, data: list.map(destinationView), has_more: false as const };
}

export async function getDestination(env: Env, scope: ModeScope, id: string) {
  requireLive(scope.mode, "storage_destinations");
  const d = await accountFor(env, scope.tenant_id).storageDestination(id);
  if (!d) throw notFound(id);
  return destinationView(d);
}

export async function setDefaultDestination(env: Env, scope: ModeScope, id: string, isDefault: boolean, by: AuditBy) {
  requireLive(scope.mode, "storage_destinations");
  const d = await accountFor(env, scope.tenant_id).setDefaultStorageDestination(
    id,
    isDefault,
    audited(by, "storage_destination.update", id, { default: isDefault }),
  );
  if (!d) throw notFound(id);
  featuresChanged(scope.tenant_id);
  return destinationView(d);
}

export async function deleteDestination(env: Env, scope: ModeScope, id: string, by: AuditBy) {
  requireLive(scope.mode, "storage_destinations");
  const d = await accountFor(env, scope.tenant_id).deleteStorageDestination(id, audited(by, "storage_destination.delete", id));
  if (!d) throw notFound(id);
  featuresChanged(scope.tenant_id);
  return { object: "storage_destination" as const, destination_id: id, deleted: true as const };
}

/**
 * "Deliver again" (`POST /v1/tasks/{task_id}/deliveries`, the task page's button): the envelope
 * after one more attempt. 409 unless the task succeeded; 422 when there is no destination to use.
 */
export async function redeliverTask(env: Env, taskId: string, scope: TaskScope, destinationId: string | null, by: AuditBy) {
  requireLive(scope.mode, "storage_destinations");
  const result = await taskStub(env, taskId).redeliver(scope, destinationId);
  switch (result.kind) {
    case "not_found":
      throw taskNotFound(taskId);
    case "not_succeeded":
      throw new ApiError("conflict", "Only a succeeded task's outputs can be delivered.", {
        details: { reason: "task_not_succeeded", task_id: taskId },
      });
    case "test_mode":
      throw new ApiError("conflict", "A test-mode task's outputs are never delivered to a storage destination.", {
        details: { reason: "test_mode_task", task_id: taskId },
      });
    case "no_destination":
      throw new ApiError("invalid_request", "The task has no storage destination and the tenant no default: name one.", {
        param: "/destination_id",
      });
    case "unknown_destination":
      throw new ApiError("invalid_request", `Storage destination '${result.destination_id}' does not exist.`, {
        param: "/destination_id",
      });
    case "ok":
      await recordAudit(
        env,
        scope.tenant_id,
        audited(by, "task.redeliver", taskId, { destination_id: result.envelope.delivery?.destination_id ?? null }),
      );
      return result.envelope;
  }
}
