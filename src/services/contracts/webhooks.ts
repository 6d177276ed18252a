/**
 * Webhook endpoints as every door shows them: the record (never the secret) and the record as
 * created, with its secret shown once.
 */
import { z } from "@hono/zod-openapi";
import { MAX_ENDPOINTS } from "../../webhooks/endpoint-rows";
import { SUBSCRIPTIONS } from "../../webhooks/event-types";

const Events = z
  .array(z.enum(SUBSCRIPTIONS as [string, ...string[]]))
  .min(1)
  .max(SUBSCRIPTIONS.length)
  .refine((list) => new Set(list).size === list.length, "must not repeat an event type")
  .openapi({
    description:
      "Event types delivered to the endpoint: `task.succeeded`, `task.failed`, `task.canceled`, `key.spend_threshold`, `batch.completed`, `endpoint.disabled`; `*` means every type",
    example: ["task.succeeded", "task.failed"],
  });

const Url = z.string().max(2048).openapi({
  description: "HTTPS URL of a public host (the same policy as `callback_url`)",
  example: "https://example.com/hooks",
});
const Description = z.string().trim().max(500);

export const NewEndpointInput = z
  .object({
    url: Url,
    events: Events,
    description: Description.nullable().optional().openapi({ description: "A label (at most 500 characters)" }),
    enabled: z.boolean().optional().openapi({ description: "Default: true" }),
  })
  .strict();

export const EndpointChangeInput = z
  .object({
    url: Url.optional(),
    events: Events.optional(),
    description: Description.nullable().optional().openapi({ description: "null removes it" }),
    enabled: z.boolean().optional(),
  })
  .strict();

export const WebhookEndpoint = z
  .object({
    object: z.literal("webhook_endpoint"),
    endpoint_id: z.string(),
    mode: z.enum(["live", "test"]).openapi({
      description:
        "The mode of the key that made it (the console makes live ones). It receives the events of its own mode's tasks only, and only keys of its mode see it.",
    }),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    disabled_reason: z.enum(["failing"]).nullable().openapi({
      description: "`failing`: disabled by the service after 5 days in which every delivery failed; enabling it clears this",
    }),
    failing_since: z
      .string()
      .nullable()
      .openapi({ description: "Since when every delivery has failed; null when the last succeeded" }),
    secret_rotated_at: z.string().nullable().openapi({ description: "When the secret was last replaced" }),
    previous_secret_valid_until: z.string().nullable().openapi({
      description: "While a rotation's overlap runs, until when the previous secret signs beside the new one (two signatures)",
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("WebhookEndpoint");

export const CreatedWebhookEndpoint = WebhookEndpoint.extend({
  secret: z.string().openapi({
    description: "The Standard Webhooks signing secret (`whsec_…`); shown only in this response",
  }),
}).openapi("CreatedWebhookEndpoint");

export const WebhookEndpointList = z
  .object({
    object: z.literal("list"),
    data: z.array(WebhookEndpoint),
    has_more: z.literal(false).openapi({ description: `Always false: a tenant has at most ${MAX_ENDPOINTS} endpoints` }),
  })
  .openapi("WebhookEndpointList");

export const DeletedWebhookEndpoint = z
  .object({ object: z.literal("webhook_endpoint"), endpoint_id: z.string(), deleted: z.literal(true) })
  .openapi("DeletedWebhookEndpoint");

export const DeliveryListQuery = z
  .object({
    endpoint_id: z.string().max(64).optional(),
    task_id: z.string().max(80).optional(),
    status: z.enum(["pending", "succeeded", "failed"]).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().max(512).optional(),
  })
  .strict();

export const WebhookDelivery = z
  .object({
    object: z.literal("webhook_delivery"),
    delivery_id: z.string(),
    target: z.enum(["callback", "endpoint"]).openapi({ description: "A task's `callback_url`, or a registered endpoint" }),
    endpoint_id: z.string().nullable().openapi({ description: "null for a callback" }),
    task_id: z.string().nullable().openapi({
      description:
        "The task whose event it is (the batch_id for `batch.completed`); null for an endpoint's event (`endpoint.disabled`)",
    }),
    event_id: z.string().openapi({ description: "The event delivered; to an endpoint, the `webhook-id` of every attempt" }),
    event_type: z.string(),
    status: z.enum(["pending", "succeeded", "failed"]),
    created_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .openapi("WebhookDelivery");

export const WebhookAttempt = z
  .object({
    attempt: z.number().int(),
    attempted_at: z.string(),
    http_status: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "null: no answer (refused URL, no connection, 15 s passed)" }),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
    cause: z.string().nullable().openapi({
      description:
        "Why the attempt failed, as a kind: `http_<status>` (the receiver answered), `dns_failed`, `connection_refused`, `tls_failed`, `timed_out`, `connection_lost` or `network_error`; null when it succeeded (docs/errors.md)",
    }),
    location: z.string().nullable().openapi({ description: "A redirect's `Location` (redirects are not followed)" }),
    response_excerpt: z.string().nullable().openapi({ description: "The answer's first 1 KiB, control characters removed" }),
  })
  .openapi("WebhookAttempt");

export const WebhookDeliveryDetail = WebhookDelivery.extend({
  attempt_count: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_error: z.string().nullable(),
  attempts: z.array(WebhookAttempt),
}).openapi("WebhookDeliveryDetail");

export const WebhookDeliveryPage = z
  .object({
    object: z.literal("list"),
    data: z.array(WebhookDelivery),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
  })
  .openapi("WebhookDeliveryPage");

export const RecoverInput = z
  .object({
    since: z.string().max(64).openapi({
      description:
        "ISO 8601 date-time, at most 7 days ago: every delivery to the endpoint since then that failed is sent again (those still pending are left alone)",
      example: "2026-01-01T00:00:00Z",
    }),
  })
  .strict();

export const WebhookRecovery = z
  .object({
    object: z.literal("webhook_recovery"),
    endpoint_id: z.string(),
    since: z.string(),
    deliveries: z.number().int().openapi({ description: "How many failed deliveries are queued again (at most 100 per call)" }),
    skipped_pending: z.number().int().openapi({
      description: "Deliveries left alone because a retry is already scheduled or under way (never queued twice)",
    }),
    left_out: z.number().int().openapi({
      description: "Failed deliveries this call did not queue: past the 100 per call or the budgets of sends by hand",
    }),
    limited_by: z.enum(["per_call", "endpoint_budget", "tenant_budget"]).nullable().openapi({
      description: "What left deliveries out: the cap per call, the endpoint's hourly budget or the tenant's; null when none",
    }),
    has_more: z.boolean().openapi({
      description: "True when deliveries were left out: recover again (after the budget's Retry-After when a budget limited)",
    }),
  })
  .openapi("WebhookRecovery");

export const RotateSecretInput = z
  .object({
    overlap_seconds: z.number().int().min(0).max(604_800).optional().openapi({
      description: "How long the previous secret keeps signing beside the new one, 0 to 604800 (7 days); default 86400",
    }),
  })
  .strict();
