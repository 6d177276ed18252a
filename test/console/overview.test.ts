/** The overview: balance, reserved credits, 30 days of spend by capability as an SVG chart, recent tasks. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { dailySpend } from "../../src/accounts/daily-spend";
import { CAPABILITIES } from "../../src/catalog/schema";
import { capabilityColor } from "../../src/console/spend-chart";
import { admin } from "../helpers/api";
import { freshEmail, signIn, tenantWithOwner } from "../helpers/console";
import { createImage, waitFor } from "../helpers/tasks";

describe("overview", () => {
  it("shows the balance, what is reserved, the spend chart and the recent tasks", async () => {
    const email = freshEmail("overview");
    const tenant = await tenantWithOwner(email, "1000");
    const key = await admin(`/admin/v1/tenants/${tenant.tenant_id}/api-keys`, {});
    const t = { tenant_id: tenant.tenant_id, api_key: key.json.api_key as string, key_id: key.json.key_id as string };
    const created = await createImage(t, { prompt: "a lighthouse at dusk" });
    expect(created.status).toBe(202);
    const done = await waitFor(t, created.json.task_id);
    expect(done.status).toBe("succeeded");
    const balance = (await admin(`/admin/v1/tenants/${tenant.tenant_id}`)).json.balance as string;

    const page = await (await signIn(email)).get("/console");
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<div class="value" data-testid="balance">${balance}</div>`);
    expect(page.text).toContain('<div class="value" data-testid="reserved">0</div>');
    // The chart: an accessible SVG with a title, a description naming the capability, one bar segment with its own title.
    expect(page.text).toMatch(/<svg role="img" aria-labelledby="spend-title spend-desc"/);
    expect(page.text).toContain('<title id="spend-title">Credits spent per day over the last 30 days, by capability</title>');
    expect(page.text).toMatch(/<desc id="spend-desc">[^<]*text_to_image[^<]*<\/desc>/);
    const today = new Date().toISOString().slice(0, 10);
    expect(page.text).toContain(`<title>${today} · text_to_image: ${done.billing.net_charged_credits} credits</title>`);
    expect(page.text).toContain(`fill="${capabilityColor("text_to_image")}"`);
    // Recent tasks link to the task's page.
    expect(page.text).toContain(`href="/console/tasks/${created.json.task_id}"`);
  });

  it("a tenant with no spend gets an empty chart that says so", async () => {
    const email = freshEmail("quiet");
    await tenantWithOwner(email);
    const page = await (await signIn(email)).get("/console");
    expect(page.text).toContain("No credits were spent in the 30 days shown.");
    expect(page.text).toContain("No tasks yet.");
  });

  it("counts 30 UTC days, today last, spend summed per capability", async () => {
    const email = freshEmail("days");
    const tenant = await tenantWithOwner(email);
    const days = await dailySpend(env, tenant.tenant_id, 30, Date.UTC(2026, 4, 15, 13));
    expect(days).toHaveLength(30);
    expect(days[0]?.day).toBe("2026-04-16");
    expect(days[29]?.day).toBe("2026-05-15");
    expect(days.every((d) => Object.keys(d.by).length === 0)).toBe(true);
  });
});

describe("the spend chart's colours", () => {
  it("gives every capability of the catalog its own colour, the same on every chart", () => {
    const files = JSON.parse(env.TEST_CATALOG) as Record<string, string>;
    const capabilities = Object.keys(files)
      .filter((f) => f.startsWith("capabilities/"))
      .map((f) => (JSON.parse(files[f] as string) as { capability: string }).capability);
    expect(capabilities.length).toBe(CAPABILITIES.length);
    const colours = capabilities.map(capabilityColor);
    expect(new Set(colours).size).toBe(capabilities.length);
    for (const c of colours) expect(c).toMatch(/^#[0-9a-f]{6}$/);
    expect(capabilities.map(capabilityColor)).toEqual(colours);
  });
});
