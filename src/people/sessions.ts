/**
 * Console sessions. The cookie holds `<user_id>.<token>`: the token is 256 random bits, and only
 * its SHA-256 is stored, in the person's UserObject, with an idle and an absolute expiry
 * (src/people/policy.ts). Each request finds the session there, then the person's role in the
 * session's tenant in that tenant's AccountObject, which alone decides it: a member removed or
 * demoted loses that access on their next request, and so does everyone in a tenant the operator
 * disables (this is the console's principal resolution; nothing of it is cached).
 */

import type { Env } from "../env";
import { sha256Hex } from "../lib/crypto";
import { randomBase62 } from "../lib/ids";
import { accountSlice } from "../tenancy/account-slice";
import type { MembersAccountSlice } from "./account-slice";
import type { Role } from "./roles";
import { userObject } from "./user-stub";
import type { SessionView, UserTenant } from "./user-views";

const COOKIE_VALUE = /^(usr_[0-9a-z]{26})\.([0-9A-Za-z]{43})$/;

/** The local configuration serves plain http: its cookies cannot be Secure (src/console/cookies.ts). */
export function insecureCookies(env: Env): boolean {
  return env.CONSOLE_INSECURE_COOKIES === "true";
}

function tokenHash(token: string): Promise<string> {
  return sha256Hex(`session:${token}`);
}

export interface StartedSession {
  /** The cookie's value; shown to no one else and never stored. */
  cookie: string;
  session: SessionView;
}

export async function startSession(
  env: Env,
  userId: string,
  input: { tenant_id: string | null; ip: string | null; user_agent: string | null; now?: number },
): Promise<StartedSession> {
  const token = randomBase62(32);
  const session = await userObject(env, userId).startSession({
    token_hash: await tokenHash(token),
    tenant_id: input.tenant_id,
    now: input.now ?? Date.now(),
    ip: input.ip,
    user_agent: input.user_agent,
  });
  if (!session) throw new Error(`user ${userId} does not exist`);
  return { cookie: `${userId}.${token}`, session };
}

/** A signed-in person: their session, their tenants, and where they stand in the session's tenant (null: none left, or disabled). */
export interface ResolvedSession {
  session: SessionView;
  tenants: UserTenant[];
  current: { tenant_id: string; tenant_name: string; role: Role } | null;
  /** The session's tenant when the operator has disabled it: no one acts in it until it is enabled again. */
  disabled: { tenant_id: string; tenant_name: string } | null;
}

/** The live session of a cookie value, or null (malformed, unknown, ended, idle too long, too old). */
export async function resolveSession(env: Env, cookie: string | undefined, now = Date.now()): Promise<ResolvedSession | null> {
  const m = cookie ? COOKIE_VALUE.exec(cookie) : null;
  if (!m) return null;
  const user = userObject(env, m[1] as string);
  const found = await user.sessionAndTenants(await tokenHash(m[2] as string), now);
  if (!found) return null;
  const session: SessionView = { ...found.session };
  let tenants: UserTenant[] = [...found.tenants];
  // The session's tenant first, then the others: the first that still counts this person in.
  const order = [...tenants].sort(
    (a, b) => Number(b.tenant_id === session.tenant_id) - Number(a.tenant_id === session.tenant_id),
  );
  for (const t of order) {
    const found = await accountSlice<MembersAccountSlice>(env, t.tenant_id).member(session.user_id);
    if (found) {
      if (t.tenant_id !== session.tenant_id) {
        await user.setSessionTenant(session.session_id, t.tenant_id);
        session.tenant_id = t.tenant_id;
      }
      const tenant = { tenant_id: t.tenant_id, tenant_name: found.tenant.name };
      if (found.tenant.status !== "active") return { session, tenants, current: null, disabled: tenant };
      return { session, tenants, current: { ...tenant, role: found.member.role }, disabled: null };
    }
    // No longer a member there: forget it.
    await user.dropTenant(t.tenant_id);
    tenants = tenants.filter((x) => x.tenant_id !== t.tenant_id);
  }
  return { session, tenants, current: null, disabled: null };
}

/** Moves a session to another of its person's tenants; false when they are no member there. */
export async function switchTenant(env: Env, session: SessionView, tenantId: string): Promise<boolean> {
  const user = userObject(env, session.user_id);
  const tenants = await user.tenants();
  if (!tenants.some((t) => t.tenant_id === tenantId)) return false;
  if (!(await accountSlice<MembersAccountSlice>(env, tenantId).member(session.user_id))) return false;
  await user.setSessionTenant(session.session_id, tenantId);
  return true;
}

/** Sign-out: the session ends on the server, so a copied cookie is worth nothing after it. */
export async function endSession(
  env: Env,
  session: Pick<SessionView, "user_id" | "session_id">,
  now = Date.now(),
): Promise<void> {
  await userObject(env, session.user_id).endSession(session.session_id, now);
}
