/**
 * The console's settings page sets the request log's `request_body_logging`: an owner chooses off,
 * redacted or full (test/request-log/bodies.test.ts shows what each keeps); a developer or a viewer
 * cannot, and a value that is not one of the three is refused with the reason.
 */
import { describe, expect, it } from "vitest";
import { admin } from "../helpers/api";
import { auditOf } from "../helpers/safety";
import { consoleCall, consoleTenant, csrfOf, memberCookie } from "./member-session";

/** Posts the form with the session's own CSRF token (read from a page every member may open). */
async function post(cookie: string, mode: string) {
  const page = await consoleCall("/console", cookie);
  return consoleCall("/console/settings/request-log", cookie, { form: { _csrf: csrfOf(page.text), request_body_logging: mode } });
}

const loggingOf = async (tenantId: string) => (await admin(`/admin/v1/tenants/${tenantId}`)).json.request_body_logging;

describe("console settings: request bodies in the log", () => {
  it("shows an owner the choice, saves it and audits it", async () => {
    const t = await consoleTenant();
    const page = await consoleCall("/console/settings", t.owner);
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="request_body_logging"');
    expect(page.text).toMatch(/<option value="off" selected="">/);
    const saved = await post(t.owner, "redacted");
    expect(saved.status, saved.text).toBe(303);
    expect(await loggingOf(t.tenant_id)).toBe("redacted");
    expect((await consoleCall("/console/settings", t.owner)).text).toMatch(/<option value="redacted" selected="">/);
    const [entry] = await auditOf(t.tenant_id, "tenant.settings_set");
    expect(entry).toMatchObject({ actor: { type: "user" }, details: { request_body_logging: "redacted" } });

    expect((await post(t.owner, "off")).status).toBe(303);
    expect(await loggingOf(t.tenant_id)).toBe("off");
  });

  it("refuses a value that is not off, redacted or full, and keeps the old one", async () => {
    const t = await consoleTenant();
    for (const mode of ["on", "", "FULL"]) {
      const res = await post(t.owner, mode);
      expect(res.status, mode).toBe(422);
      expect(res.text).toContain("request_body_logging must be one of &quot;off&quot;, &quot;redacted&quot;, &quot;full&quot;");
    }
    expect(await loggingOf(t.tenant_id)).toBe("off");
  });

  it("is the owners' only: a developer or a viewer gets 403 and changes nothing", async () => {
    const t = await consoleTenant();
    for (const role of ["developer", "viewer"] as const) {
      const cookie = await memberCookie(t.tenant_id, role);
      expect((await consoleCall("/console/settings", cookie)).status).toBe(403);
      const res = await post(cookie, "full");
      expect(res.status).toBe(403);
      expect(res.text).toContain(`Your role (${role}) does not allow this`);
    }
    expect(await loggingOf(t.tenant_id)).toBe("off");
  });
});
