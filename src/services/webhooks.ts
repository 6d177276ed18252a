/**
 * Webhook endpoints of a tenant: create (the secret shown once), list, read, change, delete. The
 * REST routes (`webhooks:manage`) call these, and so will the console; the caller's tenant is the
 * only one reached, so another tenant's endpoint is as unknown as one that does not exist.
 */
import { type AuditBy, accountFor, audited } from "../accounts/service";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { newId } from "../lib/ids";
import { checkOutsideUrl, policyFrom } from "../lib/url-policy";
import { MAX_ENDPOINTS, type WebhookEndpointRecord } from "../webhooks/endpoint-rows";
import type { Subscription } from "../webhooks/event-types";

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

export async function createEndpoint(env: Env, tenantId: string, input: NewEndpointInput, by: AuditBy) {
  const url = checkedUrl(env, input.url);
  const endpointId = newId("we");
  const result = await accountFor(env, tenantId).createWebhookEndpoint(
    {
      endpoint_id: endpointId,
      url,
      description: input.description ?? null,
      events: subscriptions(input.events),
      enabled: input.enabled ?? true,
    },
    audited(by, "webhook_endpoint.create", endpointId, { url }),
  );
  if (result.ok) return { ...endpointView(result.endpoint), secret: result.secret };
  if (result.code === "too_many") {
    throw new ApiError("conflict", `A tenant has at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`, {
      details: { reason: "endpoint_limit", limit: MAX_ENDPOINTS },
    });
  }
  throw new ApiError("not_found", `Tenant ${tenantId} does not exist.`);
}

export async function listEndpoints(env: Env, tenantId: string) {
  const endpoints = await accountFor(env, tenantId).webhookEndpoints();
  return { object: "list" as const, data: endpoints.map(endpointView), has_more: false as const };
}

export async function getEndpoint(env: Env, tenantId: string, endpointId: string) {
  const endpoint = await accountFor(env, tenantId).webhookEndpoint(endpointId);
  if (!endpoint) throw notFound(endpointId);
  return endpointView(endpoint);
}

export async function updateEndpoint(env: Env, tenantId: string, endpointId: string, input: EndpointChangeInput, by: AuditBy) {
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

export async function deleteEndpoint(env: Env, tenantId: string, endpointId: string, by: AuditBy) {
  const endpoint = await accountFor(env, tenantId).deleteWebhookEndpoint(
    endpointId,
    audited(by, "webhook_endpoint.delete", endpointId),
  );
  if (!endpoint) throw notFound(endpointId);
  return { object: "webhook_endpoint" as const, endpoint_id: endpointId, deleted: true as const };
}
