/**
 * Sign-in by email and a one-time code (src/people/policy.ts has the numbers). Asking for a code
 * answers the same, in the same time, whether or not the address belongs to anyone: the answer
 * is given once the address is checked and counted against the limits, and the code is made and
 * mailed after it (the Worker's waitUntil), only to a person the service knows (a tenant's member
 * or invitee). A mail that cannot be sent voids its code and is logged; the person asks again.
 * A deployment with no way to send mail at all answers `email_send_failed`, to every address alike.
 */

import { recordAudit } from "../audit/audit";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { publicBaseUrl } from "../lib/public-url";
import { sendFailed } from "../mail/message";
import { mailConfigured, mailSender, NOT_CONFIGURED } from "../mail/sender";
import { accountSlice } from "../tenancy/account-slice";
import type { MembersAccountSlice } from "./account-slice";
import { normaliseCode } from "./codes";
import { normaliseEmail } from "./email";
import { CODE_TTL_MS } from "./policy";
import { endSession, type ResolvedSession, type StartedSession, startSession } from "./sessions";
import { takeCodeRequest, takeUnknownAttempt } from "./sign-in-limits";
import { userObject } from "./user-stub";
import { userIdByEmail } from "./users";

export interface ClientMeta {
  ip: string | null;
  user_agent: string | null;
  /** Tests move the clock; everyone else leaves it. */
  now?: number;
}

function invalidEmail(): ApiError {
  return new ApiError("invalid_request", "Enter an email address such as name@example.com.", {
    param: "/email",
    details: { errors: [{ loc: ["body", "email"], reason: "must be an email address" }] },
  });
}

/**
 * Answers a request for a code; `background` (the Worker's waitUntil) carries on after the answer
 * to send one when the address belongs to someone, and otherwise does nothing. The answer is the
 * same either way and waits for neither.
 */
export async function requestSignInCode(
  env: Env,
  input: { email: unknown } & ClientMeta,
  background: (work: Promise<unknown>) => void,
): Promise<{ email: string }> {
  const email = normaliseEmail(input.email);
  if (!email) throw invalidEmail();
  const now = input.now ?? Date.now();
  await takeCodeRequest(env, email, input.ip, now);
  if (!mailConfigured(env)) throw sendFailed(NOT_CONFIGURED);
  background(
    mailSignInCode(env, email, now, input.ip).catch((e) => {
      // The address is not logged: the log would tell who asked.
      console.error(JSON.stringify({ level: "error", message: "sign-in code not sent", error: String(e) }));
    }),
  );
  return { email };
}

/** A code for a person the service knows, and its mail; a mail that does not go through voids the code. */
async function mailSignInCode(env: Env, email: string, now: number, ip: string | null): Promise<void> {
  const userId = await userIdByEmail(env, email);
  if (!userId) return;
  const user = userObject(env, userId);
  const issued = await user.issueCode(now, ip);
  if (!issued) return;
  const base = publicBaseUrl(env);
  try {
    await mailSender(env).send({
      to: email,
      subject: `Your sign-in code: ${issued.code}`,
      text: [
        `Your code to sign in to the console is ${issued.code}.`,
        `It works once, for ${CODE_TTL_MS / 60_000} minutes.`,
        ...(base ? [`Sign in at ${base}/console/sign-in`] : []),
        "If you did not ask for it, ignore this message: nobody can sign in without the code.",
      ].join("\n"),
    });
  } catch (e) {
    await user.voidCode(issued.code_id);
    throw e;
  }
}

export type SignInOutcome =
  | { ok: true; started: StartedSession; tenant_id: string | null }
  | { ok: false; reason: "wrong"; attempts_left: number }
  | { ok: false; reason: "malformed" | "expired" | "too_many_attempts" | "no_code" };

/** Checks a code; the right one starts a session on the person's first tenant and activates their invitations. */
export async function verifySignInCode(env: Env, input: { email: unknown; code: unknown } & ClientMeta): Promise<SignInOutcome> {
  const email = normaliseEmail(input.email);
  if (!email) throw invalidEmail();
  const code = typeof input.code === "string" ? normaliseCode(input.code) : null;
  if (!code) return { ok: false, reason: "malformed" };
  const now = input.now ?? Date.now();
  const userId = await userIdByEmail(env, email);
  if (!userId) {
    const { attempts_left } = await takeUnknownAttempt(env, email, now);
    return attempts_left > 0 ? { ok: false, reason: "wrong", attempts_left } : { ok: false, reason: "too_many_attempts" };
  }
  const user = userObject(env, userId);
  const check = await user.verifyCode(code, now);
  if (!check.ok) return check;

  // Invitations become memberships at the first sign-in; the first tenant that still counts them in,
  // and is not disabled if another is not, is where the session starts.
  let tenantId: string | null = null;
  let firstDisabled: string | null = null;
  for (const t of await user.tenants()) {
    const account = accountSlice<MembersAccountSlice>(env, t.tenant_id);
    const found = await account.member(userId);
    if (!found) {
      await user.dropTenant(t.tenant_id);
      continue;
    }
    if (found.member.status === "invited") {
      await account.activateMember(userId);
      await recordAudit(env, t.tenant_id, {
        actor: { type: "user", id: userId, email },
        ip: input.ip,
        user_agent: input.user_agent,
        action: "member.join",
        target: email,
        details: { role: found.member.role },
      });
    }
    if (found.tenant.status === "active") tenantId ??= t.tenant_id;
    else firstDisabled ??= t.tenant_id;
  }
  tenantId ??= firstDisabled;
  const started = await startSession(env, userId, { tenant_id: tenantId, ip: input.ip, user_agent: input.user_agent, now });
  if (tenantId) {
    await recordAudit(env, tenantId, {
      actor: { type: "user", id: userId, email },
      ip: input.ip,
      user_agent: input.user_agent,
      action: "session.sign_in",
      target: email,
    });
  }
  return { ok: true, started, tenant_id: tenantId };
}

/** Sign-out: the session ends on the server, recorded in the tenant it was on. */
export async function signOut(env: Env, signedIn: ResolvedSession, client: ClientMeta): Promise<void> {
  await endSession(env, signedIn.session, client.now);
  if (signedIn.current) {
    await recordAudit(env, signedIn.current.tenant_id, {
      actor: { type: "user", id: signedIn.session.user_id, email: signedIn.session.email },
      action: "session.sign_out",
      target: signedIn.session.email,
      ip: client.ip,
      user_agent: client.user_agent,
    });
  }
}
