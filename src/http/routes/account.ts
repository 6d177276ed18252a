/**
 * The caller's own account: its balance (`GET /v1/balance`) and what its settled work used
 * (`GET /v1/usage`). Both read the tenant's AccountObject once; live and test keys see their own
 * mode only (README "Balance and usage").
 */
import { createRoute, z } from "@hono/zod-openapi";
import { KEY_MODES } from "../../accounts/api-keys";
import { accountFor, type Caller } from "../../accounts/service";
import { USAGE_COUNTERS, USAGE_GROUPS, type UsageCounter, usageTotals } from "../../accounts/usage";
import type { Env } from "../../env";
import { ApiError } from "../../errors/api-error";
import { requireKey } from "../auth";
import { newRouter } from "../context";
import { errorResponses } from "../schemas";
import { invalidWindow, parseInstant } from "../window";

/**
 * What a test-mode key is told it has. Test requests are priced at zero and draw on nothing (no
 * separate test ledger: docs/decisions.md), so this figure never changes and never limits; it is
 * there so that a client's check-before-submit runs unchanged in test mode.
 */
export const TEST_MODE_AVAILABLE_CREDITS = "1000000";

const DAY_MS = 86_400_000;
/** The window when `from` is not given: this many days up to `to`. */
export const USAGE_DEFAULT_DAYS = 30;
/** The longest window one request may ask for. */
export const USAGE_MAX_DAYS = 366;

const security = [{ bearerAuth: [] }];
const credits = (description: string) =>
  z.string().openapi({ description: `${description} (decimal string, up to 9 decimals)`, example: "982.5" });

export const Balance = z
  .object({
    object: z.literal("balance"),
    mode: z.enum(KEY_MODES).openapi({ description: "The calling key's mode: each mode sees its own balance" }),
    available_credits: credits("What a new request can hold now: grants minus charges minus open holds"),
    reserved_credits: credits("Held for tasks and chat calls not yet settled"),
    currency: z.literal("credits"),
    as_of: z.string().openapi({ description: "ISO 8601 date-time (UTC) the figures were read at" }),
  })
  .openapi("Balance");

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

const Usage = z
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

const UsageQuery = z
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

export const accountRoutes = newRouter();

accountRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/balance",
    operationId: "getBalance",
    tags: ["Account"],
    summary: "Get the caller's credit balance",
    description:
      "Any valid key may read its tenant's balance, whatever its permissions. A test-mode key sees the test balance: a fixed figure with nothing reserved, since test requests are charged nothing.",
    security,
    "x-lifecycle": "preview",
    middleware: [requireKey(null)] as const,
    responses: {
      200: { description: "The balance", content: { "application/json": { schema: Balance } } },
      ...errorResponses(400, 401, 403, 429),
    },
  }),
  async (c) => c.json(await balanceOf(c.env, c.get("caller")), 200),
);

/** The caller's balance in its key's mode (also the /mcp `get_balance` tool's answer). */
export async function balanceOf(env: Env, caller: Pick<Caller, "tenant_id" | "mode">): Promise<z.infer<typeof Balance>> {
  const as_of = new Date().toISOString();
  if (caller.mode === "test") {
    return {
      object: "balance",
      mode: "test",
      available_credits: TEST_MODE_AVAILABLE_CREDITS,
      reserved_credits: "0",
      currency: "credits",
      as_of,
    };
  }
  const view = await accountFor(env, caller.tenant_id).balanceView();
  if (!view) throw new ApiError("invalid_api_key", "The API key is not valid.");
  return {
    object: "balance",
    mode: "live",
    available_credits: view.available,
    reserved_credits: view.reserved,
    currency: "credits",
    as_of,
  };
}

/** [from, to) from the query, with its defaults; 422 invalid_window naming `/from` or `/to`. */
function usageWindow(q: { from?: string; to?: string }, now: number): { from: string; to: string } {
  const to = parseInstant(q.to, "to") ?? new Date(now).toISOString();
  const from = parseInstant(q.from, "from") ?? new Date(Date.parse(to) - USAGE_DEFAULT_DAYS * DAY_MS).toISOString();
  const span = Date.parse(to) - Date.parse(from);
  const details = { from: q.from ?? from, to: q.to ?? to };
  if (span <= 0) throw invalidWindow("from", "from must be earlier than to.", details);
  if (span > USAGE_MAX_DAYS * DAY_MS) {
    throw invalidWindow("from", `The window may span at most ${USAGE_MAX_DAYS} days; ask for several windows.`, {
      ...details,
      max_days: USAGE_MAX_DAYS,
    });
  }
  return { from, to };
}

accountRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/usage",
    operationId: "getUsage",
    tags: ["Account"],
    summary: "Get the caller's usage over a window",
    description:
      "Credits and counters of the tasks and chat completions settled in [from, to) — a task when it reached its final state, a completion when it was charged — per UTC day, capability or model. Each key mode sees its own usage.",
    security,
    "x-lifecycle": "preview",
    middleware: [requireKey("tasks:read")] as const,
    request: { query: UsageQuery },
    responses: {
      200: { description: "The usage", content: { "application/json": { schema: Usage } } },
      ...errorResponses(400, 401, 403, 422, 429),
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const caller = c.get("caller");
    const { from, to } = usageWindow(q, Date.now());
    const rows = await accountFor(c.env, caller.tenant_id).usage({ mode: caller.mode, from, to, group_by: q.group_by });
    return c.json(
      {
        object: "usage" as const,
        mode: caller.mode,
        from,
        to,
        group_by: q.group_by,
        data: rows.map(({ key, ...figures }) => ({ [q.group_by]: key, ...figures })),
        totals: usageTotals(rows),
      },
      200,
    );
  },
);
