/** The sign-in pages as a browser uses them: forms, cookies, the code from the outbox. */
import { describe, expect, it } from "vitest";
import { askCode, Browser, freshEmail, lastCode, lastMail, signIn, tenantWithOwner } from "../helpers/console";

describe("console sign-in", () => {
  it("sends the signed-out to the sign-in page, and the signed-in to the overview", async () => {
    const b = new Browser();
    const first = await b.get("/console");
    expect(first.status).toBe(303);
    expect(first.location).toBe("/console/sign-in");
    const email = freshEmail("owner");
    await tenantWithOwner(email);
    await signIn(email, b);
    const overview = await b.get("/console");
    expect(overview.status).toBe(200);
    expect(overview.text).toContain("<h1>Overview</h1>");
    expect(overview.text).toContain(email);
    expect((await b.get("/console/sign-in")).location).toBe("/console");
  });

  it("sets the session cookie HttpOnly and SameSite=Lax, and not Secure only in the local configuration", async () => {
    const email = freshEmail("cookie");
    await tenantWithOwner(email);
    const b = await askCode(email);
    const res = await b.post("/console/sign-in/code", { email, code: await lastCode(email) });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("session="));
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//);
    // The local configuration serves plain http (CONSOLE_INSECURE_COOKIES); test/regional/console-cookies.test.ts proves the regions' Secure __Host- cookies.
    expect(cookie).not.toMatch(/Secure/i);
  });

  it("answers the same for an address that belongs to no one, and mails nothing", async () => {
    const known = freshEmail("known");
    await tenantWithOwner(known);
    const unknown = freshEmail("unknown");
    const a = new Browser();
    await a.get("/console/sign-in");
    const forKnown = await a.post("/console/sign-in", { email: known });
    const b = new Browser();
    await b.get("/console/sign-in");
    const forUnknown = await b.post("/console/sign-in", { email: unknown });
    expect(forUnknown.status).toBe(forKnown.status);
    const strip = (html: string, email: string) => html.replaceAll(email, "EMAIL").replace(/value="[^"]{40,}"/g, 'value="TOKEN"');
    expect(strip(forUnknown.text, unknown)).toBe(strip(forKnown.text, known));
    // The known address's code is mailed after the answer; then the unknown one has surely had none.
    await expect.poll(() => lastMail(known)).toBeDefined();
    expect(await lastMail(unknown)).toBeUndefined();
  });

  it("says clearly what is wrong with a code: wrong (attempts left), then too many attempts", async () => {
    const email = freshEmail("wrong");
    await tenantWithOwner(email);
    const b = await askCode(email);
    const code = await lastCode(email);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    const first = await b.post("/console/sign-in/code", { email, code: wrong });
    expect(first.status).toBe(400);
    expect(first.text).toContain("That code is not right. 4 attempts left.");
    expect(b.cookies.has("session")).toBe(false);
    for (let i = 0; i < 3; i++) await b.post("/console/sign-in/code", { email, code: wrong });
    const last = await b.post("/console/sign-in/code", { email, code: wrong });
    expect(last.text).toContain("Too many wrong attempts");
    expect(last.text).toContain("Send a new code");
    const after = await b.post("/console/sign-in/code", { email, code });
    expect(after.status).toBe(400);
    expect(b.cookies.has("session")).toBe(false);
  });

  it("refuses a malformed address on the form with a message (422)", async () => {
    const b = new Browser();
    await b.get("/console/sign-in");
    const res = await b.post("/console/sign-in", { email: "not-an-address" });
    expect(res.status).toBe(422);
    expect(res.text).toContain("Enter an email address");
  });

  it("shows the rate limit on the form: 429 with Retry-After", async () => {
    const email = freshEmail("often");
    await tenantWithOwner(email);
    const b = new Browser();
    await b.get("/console/sign-in");
    let res = await b.post("/console/sign-in", { email });
    for (let i = 0; i < 5 && res.status === 200; i++) res = await b.post("/console/sign-in", { email });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(res.text).toContain("Too many sign-in codes were asked for for this address");
  });

  it("sign-out ends the session on the server: the old cookie no longer signs anyone in", async () => {
    const email = freshEmail("bye");
    await tenantWithOwner(email);
    const b = await signIn(email);
    const stolen = b.cookies.get("session") as string;
    const out = await b.post("/console/sign-out", {});
    expect(out.status).toBe(303);
    expect(out.location).toBe("/console/sign-in");
    expect(b.cookies.has("session")).toBe(false);
    // A copy of the cookie made before sign-out is worth nothing now.
    const replay = new Browser();
    replay.cookies.set("session", stolen);
    const res = await replay.get("/console");
    expect(res.status).toBe(303);
    expect(res.location).toBe("/console/sign-in");
  });

  it("a script asking for JSON gets the API's envelope instead of a redirect", async () => {
    const b = new Browser();
    const res = await b.request("/console", { headers: { Accept: "application/json" } });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text).error.code).toBe("unauthorized");
  });

  it("serves pages that are not cached or framed", async () => {
    const res = await new Browser().get("/console/sign-in");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.headers.get("X-Frame-Options")).toBe("DENY");
    expect(res.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
    expect(res.text.startsWith("<!doctype html>")).toBe(true);
  });

  it("an unknown console path is a 404 page", async () => {
    const res = await new Browser().get("/console/nowhere");
    expect(res.status).toBe(404);
    expect(res.text).toContain("Not found");
  });
});
