/** The task envelope: what every door answers about a task (REST bodies, MCP structured content). */
import { z } from "@hono/zod-openapi";
import { DeliveredCopy, TaskDelivery } from "./storage-destinations";

const ErrorObject = z.object({
  code: z.string(),
  type: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  param: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
  request_id: z.string(),
});

const counter = z.number().int();
export const Usage = z
  .object({
    input_tokens: counter,
    output_tokens: counter,
    cache_read_tokens: counter,
    cache_creation_tokens: counter,
    reasoning_tokens: counter,
    image_count: counter,
    image_pixels: counter,
    video_seconds: counter,
    input_video_seconds: counter,
    output_video_seconds: counter,
    audio_seconds: counter,
    characters: counter,
    lines: z.array(z.object({ meter: z.string(), quantity: z.string(), unit: z.string(), billed_amount_credits: z.string() })),
    credits: z.string(),
  })
  .openapi("Usage");

/** One stored output of a task, as `output.artifacts[]` (and `output.images[]`) show it. */
export const Artifact = z
  .object({
    artifact_id: z.string().openapi({ example: `art_${"0".repeat(32)}` }),
    url: z
      .string()
      .optional()
      .openapi({ description: "`GET /v1/artifacts/{artifact_id}`: the owner's download, with the API key; absent once deleted" }),
    deleted: z
      .literal(true)
      .optional()
      .openapi({ description: "Present once the artifact was deleted (`DELETE /v1/artifacts/{id}`): no URL is given for it" }),
    expires_at: z.string().optional().openapi({
      description:
        "ISO 8601 (UTC): the end of the task's retention (`output_retention_days` after the output was stored); then the artifact is deleted and every link to it answers 404 `artifact_not_found`. Absent on outputs stored before retention existed.",
    }),
    expired: z.literal(true).optional().openapi({
      description:
        "Present once `expires_at` has passed or the outputs were deleted (`DELETE /v1/tasks/{task_id}/outputs`): the artifact is gone and no URL is given for it",
    }),
    signed_url: z.string().optional().openapi({
      description:
        "`GET /files/{artifact_id}?expires=…&sig=…`: the same bytes without an API key (a browser, a player, another service) until `signed_url_expires_at`; altered or expired, it answers 404 `artifact_not_found`. Every envelope read signs anew, valid at least 24 hours from the read. Present wherever the deployment can sign (ADMIN_TOKEN or INPUT_URL_SECRET set), and absent once the artifact is deleted.",
    }),
    signed_url_expires_at: z.string().optional().openapi({
      description:
        "ISO 8601 (UTC): when `signed_url` stops working (24 to 25 hours after the read, and never after `expires_at`)",
    }),
    content_type: z.string(),
    bytes: z.number().int(),
    index: z.number().int(),
    width: z.number().int().optional(),
    height: z.number().int().optional(),
    duration_seconds: z.number().optional(),
    delivered: z.array(DeliveredCopy).optional().openapi({ description: "Its copies in storage destinations" }),
  })
  .openapi("Artifact");

export const TaskEnvelope = z
  .object({
    object: z.literal("task"),
    task_id: z.string(),
    status: z.enum(["queued", "running", "succeeded", "failed", "canceled"]),
    capability: z.string(),
    workload_type: z.string().optional(),
    batch_id: z.string().optional().openapi({ description: "The batch this task is an item of" }),
    custom_id: z.string().optional().openapi({ description: "Its item's custom_id in that batch" }),
    model: z.string().openapi({ description: "The model asked for: `auto`, the concrete id, or the first of `models`" }),
    resolved_model: z.string().openapi({ description: "The model serving the task (with `models`: the one it is on now)" }),
    models: z.array(z.string()).optional().openapi({ description: "The `models` fallback list, when the create sent one" }),
    model_fallbacks: z
      .array(
        z.object({
          model: z.string(),
          reason: z.string().openapi({ description: "A `candidate_failures` code, or `upstream_failed`" }),
          at: z.string(),
          message: z.string().optional(),
        }),
      )
      .optional()
      .openapi({ description: "With `models`: each listed model passed over, in order, and why (docs/routing.md)" }),
    metadata: z.record(z.string(), z.string()),
    input: z.record(z.string(), z.unknown()),
    progress: z.object({
      percent: z.number().int(),
      stage: z.string(),
      message: z.string(),
      queue_position: z
        .number()
        .int()
        .optional()
        .openapi({ description: "Requests ahead of the job in the provider's queue, where the provider reports it (0: next)" }),
      eta_seconds: z.number().int().optional().openapi({
        description:
          "Estimated seconds until the task completes, as of the provider's last status answer: the route's measured median time to completion (else the model's typical duration) less the time the job has taken, and the queue ahead; absent when no estimate can be made or the estimate has passed",
      }),
    }),
    output: z
      .object({
        images: z.array(Artifact).optional().openapi({ description: "The image outputs (also in `artifacts`)" }),
        artifacts: z.array(Artifact).optional().openapi({ description: "Every stored output, in order" }),
        text: z.string().optional().openapi({ description: "The text answer of an understanding or prompt task" }),
        provider: z.record(z.string(), z.unknown()).optional(),
      })
      .catchall(z.unknown())
      .nullable(),
    warnings: z.array(z.object({ code: z.string(), message: z.string(), field: z.string() })),
    provider: z
      .object({
        name: z
          .string()
          .openapi({ description: "The upstream that serves (or served) the task; `sandbox` is the built-in simulator" }),
        upstream_model: z.string(),
        simulated: z.boolean().openapi({ description: "True when the output is the sandbox's, not the real model's" }),
        mode: z.enum(["live", "test"]).openapi({ description: "The mode of the key that created the task" }),
        key: z.enum(["platform", "tenant"]).openapi({
          description: "Whose provider key serves it: the platform's, or the tenant's own (`/v1/provider-keys`)",
        }),
        failed_attempts: z
          .array(z.object({ provider: z.string(), code: z.string(), message: z.string(), at: z.string() }))
          .openapi({
            description:
              "Submissions refused before the task was accepted (retries and failover), and jobs moved after they made no progress (code model_timeout), oldest first",
          }),
      })
      .optional(),
    error: ErrorObject.optional(),
    usage: Usage,
    billing: z.object({
      charged_credits: z.string(),
      refunded_credits: z.string(),
      granted_credits: z.string().optional(),
      grant_source: z.string().optional(),
      net_charged_credits: z.string(),
      refund_reason: z.string().nullable().openapi({
        description:
          "Why credits were given back: the failure's error code, `canceled`, or `usage_below_estimate` (a success that cost less than its hold); null when nothing was",
      }),
    }),
    callback: z
      .object({
        url: z.string(),
        status: z.string(),
        attempt_count: z.number().int(),
        delivered_at: z.string().nullable(),
        last_error: z.string().nullable(),
      })
      .optional(),
    delivery: TaskDelivery.nullable().optional().openapi({ description: "Present when the outputs go to a storage destination" }),
    created_at: z.string(),
    started_at: z.string().nullable(),
    deadline_at: z.string(),
    completed_at: z.string().nullable(),
    cancel_requested_at: z.string().nullable(),
    links: z.object({ self: z.string(), cancel: z.string(), assets: z.string().optional() }),
  })
  .openapi("TaskEnvelope");
