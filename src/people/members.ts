/**
 * A tenant's members: invite by address, change a role, remove. Every door (console, operator)
 * calls these with its principal; they check the role, keep the last owner, write the audit entry
 * with the change, and keep each person's list of tenants (their UserObject) in step.
 */

import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { tenantNotFound } from "../errors/not-found";
import { publicBaseUrl } from "../lib/public-url";
import { mailSender } from "../mail/sender";
import { accountSlice, getTenantOr404 } from "../tenancy/account-slice";
import type { MembersAccountSlice } from "./account-slice";
import { normaliseEmail } from "./email";
import type { MemberRecord } from "./members-store";
import { type Acting, auditFields, authorize } from "./principal";
import { isRole, ROLES, type Role } from "./roles";
import { userObject } from "./user-stub";
import { ensureUser } from "./users";

export type { MemberRecord } from "./members-store";

function badRole(): ApiError {
  return new ApiError("invalid_request", `The role must be one of ${ROLES.join(", ")}.`, {
    param: "/role",
    details: { errors: [{ loc: ["body", "role"], reason: `must be one of ${ROLES.join(", ")}` }] },
  });
}

function notMember(userId: string): ApiError {
  return new ApiError("not_found", `User ${userId} is not a member of this tenant.`);
}

function lastOwner(): ApiError {
  return new ApiError("conflict", "A tenant keeps at least one owner: make another member owner first.", {
    details: { action: "add_owner_first" },
  });
}

export async function listMembers(env: Env, tenantId: string, acting: Acting): Promise<MemberRecord[]> {
  authorize(acting.principal, tenantId, "members:manage");
  return accountSlice<MembersAccountSlice>(env, tenantId).members();
}

/** Invites an address with a role; the person becomes active at their first sign-in. */
export async function inviteMember(
  env: Env,
  tenantId: string,
  input: { email: unknown; role: unknown },
  acting: Acting,
): Promise<MemberRecord> {
  authorize(acting.principal, tenantId, "members:manage");
  const email = normaliseEmail(input.email);
  if (!email) {
    throw new ApiError("invalid_request", "Enter an email address such as name@example.com.", {
      param: "/email",
      details: { errors: [{ loc: ["body", "email"], reason: "must be an email address" }] },
    });
  }
  if (!isRole(input.role)) throw badRole();
  const role: Role = input.role;
  const tenant = await getTenantOr404(env, tenantId);
  const user = await ensureUser(env, email);
  const fields = auditFields(acting);
  const account = accountSlice<MembersAccountSlice>(env, tenantId);
  const added = await account.addMember(
    { user_id: user.user_id, email, role, status: "invited", invited_by: fields.actor.id },
    { ...fields, action: "member.invite", target: email, details: { role } },
  );
  if (!added.ok) {
    if (added.code === "exists") {
      throw new ApiError("conflict", `${email} is already a member of this tenant.`, { details: { action: "change_role" } });
    }
    throw tenantNotFound(tenantId);
  }
  await userObject(env, user.user_id).addTenant(tenantId, tenant.name);
  const base = publicBaseUrl(env);
  try {
    await mailSender(env).send({
      to: email,
      subject: `You are invited to ${tenant.name}`,
      text: [
        `${fields.actor.email ?? "The operator"} invited you to ${tenant.name} as ${role}.`,
        base
          ? `Sign in at ${base}/console/sign-in with this address; a one-time code will be mailed to you.`
          : "Sign in to the console with this address; a one-time code will be mailed to you.",
      ].join("\n"),
    });
  } catch (e) {
    // No invitation without its mail: undo it, so that inviting again is a clean retry.
    await account.changeMember(user.user_id, null, { ...fields, action: "member.invite_undone", target: email });
    await userObject(env, user.user_id).dropTenant(tenantId);
    throw e;
  }
  return added.member;
}

export async function changeMemberRole(
  env: Env,
  tenantId: string,
  userId: string,
  roleInput: unknown,
  acting: Acting,
): Promise<MemberRecord> {
  authorize(acting.principal, tenantId, "members:manage");
  if (!isRole(roleInput)) throw badRole();
  const account = accountSlice<MembersAccountSlice>(env, tenantId);
  const before = await account.member(userId);
  if (!before) throw notMember(userId);
  if (before.member.role === roleInput) return before.member;
  const changed = await account.changeMember(userId, roleInput, {
    ...auditFields(acting),
    action: "member.role_change",
    target: before.member.email,
    details: { from: before.member.role, to: roleInput },
  });
  if (!changed.ok) throw changed.code === "last_owner" ? lastOwner() : notMember(userId);
  return changed.member;
}

/** Removes a member; their sessions lose this tenant at their next request. */
export async function removeMember(env: Env, tenantId: string, userId: string, acting: Acting): Promise<MemberRecord> {
  authorize(acting.principal, tenantId, "members:manage");
  const account = accountSlice<MembersAccountSlice>(env, tenantId);
  const before = await account.member(userId);
  if (!before) throw notMember(userId);
  const removed = await account.changeMember(userId, null, {
    ...auditFields(acting),
    action: "member.remove",
    target: before.member.email,
    details: { role: before.member.role },
  });
  if (!removed.ok) throw removed.code === "last_owner" ? lastOwner() : notMember(userId);
  await userObject(env, userId).dropTenant(tenantId);
  return removed.member;
}
