/**
 * Sign-in by email and a one-time code, sign-out, and the tenant switcher. The answers to "send
 * me a code" are the same whether or not the address belongs to anyone.
 */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "../../errors/api-error";
import {
  CODE_MAX_ATTEMPTS,
  CODE_TTL_MS,
  requestSignInCode,
  SESSION_ABSOLUTE_MS,
  type SignInOutcome,
  signOut,
  switchTenant,
  verifySignInCode,
} from "../../services/people";
import type { ConsoleEnv } from "../context";
import { clearCookie, writeCookie } from "../cookies";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { formField as postedField } from "../form-body";
import { Layout } from "../layout";
import { render } from "../render";
import { clientIp } from "../request-meta";
import { takeReturnTo } from "../return-to";
import { requireSignedIn, SESSION_COOKIE } from "../session";

function meta(c: Context<ConsoleEnv>) {
  return { ip: clientIp(c), user_agent: c.req.header("User-Agent") ?? null };
}

async function formField(c: Context<ConsoleEnv>, name: string): Promise<string> {
  return postedField(c, name) ?? "";
}

function EmailForm(props: { c: Context<ConsoleEnv>; email?: string }) {
  return (
    <form class="stack" method="post" action="/console/sign-in">
      {csrfField(props.c)}
      <label for="email">Email address</label>
      <input id="email" name="email" type="email" autocomplete="email" required value={props.email ?? ""} autofocus />
      <button type="submit">Email me a sign-in code</button>
    </form>
  );
}

function emailPage(c: Context<ConsoleEnv>, opts: { email?: string; flash?: Flash; status?: ContentfulStatusCode } = {}) {
  return render(
    c,
    <Layout title="Sign in" flash={opts.flash}>
      <p>We will email you a 6-digit code. No password needed.</p>
      <EmailForm c={c} email={opts.email} />
    </Layout>,
    opts.status ?? 200,
  );
}

function codePage(
  c: Context<ConsoleEnv>,
  email: string,
  opts: { flash?: Flash; status?: ContentfulStatusCode; fresh?: boolean } = {},
) {
  const dead = opts.fresh === false;
  return render(
    c,
    <Layout title={dead ? "Request a new code" : "Check your mail"} flash={opts.flash}>
      {dead ? null : (
        <>
          <p>
            If <strong>{email}</strong> can sign in here, a code is on its way to it. It works once, for {CODE_TTL_MS / 60_000}{" "}
            minutes, and allows {CODE_MAX_ATTEMPTS} attempts.
          </p>
          <form class="stack" method="post" action="/console/sign-in/code">
            {csrfField(c)}
            <input type="hidden" name="email" value={email} />
            <label for="code">Sign-in code</label>
            <input
              id="code"
              name="code"
              type="text"
              inputmode="numeric"
              autocomplete="one-time-code"
              pattern="[0-9 \-]*"
              maxlength={9}
              required
              autofocus
            />
            <button type="submit">Sign in</button>
          </form>
        </>
      )}
      <h2>No code?</h2>
      <form method="post" action="/console/sign-in">
        {csrfField(c)}
        <input type="hidden" name="email" value={email} />
        <button type="submit" class="secondary">
          Send a new code
        </button>
      </form>
      <p>
        <a href="/console/sign-in">Use another address</a>
      </p>
    </Layout>,
    opts.status ?? 200,
  );
}

/** What a failed code check tells the person. */
function failureText(outcome: Exclude<SignInOutcome, { ok: true }>): { text: string; fresh: boolean } {
  switch (outcome.reason) {
    case "wrong":
      return {
        text: `That code is not right. ${outcome.attempts_left} ${outcome.attempts_left === 1 ? "attempt" : "attempts"} left.`,
        fresh: true,
      };
    case "malformed":
      return { text: "Enter the 6 digits of the code from the email.", fresh: true };
    case "expired":
      return { text: "That code has expired. Ask for a new one.", fresh: false };
    case "too_many_attempts":
      return { text: "Too many wrong attempts: that code no longer works. Ask for a new one.", fresh: false };
    case "no_code":
      return { text: "There is no usable code for this address. Ask for a new one.", fresh: false };
  }
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/sign-in", async (c) => {
    if (c.get("member")) return c.redirect("/console", 303);
    return emailPage(c, { flash: takeFlash(c) });
  });

  app.post("/sign-in", async (c) => {
    const email = await formField(c, "email");
    try {
      const sent = await requestSignInCode(c.env, { email, ...meta(c) }, (work) => c.executionCtx.waitUntil(work));
      return codePage(c, sent.email);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      if (e.retryAfter !== undefined) c.header("Retry-After", String(Math.ceil(e.retryAfter)));
      if (e.code === "invalid_request" || e.code === "rate_limited" || e.code === "email_send_failed") {
        return emailPage(c, { email, flash: { kind: "error", text: e.message }, status: e.status as ContentfulStatusCode });
      }
      throw e;
    }
  });

  app.post("/sign-in/code", async (c) => {
    const email = await formField(c, "email");
    const code = await formField(c, "code");
    let outcome: SignInOutcome;
    try {
      outcome = await verifySignInCode(c.env, { email, code, ...meta(c) });
    } catch (e) {
      if (e instanceof ApiError && e.code === "invalid_request") {
        return emailPage(c, { email, flash: { kind: "error", text: e.message }, status: 422 });
      }
      throw e;
    }
    if (outcome.ok) {
      writeCookie(c, SESSION_COOKIE, outcome.started.cookie, SESSION_ABSOLUTE_MS / 1000);
      // Back to the page that sent the person here (an OAuth consent, a device code), if any.
      return c.redirect(takeReturnTo(c) ?? "/console", 303);
    }
    const failure = failureText(outcome);
    return codePage(c, email.trim().toLowerCase(), {
      flash: { kind: "error", text: failure.text },
      status: 400,
      fresh: failure.fresh,
    });
  });

  app.post("/sign-out", async (c) => {
    const signedIn = c.get("session");
    if (signedIn) await signOut(c.env, signedIn, meta(c));
    clearCookie(c, SESSION_COOKIE);
    return redirectWithFlash(c, "/console/sign-in", { kind: "ok", text: "You are signed out." });
  });

  app.post("/switch-tenant", requireSignedIn, async (c) => {
    const tenantId = await formField(c, "tenant_id");
    const signedIn = c.get("session");
    if (!(await switchTenant(c.env, signedIn.session, tenantId))) {
      throw new ApiError("forbidden", "You are not a member of that tenant.");
    }
    return c.redirect("/console", 303);
  });
}
