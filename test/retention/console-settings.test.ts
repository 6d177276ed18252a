/** The console's settings page: owners set the tenant's retention; other roles cannot. */
import { describe, expect, it } from "vitest";
import { consoleCall, consoleTenant, csrfOf, memberCookie } from "../console/member-session";
import { admin } from "../helpers/api";

async function post(cookie: string, days: string) {
  const page = await consoleCall("/console/settings", cookie);
  return consoleCall("/console/settings/retention", cookie, { form: { _csrf: csrfOf(page.text), output_retention_days: days } });
}

const retentionOf = async (tenantId: string) => (await admin(`/admin/v1/tenants/${tenantId}`)).json.output_retention_days;

describe("console settings", () => {
  it("shows an owner the retention and saves a new one", async () => {
    const t = await consoleTenant();
    const page = await consoleCall("/console/settings", t.owner);
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="output_retention_days"');
    expect(page.text).toContain('value="30"');
    const saved = await post(t.owner, "14");
    expect(saved.status).toBe(303);
    expect(await retentionOf(t.tenant_id)).toBe(14);
    const again = await consoleCall("/console/settings", t.owner);
    expect(again.text).toContain('value="14"');
  });

  it("refuses days outside 1–365 or not a whole number, with the reason, and keeps the old value", async () => {
    const t = await consoleTenant();
    for (const days of ["0", "366", "2.5", "seven", ""]) {
      const res = await post(t.owner, days);
      expect(res.status, days).toBe(422);
      expect(res.text).toContain("output_retention_days must be a whole number of days from 1 to 365");
    }
    expect(await retentionOf(t.tenant_id)).toBe(30);
  });

  it("is the owners' only: a developer or a viewer gets 403 and changes nothing", async () => {
    const t = await consoleTenant();
    const ownerPage = await consoleCall("/console/settings", t.owner);
    for (const role of ["developer", "viewer"] as const) {
      const cookie = await memberCookie(t.tenant_id, role);
      expect((await consoleCall("/console/settings", cookie)).status).toBe(403);
      const res = await consoleCall("/console/settings/retention", cookie, {
        form: { _csrf: csrfOf(ownerPage.text), output_retention_days: "5" },
      });
      expect(res.status).toBe(403);
    }
    expect(await retentionOf(t.tenant_id)).toBe(30);
  });
});
