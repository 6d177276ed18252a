/**
 * The caller's own account: its balance (`GET /v1/balance`) and what its settled work used
 * (`GET /v1/usage`). Both read the tenant's AccountObject once; live and test keys see their own
 * mode only (README "Balance and usage").
 */

import { newRouter } from "../../http/context";
import { balanceOf } from "../../services/balance";
import { Balance } from "../../services/contracts/balance";
import { UsageQuery, UsageReport } from "../../services/contracts/usage";
import { usageReport } from "../../services/usage";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

const security = [{ bearerAuth: [] }];

export const accountRoutes = newRouter();

declare(
  accountRoutes,
  {
    method: "get",
    path: "/v1/balance",
    operationId: "getBalance",
    tags: ["Account"],
    summary: "Get the caller's credit balance",
    description:
      "Any valid key may read its tenant's balance, whatever its permissions. A test-mode key sees the test balance: a fixed figure with nothing reserved, since test requests are charged nothing.",
    security,
    "x-lifecycle": "preview",
    permission: null,
    responses: {
      200: { description: "The balance", content: { "application/json": { schema: Balance } } },
      ...errorResponses(400, 401, 403, 429),
    },
  },
  async (c) => c.json(await balanceOf(c.env, c.get("caller")), 200),
);

declare(
  accountRoutes,
  {
    method: "get",
    path: "/v1/usage",
    operationId: "getUsage",
    tags: ["Account"],
    summary: "Get the caller's usage over a window",
    description:
      "Credits and counters of the tasks and chat completions settled in [from, to) — a task when it reached its final state, a completion when it was charged — per UTC day, capability or model. Each key mode sees its own usage.",
    security,
    "x-lifecycle": "preview",
    permission: "tasks:read",
    request: { query: UsageQuery },
    responses: {
      200: { description: "The usage", content: { "application/json": { schema: UsageReport } } },
      ...errorResponses(400, 401, 403, 422, 429),
    },
  },
  async (c) => c.json(await usageReport(c.env, c.get("caller"), c.req.valid("query")), 200),
);
