/**
 * The console in a region's configuration: cookies are Secure with the `__Host-` prefix, there
 * is no outbox, and with no email API configured here asking for a sign-in code is
 * `502 email_send_failed` on the form, for every address alike.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, expectError } from "../helpers/api";
import { Browser } from "../helpers/console";

describe("the console in a region", () => {
  it("sets Secure, host-only cookies and accepts them back", async () => {
    expect(env.CONSOLE_INSECURE_COOKIES).toBe("false");
    expect(env.EMAIL_OUTBOX).toBe("false");
    const b = new Browser();
    const page = await b.get("/console/sign-in");
    const cookie = page.headers.getSetCookie().find((c) => c.startsWith("__Host-csrf="));
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Domain=/i);
    // The form's token matches the __Host- cookie (a refused token is 403): the form is answered,
    // here with the refusal of a deployment that has no email API.
    const res = await b.post("/console/sign-in", { email: `nobody-${Date.now()}@example.com` });
    expect(res.status).toBe(502);
    expect(res.text).toContain("could not be sent");
  });

  it("without an email API, asking for a code for a real member is 502 email_send_failed, as for anyone", async () => {
    const email = `regional-${Date.now()}@example.com`;
    expect((await admin("/admin/v1/tenants", { name: "Regional", owner_email: email })).status).toBe(201);
    const b = new Browser();
    await b.get("/console/sign-in");
    const res = await b.post("/console/sign-in", { email });
    expect(res.status).toBe(502);
    expect(res.text).toContain("could not be sent");
  });

  it("has no outbox", async () => {
    expectError(await admin("/admin/v1/outbox"), 404, "not_found");
  });
});
