/** `GET /v1/status`: route health for everyone, no key needed (src/health/status.ts). */

import { newRouter } from "../../http/context";
import { ServiceStatus } from "../../services/contracts/status";
import { serviceStatus } from "../../services/status";
import { declare } from "../declare";

export const statusRoutes = newRouter();

declare(
  statusRoutes,
  {
    method: "get",
    path: "/v1/status",
    operationId: "getStatus",
    tags: ["Status"],
    summary: "Health of every provider and model (no API key; cacheable for 10 s)",
    description:
      "Per provider and per model: `state` (operational, degraded, down), success rate and p50/p95 time to completion over 5 minutes, 1 hour and 24 hours, open circuits, and the last incidents. A route's circuit opens when it fails for several callers at once; new work skips it until a probe succeeds (docs/route-health.md).",
    security: [],
    "x-lifecycle": "preview",
    responses: {
      200: {
        description: "Service status",
        headers: { "Cache-Control": { schema: { type: "string", example: "public, max-age=10" } } },
        content: { "application/json": { schema: ServiceStatus } },
      },
    },
  },
  async (c) => c.json(await serviceStatus(c.env), 200, { "Cache-Control": "public, max-age=10" }),
);
