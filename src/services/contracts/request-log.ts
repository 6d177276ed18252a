/** The request log's wire shapes (`/v1/requests`), one zod schema each, for the routes, the tools and the OpenAPI document. */
import { z } from "@hono/zod-openapi";
import { BODY_LOGGING } from "../../request-log/bodies";
import { DEFAULT_LOG_RETENTION_DAYS, MAX_LOG_RETENTION_DAYS, MIN_LOG_RETENTION_DAYS } from "../../request-log/shards";

/** The tenant's `request_body_logging`: set by owners in the console and by the operator. */
export const BodyLoggingSetting = z.enum(BODY_LOGGING).openapi({
  description:
    "Whether the request log keeps bodies: `off` (default), `redacted` (first 64 KiB, secrets replaced, data URIs and text over 256 characters replaced by `{redacted, sha256, bytes}`) or `full` (first 64 KiB, secrets replaced)",
  example: "redacted",
});

/** The tenant's `request_log_retention_days`: set by the operator only. */
export const LogRetentionDays = z
  .number()
  .int()
  .min(MIN_LOG_RETENTION_DAYS)
  .max(MAX_LOG_RETENTION_DAYS)
  .openapi({
    description: `Days the request log keeps entries (${MIN_LOG_RETENTION_DAYS}–${MAX_LOG_RETENTION_DAYS}, default ${DEFAULT_LOG_RETENTION_DAYS}); applies to the hours logged from then on (hours already logged keep the end they were given)`,
    example: DEFAULT_LOG_RETENTION_DAYS,
  });

const StatusFilter = z
  .string()
  .regex(/^[1-5]([0-9]{2}|xx|XX)$/, "an HTTP status (200) or a class (4xx)")
  .openapi({ description: "An exact HTTP status (`200`) or a class (`2xx`, `4xx`, `5xx`)", example: "4xx" });

const Time = z.string().datetime({ offset: true }).openapi({ example: "2026-12-01T00:00:00Z" });

export const RequestListQuery = z
  .object({
    since: Time.optional().openapi({ description: "Only requests that arrived at or after this time (ISO 8601)" }),
    until: Time.optional().openapi({ description: "Only requests that arrived before this time (ISO 8601)" }),
    status: StatusFilter.optional(),
    route: z
      .string()
      .max(200)
      .optional()
      .openapi({ description: "The declared route, as the entry names it", example: "POST /v1/images/generations" }),
    key_id: z.string().max(64).optional(),
    model: z.string().max(200).optional().openapi({ description: "The resolved model" }),
    task_id: z.string().max(80).optional(),
    error_code: z.string().max(80).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().max(512).optional(),
  })
  .strict();

export const RequestAttempt = z
  .object({
    provider: z.string(),
    upstream_model: z.string(),
    key: z.enum(["tenant", "platform"]).openapi({ description: "Whose provider key served the attempt" }),
    started_at: z.string(),
    duration_ms: z.number().int().nullable().openapi({ description: "null while the attempt is still out" }),
    outcome: z.enum(["accepted", "refused", "failed", "succeeded", "timeout"]),
    http_status: z.number().int().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .openapi("RequestAttempt");

export const RequestStage = z
  .object({
    name: z.enum(["store_outputs", "deliver_outputs", "deliver_callback"]).openapi({
      description:
        "`store_outputs`: from the job's end at the provider to its outputs in storage; `deliver_outputs`: copying them to the task's storage destination; `deliver_callback`: one attempt of the task's callback",
    }),
    started_at: z.string(),
    duration_ms: z.number().int().nullable().openapi({ description: "Null while the stage is under way" }),
    outcome: z.enum(["succeeded", "failed", "pending"]),
    error: z.string().nullable(),
  })
  .openapi("RequestStage");

export const RequestEntry = z
  .object({
    object: z.literal("request"),
    request_id: z.string().openapi({ description: "The request's X-Request-Id" }),
    created_at: z.string(),
    method: z.string(),
    route: z.string().openapi({ description: "The declared route (`POST /v1/images/generations`), or `MCP <tool>`" }),
    status: z.number().int(),
    error_code: z.string().nullable(),
    duration_ms: z.number().int().openapi({ description: "To the end of the answer (a stream's last event)" }),
    key_id: z.string().openapi({ description: "The API key, or the OAuth grant of an MCP client" }),
    mode: z.enum(["live", "test"]),
    door: z.enum(["rest", "mcp", "console"]),
    model: z.string().nullable().openapi({ description: "The resolved model" }),
    task_id: z.string().nullable(),
    batch_id: z.string().nullable(),
    credits: z
      .object({
        charged: z.string().openapi({
          description:
            "Decimal credits: what the ledger settled for this request (0 while a task's hold is open, with `held`); a chat call's appears once the ledger has it, within seconds",
        }),
        settled: z.boolean(),
        held: z
          .string()
          .optional()
          .openapi({ description: "Before a task settles: the credits its hold keeps (`charged` is then 0)" }),
      })
      .nullable(),
    user_agent: z.string().nullable(),
    replay_of: z.string().nullable().openapi({ description: "The request this one ran again" }),
    recovered: z.boolean().openapi({
      description:
        "Rebuilt from the ledger: the request's own entry was lost (its isolate ended within the log's batch window); it holds what the ledger knows",
    }),
  })
  .openapi("RequestLogEntry");

export const RequestDetail = RequestEntry.extend({
  attempts: z.array(RequestAttempt),
  stages: z.array(RequestStage).openapi({
    description: "A task create's work after the provider, as it goes on (empty for other requests)",
  }),
  request_body: z.string().nullable().optional().openapi({
    description: "With the tenant's `request_body_logging` on: the body sent (first 64 KiB, secrets replaced)",
  }),
  response_body: z.string().nullable().optional().openapi({ description: "Likewise, the answer's body" }),
}).openapi("RequestLogDetail");

export const RequestPage = z
  .object({
    object: z.literal("list"),
    data: z.array(RequestEntry),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
  })
  .openapi("RequestLogPage");

export const ReplayInput = z
  .object({
    model: z.string().min(1).max(200).optional().openapi({ description: "Run it on another model instead of the one it named" }),
  })
  .strict()
  .openapi("RequestReplayInput");
