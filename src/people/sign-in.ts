/**
 * Sign-in by email and a one-time code (src/people/policy.ts has the numbers). Asking for a code
 * answers the same whether or not the address belongs to anyone; a code goes only to a person the
 * service knows (a tenant's member or invitee). Mail that cannot be sent is `email_send_failed`
 * and the code just made is void.
 */
import { accountFor } from "../accounts/service";
import { recordAudit } from "../audit/audit";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { publicBaseUrl } from "../lib/public-url";
import { mailSender } from "../mail/sender";
import { normaliseCode } from "./codes";
import { normaliseEmail } from "./email";
import { CODE_TTL_MS } from "./policy";
import { endSession, type ResolvedSession, type StartedSession, startSession } from "./sessions";
import { takeCodeRequest, takeUnknownAttempt } from "./sign-in-limits";
import { userIdByEmail, userObject } from "./users";

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

/** Sends a code when the address belongs to someone; otherwise does nothing, visibly the same. */
export async function requestSignInCode(env: Env, input: { email: unknown } & ClientMeta): Promise<{ email: string }> {
  const email = normaliseEmail(input.email);
  if (!email) throw invalidEmail();
  const now = input.now ?? Date.now();
  await takeCodeRequest(env, email, input.ip, now);
  const userId = await userIdByEmail(env, email);
  if (!userId) return { email };
  const user = userObject(env, userId);
  const issued = await user.issueCode(now, input.ip);
  if (!issued) return { email };
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
  return { email };
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
    const account = accountFor(env, t.tenant_id);
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
