/**
 * Mail through the HTTP email API (Resend's wire format, against test/people/fake-mail-api.ts):
 * what is sent, and what happens when the API refuses: `502 email_send_failed`, retryable, and
 * the code that mail carried is never usable.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { ApiError } from "../../src/errors/api-error";
import { createApp } from "../../src/http/app";
import { HttpMailSender } from "../../src/mail/http-sender";
import { mailSender } from "../../src/mail/sender";
import { requestSignInCode, verifySignInCode } from "../../src/people/sign-in";
import { BASE } from "../helpers/api";
import { Browser, freshEmail, tenantWithOwner } from "../helpers/console";

const KEY = "re_test_0123456789";
const FROM = "Media API <login@example.com>";

/** The Worker's configuration with mail going to the fake API's `scenario` instead of the outbox. */
function mailingEnv(scenario: "ok" | "fail"): Env {
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
    await requestSignInCode(e, { email, ...client() });
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

  it("a refusal is 502 email_send_failed, retryable, and the code it carried never works", async () => {
    const email = freshEmail("mail-fails");
    await tenantWithOwner(email);
    const e = mailingEnv("fail");
    const err = await requestSignInCode(e, { email, ...client() }).catch((x) => x);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe("email_send_failed");
    expect(err.status).toBe(502);
    expect(err.toBody("r").retryable).toBe(true);
    // The API saw the code (it refused to deliver it): that code is void.
    const refused = (await sent("fail")).filter((r) => r.body?.to?.[0] === email);
    expect(refused).toHaveLength(1);
    expect(refused[0].status).toBe(500);
    const code = /(\d{6})/.exec(refused[0].body.subject)?.[1] as string;
    expect(await verifySignInCode(e, { email, code, ...client() })).toEqual({ ok: false, reason: "no_code" });
  });

  it("the console's sign-in form answers 502 with the reason, and a retry that goes through works", async () => {
    const email = freshEmail("mail-fails-page");
    await tenantWithOwner(email);
    const app = createApp();
    const browser = new Browser();
    const viaApp = async (e: Env, path: string, init: RequestInit) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request(`${BASE}${path}`, init), e, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    const form = await viaApp(mailingEnv("fail"), "/console/sign-in", { headers: { "CF-Connecting-IP": browser.ip } });
    const cookie = form.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] as string;
    const post = (e: Env) =>
      viaApp(e, "/console/sign-in", {
        method: "POST",
        headers: {
          Cookie: cookie,
          Origin: BASE,
          "Content-Type": "application/x-www-form-urlencoded",
          "CF-Connecting-IP": browser.ip,
        },
        body: new URLSearchParams({ email, _csrf: token }).toString(),
      });
    const failed = await post(mailingEnv("fail"));
    expect(failed.status).toBe(502);
    expect(await failed.text()).toContain("could not be sent");
    const retried = await post(mailingEnv("ok"));
    expect(retried.status).toBe(200);
    expect(await retried.text()).toContain("Check your mail");
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
