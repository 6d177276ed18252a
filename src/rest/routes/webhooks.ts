/**
 * Webhook endpoints and the delivery log (`webhooks:manage`): where the tenant's events are
 * delivered, and every attempt to reach them. Each route calls src/services/webhooks.ts.
 */
import { z } from "@hono/zod-openapi";
import { newRouter } from "../../http/context";
import { requestFrom } from "../../services/contracts/request-from";
import {
  CreatedWebhookEndpoint,
  DeletedWebhookEndpoint,
  DeliveryListQuery,
  EndpointChangeInput,
  NewEndpointInput,
  RecoverInput,
  RotateSecretInput,
  WebhookDeliveryDetail,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookRecovery,
} from "../../services/contracts/webhooks";
import { callerAuditBy, keyScope } from "../../services/tasks";
import {
  createEndpoint,
  deleteEndpoint,
  getDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  recoverEndpoint,
  resendDelivery,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
} from "../../services/webhooks";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

const security = [{ bearerAuth: [] }];
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });
const EndpointPath = z.object({ endpoint_id: z.string().max(64).openapi({ example: "we_0123456789abcdefghjkmnpqrs" }) });
const tags = ["Webhooks"];

export const webhookRoutes = newRouter();

declare(
  webhookRoutes,
  {
    method: "post",
    path: "/v1/webhook-endpoints",
    operationId: "createWebhookEndpoint",
    tags,
    summary: "Register an endpoint for the tenant's events (its signing secret shown once)",
    security,
    "x-lifecycle": "preview",
    permission: "webhooks:manage",
    request: body(NewEndpointInput),
    responses: {
      201: json(CreatedWebhookEndpoint, "The endpoint; `secret` is shown only in this response"),
      ...errorResponses(400, 401, 403, 409, 422, 429),
    },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    return c.json(await createEndpoint(c.env, keyScope(caller), c.req.valid("json"), by), 201);
  },
);

declare(
  webhookRoutes,
  {
    method: "get",
    path: "/v1/webhook-endpoints",
    operationId: "listWebhookEndpoints",
    tags,
    summary: "List the tenant's endpoints, oldest first; never their secrets",
    security,
    "x-lifecycle": "preview",
    permission: "webhooks:manage",
    responses: { 200: json(WebhookEndpointList, "The endpoints"), ...errorResponses(401, 403, 429) },
  },
  async (c) => c.json(await listEndpoints(c.env, keyScope(c.get("caller"))), 200),
);

declare(
  webhookRoutes,
  {
    method: "get",
    path: "/v1/webhook-endpoints/{endpoint_id}",
    operationId: "getWebhookEndpoint",
    tags,
    summary: "Get an endpoint",
    security,
    "x-lifecycle": "preview",
    permission: "webhooks:manage",
    request: { params: EndpointPath },
    responses: { 200: json(WebhookEndpoint, "The endpoint"), ...errorResponses(401, 403, 404, 429) },
  },
  async (c) => c.json(await getEndpoint(c.env, keyScope(c.get("caller")), c.req.valid("param").endpoint_id), 200),
);

declare(
  webhookRoutes,
  {
    method: "patch",
    path: "/v1/webhook-endpoints/{endpoint_id}",
    operationId: "updateWebhookEndpoint",
    tags,
    summary: "Change an endpoint's URL, events or description, or disable and enable it",
    security,
    "x-lifecycle": "preview",
    permission: "webhooks:manage",
    request: { params: EndpointPath, ...body(EndpointChangeInput) },
    responses: { 200: json(WebhookEndpoint, "The endpoint"), ...errorResponses(400, 401, 403, 404, 422, 429) },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    return c.json(await updateEndpoint(c.env, keyScope(caller), c.req.valid("param").endpoint_id, c.req.valid("json"), by), 200);
  },
);

declare(
  webhookRoutes,
  {
    method: "delete",
    path: "/v1/webhook-endpoints/{endpoint_id}",
    operationId: "deleteWebhookEndpoint",
    tags,
    summary: "Delete an endpoint: nothing more is delivered to it",
    security,
    "x-lifecycle": "preview",
    permission: "webhooks:manage",
    request: { params: EndpointPath },
    responses: { 200: json(DeletedWebhookEndpoint, "The endpoint deleted"), ...errorResponses(401, 403, 404, 429) },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    return c.json(await deleteEndpoint(c.env, keyScope(caller), c.req.valid("param").endpoint_id, by), 200);
  },
);

const DeliveryPath = z.object({ delivery_id: z.string().max(64).openapi({ example: "whd_0123456789abcdef0123456789abcdef" }) });

declare(
  webhookRoutes,
  {
    method: "get",
    path: "/v1/webhook-deliveries",
    operationId: "listWebhookDeliveries",
    tags,
    summary: "List the tenant's deliveries, to endpoints and task callbacks, newest first",
    security,
    "x-lifecycle": "preview",
    permission: "webhooks:manage",
    request: { query: DeliveryListQuery },
    responses: { 200: json(WebhookDeliveryPage, "A page of deliveries"), ...errorResponses(400, 401, 403, 422, 429) },
  },
  async (c) => c.json(await listDeliveries(c.env, keyScope(c.get("caller")), c.req.valid("query")), 200),
);

declare(
  webhookRoutes,
  {
    method: "get",
    path: "/v1/webhook-deliveries/{delivery_id}",
    operationId: "getWebhookDelivery",
    tags,
    summary: "Get a delivery with every attempt",
    security,
    "x-lifecycle": "preview",
    permission: "webhooks:manage",
    request: { params: DeliveryPath },
    responses: { 200: json(WebhookDeliveryDetail, "The delivery and its attempts"), ...errorResponses(401, 403, 404, 429) },
  },
  async (c) => c.json(await getDelivery(c.env, keyScope(c.get("caller")), c.req.valid("param").delivery_id), 200),
);

declare(
  webhookRoutes,
  {
    method: "post",
    path: "/v1/webhook-deliveries/{delivery_id}/resend",
    operationId: "createWebhookDeliveryAttempt",
    tags,
    summary: "Send a delivery again now (same webhook-id, one more attempt); answers the delivery after it",
    security,
    "x-lifecycle": "preview",
    permission: "webhooks:manage",
    request: { params: DeliveryPath },
    responses: { 200: json(WebhookDeliveryDetail, "The delivery and its attempts"), ...errorResponses(401, 403, 404, 409, 429) },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    return c.json(await resendDelivery(c.env, keyScope(caller), c.req.valid("param").delivery_id, by), 200);
  },
);

declare(
  webhookRoutes,
  {
    method: "post",
    path: "/v1/webhook-endpoints/{endpoint_id}/recover",
    operationId: "createWebhookEndpointRecovery",
    tags,
    summary:
      "Send again every delivery to the endpoint since a time (at most 7 days back) that failed; those still pending are skipped",
    security,
    "x-lifecycle": "preview",
    permission: "webhooks:manage",
    request: { params: EndpointPath, ...body(RecoverInput) },
    responses: { 200: json(WebhookRecovery, "The deliveries sent again"), ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    const { endpoint_id } = c.req.valid("param");
    return c.json(await recoverEndpoint(c.env, keyScope(caller), endpoint_id, c.req.valid("json").since, by), 200);
  },
);

declare(
  webhookRoutes,
  {
    method: "post",
    path: "/v1/webhook-endpoints/{endpoint_id}/rotate-secret",
    operationId: "rotateWebhookEndpointSecret",
    tags,
    summary: "Replace the endpoint's secret (shown once); during the overlap every message carries both signatures",
    security,
    "x-lifecycle": "preview",
    permission: "webhooks:manage",
    request: {
      params: EndpointPath,
      body: { required: false, content: { "application/json": { schema: RotateSecretInput } } },
    },
    responses: {
      200: json(CreatedWebhookEndpoint, "The endpoint; `secret`, the new one, is shown only in this response"),
      ...errorResponses(400, 401, 403, 404, 422, 429),
    },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    const { endpoint_id } = c.req.valid("param");
    const overlap = c.req.valid("json")?.overlap_seconds;
    return c.json(await rotateEndpointSecret(c.env, keyScope(caller), endpoint_id, overlap, by), 200);
  },
);

declare(
  webhookRoutes,
  {
    method: "post",
    path: "/v1/webhook-endpoints/{endpoint_id}/test",
    operationId: "createWebhookEndpointTest",
    tags,
    summary:
      "Send a `webhook.test` event to the endpoint now; answers its delivery with that attempt, or still pending after 5 s (the attempt goes on; the delivery shows its outcome)",
    security,
    "x-lifecycle": "preview",
    permission: "webhooks:manage",
    request: { params: EndpointPath },
    responses: {
      200: json(
        WebhookDeliveryDetail,
        "The test event's delivery: with its attempt, or pending when the receiver is slower than 5 s",
      ),
      ...errorResponses(401, 403, 404, 409, 429),
    },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    return c.json(await sendTestEvent(c.env, keyScope(caller), c.req.valid("param").endpoint_id, by), 200);
  },
);
