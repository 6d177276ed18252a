/**
 * The console's Status page draws what /v1/status says: each provider's and model's state, a
 * sparkline per row in inline SVG (no script, nothing from elsewhere), the open circuits and the
 * incidents.
 */
import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import type { RouteOutcome } from "../../src/health/outcomes";
import { forgetStatus } from "../../src/health/status";
import { consoleCall, consoleTenant } from "../console/member-session";
import { closeAllRoutes } from "./close";

afterAll(() => closeAllRoutes("sandbox"));

describe("GET /console/status", () => {
  it("shows states, sparklines, the open circuit and its incident", async () => {
    const t = await consoleTenant("100");
    const now = Date.now();
    const outcomes: RouteOutcome[] = Array.from({ length: 10 }, (_, i) => ({
      provider: "sandbox",
      upstream_model: "wan-3.0",
      tenant_id: `ten_${i % 2}`,
      task_id: `task_console_${i}`,
      kind: "submit_refused",
      fault: "provider",
      code: "model_unavailable",
      at: now + i,
    }));
    await env.HEALTH.getByName("sandbox").report(outcomes);
    forgetStatus();
    const res = await consoleCall("/console/status", t.owner);
    expect(res.status).toBe(200);
    const html = res.text;
    expect(html).toContain("<title>Status");
    expect(html).toMatch(/sandbox · wan-3\.0: skipped/);
    expect(html).toContain("10 provider-side failures on sandbox (wan-3.0): model_unavailable ×10");
    expect(html).toMatch(/<th scope="row">wan-3\.0<\/th>\s*<td><span class="state state-down">down<\/span>/);
    expect(html).toContain('<svg class="spark"');
    // No script from elsewhere: the one script is the console's own copy button (same origin).
    expect([...html.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1])).toEqual(["/console/copy.js"]);
    expect(html).toContain('href="/console/status" aria-current="page"');
  });
});
