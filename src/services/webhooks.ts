/**
 * Webhook endpoints of a tenant: create (the secret shown once), list, read, change, delete. The
 * REST routes (`webhooks:manage`) call these, and so does the console; the caller's tenant is the
 * only one reached, so another tenant's endpoint is as unknown as one that does not exist. So is
 * another key mode's endpoint or delivery (src/keys/mode-scope.ts): each takes the caller's
 * scope, a key's mode or a console session's both.
 */

import { accountFor } from "../accounts/account-stub";
import { featuresChanged, rateHeaders } from "../accounts/service";
import { type AuditBy, audited } from "../audit/audited";
import { batchStubOf } from "../batches/batch-stub";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { tenantNotFound } from "../errors/not-found";
import { type ModeScope, modeOfNew, modeVisible } from "../keys/mode-scope";
import { newId } from "../lib/ids";
import { causeInText } from "../lib/outbound-cause";
import { cursorTag, decodeCursor, encodeCursor } from "../lib/page-cursor";
import { checkOutsideUrl, policyFrom } from "../lib/url-policy";
import { taskStub } from "../tasks/task-stub";
import type { LoggedDelivery, LoggedStatus } from "../webhooks/delivery-log";
import { MAX_ENDPOINTS, type WebhookEndpointRecord } from "../webhooks/endpoint-rows";
import type { Subscription } from "../webhooks/event-types";
import {
  PACING_MS,
  RECOVER_PER_CALL,
  SEND_WINDOW_MS,
  type SendBudget,
  type SendGrant,
  type SendKind,
} from "../webhooks/send-budget";

export type { LoggedStatus } from "../webhooks/delivery-log";
export { SUBSCRIPTIONS } from "../webhooks/event-types";
export interface NewEndpointInput {
  url: string;
  events: string[];
  description?: string | null;
  enabled?: boolean;
}

export interface EndpointChangeInput {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

export function endpointView(e: WebhookEndpointRecord) {
  return { object: "webhook_endpoint" as const, ...e };
}

function notFound(endpointId: string): ApiError {
  return new ApiError("not_found", `Webhook endpoint ${endpointId} does not exist.`);
}

/** The outside-URL policy of callbacks: HTTPS to a public host (loopback only where configured). */
function checkedUrl(env: Env, url: string): string {
  const verdict = checkOutsideUrl(url, policyFrom(env));
  if (!verdict.ok) {
    throw new ApiError("invalid_request", `url ${verdict.reason}.`, {
      param: "/url",
      details: { errors: [{ loc: ["body", "url"], reason: verdict.reason }] },
    });
  }
  return verdict.url.toString();
}

/** `*` alone stands for every type: a list naming it with others is stored as `["*"]`. */
function subscriptions(events: string[]): Subscription[] {
  return (events.includes("*") ? ["*"] : events) as Subscription[];
}

export async function createEndpoint(env: Env, scope: ModeScope, input: NewEndpointInput, by: AuditBy) {
  const tenantId = scope.tenant_id;
  const url = checkedUrl(env, input.url);
  const endpointId = newId("we");
  const result = await accountFor(env, tenantId).createWebhookEndpoint(
    {
      endpoint_id: endpointId,
      mode: modeOfNew(scope),
      url,
      description: input.description ?? null,
      events: subscriptions(input.events),
      enabled: input.enabled ?? true,
    },
    audited(by, "webhook_endpoint.create", endpointId, { url }),
  );
  if (result.ok) {
    featuresChanged(tenantId);
    return { ...endpointView(result.endpoint), secret: result.secret };
  }
  if (result.code === "too_many") {
    throw new ApiError("conflict", `A tenant has at most ${MAX_ENDPOINTS} webhook endpoints per key mode; delete one first.`, {
      details: { reason: "endpoint_limit", limit: MAX_ENDPOINTS },
    });
  }
  throw tenantNotFound(tenantId);
}

export async function listEndpoints(env: Env, scope: ModeScope) {
  const endpoints = await accountFor(env, scope.tenant_id).webhookEndpoints(scope.mode === "both" ? undefined : scope.mode);
  return { object: "list" as const, data: endpoints.map(endpointView), has_more: false as const };
}

/** The endpoint if it is within the caller's scope: another mode's is as unknown as none (404). */
async function ownEndpoint(env: Env, scope: ModeScope, endpointId: string) {
  const endpoint = await accountFor(env, scope.tenant_id).webhookEndpoint(endpointId);
  return endpoint && modeVisible(scope, endpoint.mode) ? endpoint : null;
}

export async function getEndpoint(env: Env, scope: ModeScope, endpointId: string) {
  const endpoint = await ownEndpoint(env, scope, endpointId);
  if (!endpoint) throw notFound(endpointId);
  return endpointView(endpoint);
}

export async function updateEndpoint(env: Env, scope: ModeScope, endpointId: string, input: EndpointChangeInput, by: AuditBy) {
  if (!(await ownEndpoint(env, scope, endpointId))) throw notFound(endpointId);
  const tenantId = scope.tenant_id;
  const change = {
    ...(input.url !== undefined ? { url: checkedUrl(env, input.url) } : {}),
    ...(input.events !== undefined ? { events: subscriptions(input.events) } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
  };
  const endpoint = await accountFor(env, tenantId).updateWebhookEndpoint(
    endpointId,
    change,
    audited(by, "webhook_endpoint.update", endpointId, { fields: Object.keys(change) }),
  );
  if (!endpoint) throw notFound(endpointId);
  return endpointView(endpoint);
}

export async function deleteEndpoint(env: Env, scope: ModeScope, endpointId: string, by: AuditBy) {
  if (!(await ownEndpoint(env, scope, endpointId))) throw notFound(endpointId);
  const tenantId = scope.tenant_id;
  const endpoint = await accountFor(env, tenantId).deleteWebhookEndpoint(
    endpointId,
    audited(by, "webhook_endpoint.delete", endpointId),
  );
  if (!endpoint) throw notFound(endpointId);
  featuresChanged(tenantId);
  return { object: "webhook_endpoint" as const, endpoint_id: endpointId, deleted: true as const };
}

function deliveryView({ mode: _, ...d }: LoggedDelivery) {
  return { object: "webhook_delivery" as const, ...d };
}

export interface DeliveryListInput {
  endpoint_id?: string;
  task_id?: string;
  status?: LoggedStatus;
  limit: number;
  cursor?: string;
}

/** `GET /v1/webhook-deliveries`: the deliveries of the caller's mode, callbacks included, newest first. */
export async function listDeliveries(env: Env, scope: ModeScope, q: DeliveryListInput) {
  const tenantId = scope.tenant_id;
  const tag = await cursorTag("webhook-delivery-cursor", tenantId);
  let after: { created_at: string; delivery_id: string } | undefined;
  if (q.cursor) {
    const at = decodeCursor(q.cursor, tag);
    after = { created_at: at.created_at, delivery_id: at.id };
  }
  const page = await accountFor(env, tenantId).webhookDeliveryLog({
    limit: q.limit,
    ...(scope.mode !== "both" ? { mode: scope.mode } : {}),
    ...(q.endpoint_id !== undefined ? { endpoint_id: q.endpoint_id } : {}),
    ...(q.task_id !== undefined ? { task_id: q.task_id } : {}),
    ...(q.status !== undefined ? { status: q.status } : {}),
    ...(after ? { after } : {}),
  });
  const last = page.rows[page.rows.length - 1];
  const next = page.has_more && last ? encodeCursor(tag, last.created_at, last.delivery_id) : null;
  return { object: "list" as const, data: page.rows.map(deliveryView), has_more: page.has_more, next_cursor: next };
}

type TaskDelivery = NonNullable<Awaited<ReturnType<ReturnType<typeof taskStub>["webhookDelivery"]>>>;

/** Where a delivery and its attempts are kept: its task's object, or the account (an endpoint's own event). */
function holderOf(env: Env, tenantId: string, taskId: string | null) {
  // A batch's `batch.completed` deliveries are held by its batch object.
  const batch = taskId?.startsWith("batch_") ? batchStubOf(env, taskId) : null;
  if (batch) {
    return {
      webhookDelivery: async (id: string): Promise<TaskDelivery | null> => batch.webhookDelivery(id),
      resendWebhookDelivery: async (id: string, wait: boolean): Promise<TaskDelivery | null> =>
        batch.resendWebhookDelivery(id, wait),
      requeueWebhookDelivery: (id: string, atMs: number) => batch.requeueWebhookDelivery(id, atMs),
    };
  }
  if (taskId !== null) return taskStub(env, taskId);
  const account = accountFor(env, tenantId);
  return {
    webhookDelivery: async (id: string): Promise<TaskDelivery | null> => account.webhookDelivery(id),
    resendWebhookDelivery: async (id: string, wait: boolean): Promise<TaskDelivery | null> =>
      account.resendWebhookDelivery(id, wait),
    requeueWebhookDelivery: (id: string, atMs: number) => account.requeueWebhookDelivery(id, atMs),
  };
}

function detailView(logged: LoggedDelivery, d: TaskDelivery) {
  return {
    ...deliveryView(logged),
    status: d.status === "delivering" ? ("pending" as const) : d.status,
    finished_at: d.finished_at,
    attempt_count: d.attempt_count,
    next_attempt_at: d.next_attempt_at === null ? null : new Date(d.next_attempt_at).toISOString(),
    last_error: d.last_error,
    attempts: d.attempts.map(({ delivery_id: _, ...a }) => ({ ...a, cause: causeInText(a.error) })),
  };
}

async function loggedOr404(env: Env, scope: ModeScope, deliveryId: string): Promise<LoggedDelivery> {
  const logged = await accountFor(env, scope.tenant_id).webhookDeliveryLogged(deliveryId);
  if (!logged || !modeVisible(scope, logged.mode))
    throw new ApiError("not_found", `Webhook delivery ${deliveryId} does not exist.`);
  return logged;
}

/** One delivery with every attempt, read from the task object that made them. */
export async function getDelivery(env: Env, scope: ModeScope, deliveryId: string) {
  const tenantId = scope.tenant_id;
  const logged = await loggedOr404(env, scope, deliveryId);
  const d = await holderOf(env, tenantId, logged.task_id).webhookDelivery(deliveryId);
  if (!d) throw new ApiError("not_found", `Webhook delivery ${deliveryId} does not exist.`);
  return detailView(logged, d);
}

/** 409 unless the endpoint can be sent to: deleted or disabled, nothing would go out. */
async function sendableEndpoint(env: Env, scope: ModeScope, endpointId: string, missing: "not_found" | "conflict") {
  const endpoint = await ownEndpoint(env, scope, endpointId);
  if (!endpoint) {
    if (missing === "not_found") throw notFound(endpointId);
    throw new ApiError("conflict", `Webhook endpoint ${endpointId} was deleted: nothing can be sent to it.`, {
      details: { reason: "endpoint_deleted" },
    });
  }
  if (!endpoint.enabled) {
    throw new ApiError("conflict", `Webhook endpoint ${endpointId} is disabled; enable it first (PATCH {"enabled": true}).`, {
      details: { reason: "endpoint_disabled" },
    });
  }
  return endpoint;
}

/**
 * Sends asked for by hand spend the endpoint's and the tenant's hourly budgets
 * (src/webhooks/send-budget.ts), taken in the account object so that concurrent calls cannot pass
 * them: a call that would get none is refused with 429 `rate_limited`, naming the budget.
 */
async function takeSends(
  env: Env,
  tenantId: string,
  g: { endpoint_id: string | null; kind: SendKind; wanted: number; paced: boolean },
  what: string,
): Promise<SendGrant> {
  const grant = await accountFor(env, tenantId).takeWebhookSends(g);
  if (grant.granted > 0) return grant;
  const budget =
    grant.limited_by === "endpoint"
      ? `the endpoint's budget of ${grant.limit} sends by hand per hour`
      : `the tenant's budget of ${grant.limit} webhook sends by hand per hour`;
  throw new ApiError(
    "rate_limited",
    `${what} would pass ${budget} (resends, recovers and test events together); retry after ${grant.retry_after} s.`,
    {
      retryAfter: grant.retry_after,
      headers: rateHeaders({ limit: grant.limit, remaining: 0, reset: grant.retry_after }),
      details: {
        budget: grant.limited_by === "endpoint" ? "webhook_endpoint_sends" : "tenant_webhook_sends",
        limit: grant.limit,
        window_seconds: SEND_WINDOW_MS / 1000,
        ...(g.endpoint_id !== null && grant.limited_by === "endpoint" ? { endpoint_id: g.endpoint_id } : {}),
      },
    },
  );
}

/** `POST /v1/webhook-deliveries/{id}/resend`: one more attempt now, same `webhook-id`; answers the delivery after it. */
export async function resendDelivery(env: Env, scope: ModeScope, deliveryId: string, by: AuditBy) {
  const tenantId = scope.tenant_id;
  const logged = await loggedOr404(env, scope, deliveryId);
  if (logged.endpoint_id !== null) await sendableEndpoint(env, scope, logged.endpoint_id, "conflict");
  const account = accountFor(env, tenantId);
  const grant = await takeSends(
    env,
    tenantId,
    { endpoint_id: logged.endpoint_id, kind: "resend", wanted: 1, paced: false },
    "This resend",
  );
  await account.recordAudit(audited(by, "webhook_delivery.resend", deliveryId));
  const d = await holderOf(env, tenantId, logged.task_id).resendWebhookDelivery(deliveryId, true);
  if (!d) {
    await account.settleWebhookSends(grant.grant_id, 0, null);
    throw new ApiError("not_found", `Webhook delivery ${deliveryId} does not exist.`);
  }
  return detailView(logged, d);
}

/** How far back a recover reaches. */
export const RECOVER_WINDOW_MS = 7 * 24 * 3600 * 1000;

/**
 * `POST /v1/webhook-endpoints/{id}/recover`: the deliveries to the endpoint since `since` that
 * failed are sent again (same `webhook-id`), each by the alarm of the object holding it; those
 * still pending (a retry scheduled or under way) are skipped, so recovering again sends nothing
 * twice. At most RECOVER_PER_CALL per call and what the budgets allow; the rest is counted in
 * `left_out`. Queued deliveries are due PACING_MS apart, after any recover still under way.
 */
export async function recoverEndpoint(env: Env, scope: ModeScope, endpointId: string, since: string, by: AuditBy) {
  const tenantId = scope.tenant_id;
  const sinceMs = Date.parse(since);
  const now = Date.now();
  if (Number.isNaN(sinceMs) || sinceMs > now || sinceMs < now - RECOVER_WINDOW_MS) {
    const reason = Number.isNaN(sinceMs) ? "must be an ISO 8601 date-time" : "must be within the last 7 days";
    throw new ApiError("invalid_request", `since ${reason}.`, {
      param: "/since",
      details: { errors: [{ loc: ["body", "since"], reason }] },
    });
  }
  await sendableEndpoint(env, scope, endpointId, "not_found");
  const sinceIso = new Date(sinceMs).toISOString();
  const account = accountFor(env, tenantId);
  const found = await account.webhookDeliveriesToRecover(endpointId, sinceIso, RECOVER_PER_CALL);
  let queued = 0;
  let pending = found.pending;
  let tried = 0;
  let limitedBy: SendBudget | null = null;
  if (found.failed.length > 0) {
    const grant = await takeSends(
      env,
      tenantId,
      { endpoint_id: endpointId, kind: "recover", wanted: found.failed.length, paced: true },
      "This recover",
    );
    limitedBy = grant.limited_by;
    const chosen = found.failed.slice(0, grant.granted);
    tried = chosen.length;
    let last = -1;
    // A few objects at a time: each only marks its delivery due at its paced time and sets its alarm.
    for (let i = 0; i < chosen.length; i += 20) {
      const outcomes = await Promise.all(
        chosen
          .slice(i, i + 20)
          .map((r, j) =>
            holderOf(env, tenantId, r.task_id).requeueWebhookDelivery(r.delivery_id, grant.start_at + (i + j) * PACING_MS),
          ),
      );
      outcomes.forEach((o, j) => {
        if (o === "queued") {
          queued++;
          last = i + j;
        } else if (o === "pending") pending++;
      });
    }
    await account.settleWebhookSends(grant.grant_id, queued, grant.start_at + (last + 1) * PACING_MS);
  }
  const leftOut = found.failed_total - tried;
  await account.recordAudit(
    audited(by, "webhook_endpoint.recover", endpointId, {
      since: sinceIso,
      deliveries: queued,
      skipped_pending: pending,
      left_out: leftOut,
    }),
  );
  return {
    object: "webhook_recovery" as const,
    endpoint_id: endpointId,
    since: sinceIso,
    deliveries: queued,
    skipped_pending: pending,
    left_out: leftOut,
    limited_by:
      leftOut === 0
        ? null
        : limitedBy === "endpoint"
          ? ("endpoint_budget" as const)
          : limitedBy === "tenant"
            ? ("tenant_budget" as const)
            : ("per_call" as const),
    has_more: leftOut > 0,
  };
}

export const DEFAULT_OVERLAP_SECONDS = 86_400;

/** `POST /v1/webhook-endpoints/{id}/rotate-secret`: the new secret, shown once; both sign during the overlap. */
export async function rotateEndpointSecret(
  env: Env,
  scope: ModeScope,
  endpointId: string,
  overlapSeconds: number = DEFAULT_OVERLAP_SECONDS,
  by: AuditBy,
) {
  if (!(await ownEndpoint(env, scope, endpointId))) throw notFound(endpointId);
  const tenantId = scope.tenant_id;
  const result = await accountFor(env, tenantId).rotateWebhookSecret(
    endpointId,
    overlapSeconds * 1000,
    audited(by, "webhook_endpoint.rotate_secret", endpointId, { overlap_seconds: overlapSeconds }),
  );
  if (!result) throw notFound(endpointId);
  return { ...endpointView(result.endpoint), secret: result.secret };
}

/**
 * "Send test event": a `webhook.test` event to one endpoint, attempted at once; answers the
 * delivery with that attempt (a failure retries on the schedule, as any event does).
 */
export async function sendTestEvent(env: Env, scope: ModeScope, endpointId: string, by: AuditBy) {
  const tenantId = scope.tenant_id;
  await sendableEndpoint(env, scope, endpointId, "not_found");
  const grant = await takeSends(
    env,
    tenantId,
    { endpoint_id: endpointId, kind: "test", wanted: 1, paced: false },
    "This test event",
  );
  const sent = await accountFor(env, tenantId).sendTestWebhook(endpointId, audited(by, "webhook_endpoint.test", endpointId));
  if (!sent) {
    await accountFor(env, tenantId).settleWebhookSends(grant.grant_id, 0, null);
    throw notFound(endpointId);
  }
  return getDelivery(env, scope, sent.delivery_id);
}
