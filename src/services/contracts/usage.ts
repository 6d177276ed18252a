/** The usage report every door answers with (`GET /v1/usage`; the console reads the same rows by day). */
import { z } from "@hono/zod-openapi";
import { USAGE_COUNTERS, USAGE_GROUPS, type UsageCounter } from "../../accounts/usage";
import { KEY_MODES } from "../../keys/api-keys";
import { credits } from "./credits";

/** The window when `from` is not given: this many days up to `to`. */
export const USAGE_DEFAULT_DAYS = 30;
/** The longest window one request may ask for. */
export const USAGE_MAX_DAYS = 366;

const counterShape = Object.fromEntries(USAGE_COUNTERS.map((c) => [c, z.number()])) as Record<UsageCounter, z.ZodNumber>;

const UsageFigures = z
  .object({
    credits: credits("Credits charged: captured for tasks that succeeded, charged for chat completions"),
    tasks: z.number().int().openapi({ description: "Tasks that reached a final state" }),
    completions: z.number().int().openapi({ description: "Chat completions charged" }),
    succeeded: z.number().int(),
    failed: z.number().int(),
    canceled: z.number().int(),
    ...counterShape,
  })
  .openapi("UsageReportFigures");

const UsageRow = UsageFigures.extend({
  day: z.string().optional().openapi({ description: "With group_by=day: the UTC day, YYYY-MM-DD" }),
  capability: z.string().optional().openapi({ description: "With group_by=capability (chat: chat_completion)" }),
  model: z.string().optional().openapi({ description: "With group_by=model: the resolved model" }),
}).openapi("UsageReportRow");

export const UsageReport = z
  .object({
    object: z.literal("usage"),
    mode: z.enum(KEY_MODES),
    from: z.string().openapi({ description: "Start of the window, inclusive (ISO 8601, UTC)" }),
    to: z.string().openapi({ description: "End of the window, exclusive (ISO 8601, UTC)" }),
    group_by: z.enum(USAGE_GROUPS),
    data: z.array(UsageRow).openapi({ description: "One row per group with activity, sorted by its key" }),
    totals: UsageFigures,
  })
  .openapi("UsageReport");

export const UsageQuery = z
  .object({
    from: z
      .string()
      .optional()
      .openapi({
        description: `ISO 8601 date or date-time, inclusive (a date is its midnight UTC); default: ${USAGE_DEFAULT_DAYS} days before \`to\``,
        example: "2026-01-01",
      }),
    to: z
      .string()
      .optional()
      .openapi({
        description: `ISO 8601 date or date-time, exclusive; default: now. At most ${USAGE_MAX_DAYS} days after \`from\``,
        example: "2026-02-01",
      }),
    group_by: z.enum(USAGE_GROUPS).default("day"),
  })
  .strict();
