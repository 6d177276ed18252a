/**
 * Mail through the HTTP email API (Resend's wire format, against test/people/fake-mail-api.ts):
 * what is sent; that asking for a code is answered before the mail goes out, the same for every
 * address; that a mail the API refuses voids its code; and that a deployment with no way to send
 * mail answers `502 email_send_failed` (retryable) to every address alike.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import type { Env } from "../../src/env";
import { ApiError } from "../../src/errors/api-error";
import { HttpMailSender } from "../../src/mail/http-sender";
import { mailSender } from "../../src/mail/sender";
import { verifySignInCode } from "../../src/people/sign-in";
import { BASE } from "../helpers/api";
import { Browser, freshEmail, tenantWithOwner } from "../helpers/console";
import { requestCode } from "./request-code";

const KEY = "re_test_0123456789";
const FROM = "Media API <login@example.com>";

/** The Worker's configuration with mail going to the fake API's `scenario` instead of the outbox. */
function mailingEnv(scenario: string): Env {
  return {
    ...env,
    EMAIL_OUTBOX: "false",
    EMAIL_API_URL: `${env.FAKE_MAIL_API_URL}/${scenario}`,
    EMAIL_API_KEY: KEY,
    EMAIL_FROM: FROM,
  };
}

async function sent(scenario: string): Promise<any[]> {
  return (await fetch(`${env.FAKE_MAIL_API_URL}/${scenario}/sent`)).json();
}

const client = () => ({ ip: `192.0.2.${Math.floor(Math.random() * 250) + 1}`, user_agent: "unit" });

describe("the HTTP email API", () => {
  it("receives Resend's request: Bearer key, idempotency key, JSON {from, to[], subject, text}", async () => {
    const email = freshEmail("http-mail");
    await tenantWithOwner(email);
    const e = mailingEnv("ok");
    await requestCode(e, { email, ...client() });
    const mine = (await sent("ok")).filter((r) => r.body?.to?.[0] === email);
    expect(mine).toHaveLength(1);
    const [req] = mine;
    expect(req.status).toBe(200);
    expect(req.authorization).toBe(`Bearer ${KEY}`);
    expect(req.content_type).toContain("application/json");
    expect(req.idempotency_key).toMatch(/^mail_/);
    expect(req.body).toEqual({
      from: FROM,
      to: [email],
      subject: expect.stringMatching(/^Your sign-in code: \d{6}$/),
      text: expect.any(String),
    });
    const code = /(\d{6})/.exec(req.body.subject)?.[1] as string;
    expect(req.body.text).toContain(code);
    // The mailed code works.
    expect((await verifySignInCode(e, { email, code, ...client() })).ok).toBe(true);
  });

  it("a refusal after the answer voids the code it carried; the answer was the same as anyone's", async () => {
    const email = freshEmail("mail-fails");
    await tenantWithOwner(email);
    const e = mailingEnv("fail");
    expect(await requestCode(e, { email, ...client() })).toEqual({ email });
    // The API saw the code (it refused to deliver it): that code is void.
    const refused = (await sent("fail")).filter((r) => r.body?.to?.[0] === email);
    expect(refused).toHaveLength(1);
    expect(refused[0].status).toBe(500);
    const code = /(\d{6})/.exec(refused[0].body.subject)?.[1] as string;
    expect(await verifySignInCode(e, { email, code, ...client() })).toEqual({ ok: false, reason: "no_code" });
    // Asking again, once the API works, mails a code that works.
    await requestCode(mailingEnv("ok"), { email, ...client() });
    const mailed = (await sent("ok")).filter((r) => r.body?.to?.[0] === email);
    const fresh = /(\d{6})/.exec(mailed.at(-1).body.subject)?.[1] as string;
    expect((await verifySignInCode(e, { email, code: fresh, ...client() })).ok).toBe(true);
  });

  it("the console answers before the mail is sent, the same for a known and an unknown address", async () => {
    const known = freshEmail("mail-held");
    await tenantWithOwner(known);
    const unknown = freshEmail("mail-held-unknown");
    const scenario = `hold-${crypto.randomUUID()}`;
    const e = mailingEnv(scenario);
    const app = createApp();
    const browser = new Browser();
    // One browser (one session cookie and CSRF token) asks for both addresses.
    const form = await app.fetch(
      new Request(`${BASE}/console/sign-in`, { headers: { "CF-Connecting-IP": browser.ip } }),
      e,
      createExecutionContext(),
    );
    const cookie = form.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] as string;
    const ask = async (email: string) => {
      const ctx = createExecutionContext();
      const answer = app.fetch(
        new Request(`${BASE}/console/sign-in`, {
          method: "POST",
          headers: {
            Cookie: cookie,
            Origin: BASE,
            "Content-Type": "application/x-www-form-urlencoded",
            "CF-Connecting-IP": browser.ip,
          },
          body: new URLSearchParams({ email, _csrf: token }).toString(),
        }),
        e,
        ctx,
      );
      // The mail API holds its answer until released: an answer that waited for the mail would never come.
      const res = await Promise.race([answer, new Promise<null>((r) => setTimeout(() => r(null), 5_000))]);
      expect(res, `the answer for ${email} waited for the mail`).not.toBeNull();
      return { res: res as Response, text: await (res as Response).text(), ctx };
    };
    try {
      const forKnown = await ask(known);
      const forUnknown = await ask(unknown);
      expect(forKnown.res.status).toBe(200);
      expect(forUnknown.res.status).toBe(forKnown.res.status);
      // Each page has its own script nonce; apart from it (and the address) the answers are the same.
      const unnonced = (text: string) => text.replace(/nonce(?:-|=")[A-Za-z0-9_-]{16,}"?/g, "NONCE");
      expect(unnonced(forUnknown.text.replaceAll(unknown, "EMAIL"))).toBe(unnonced(forKnown.text.replaceAll(known, "EMAIL")));
      const headers = (r: Response) =>
        [...r.headers]
          .filter(([k]) => !["date", "x-request-id"].includes(k.toLowerCase()))
          .map(([k, v]) => [k, unnonced(v)])
          .sort(([a], [b]) => (a as string).localeCompare(b as string));
      expect(headers(forUnknown.res)).toEqual(headers(forKnown.res));
      // The mail to the known address is under way, after the answer, and not delivered yet.
      await expect
        .poll(async () => (await sent(scenario)).map((r) => ({ to: r.body?.to?.[0], status: r.status })), { timeout: 5_000 })
        .toEqual([{ to: known, status: null }]);
      await fetch(`${env.FAKE_MAIL_API_URL}/${scenario}/release`, { method: "POST" });
      await waitOnExecutionContext(forKnown.ctx);
      await waitOnExecutionContext(forUnknown.ctx);
      const delivered = await sent(scenario);
      expect(delivered.map((r) => ({ to: r.body?.to?.[0], status: r.status }))).toEqual([{ to: known, status: 200 }]);
      const code = /(\d{6})/.exec(delivered[0].body.subject)?.[1] as string;
      expect((await verifySignInCode(e, { email: known, code, ...client() })).ok).toBe(true);
    } finally {
      await fetch(`${env.FAKE_MAIL_API_URL}/${scenario}/release`, { method: "POST" });
    }
  });

  it("a deployment that cannot send mail at all answers 502 email_send_failed, to every address alike", async () => {
    const known = freshEmail("no-mail-api");
    await tenantWithOwner(known);
    const none = { ...env, EMAIL_OUTBOX: "false", EMAIL_API_KEY: undefined, EMAIL_FROM: undefined } as Env;
    for (const email of [known, freshEmail("no-mail-api-unknown")]) {
      const err = await requestCode(none, { email, ...client() }).catch((x) => x);
      expect(err).toBeInstanceOf(ApiError);
      expect(err.code).toBe("email_send_failed");
      expect(err.status).toBe(502);
      expect(err.toBody("r").retryable).toBe(true);
    }
  });

  it("without an email API configured, sending fails the same way", async () => {
    const sender = mailSender({ ...env, EMAIL_OUTBOX: undefined, EMAIL_API_KEY: undefined, EMAIL_FROM: undefined });
    const err = await sender.send({ to: "a@example.com", subject: "s", text: "t" }).catch((x) => x);
    expect(err.code).toBe("email_send_failed");
  });

  it("an unreachable API is email_send_failed too", async () => {
    const sender = new HttpMailSender({ url: "http://127.0.0.1:9/", key: KEY, from: FROM });
    const err = await sender.send({ to: "a@example.com", subject: "s", text: "t" }).catch((x) => x);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe("email_send_failed");
  });
});
