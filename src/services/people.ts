/**
 * People and their sessions as the doors reach them: sign-in, sessions, members, roles and what
 * they may do, and the outbox that carries sign-in codes.
 */

export { createTenantWithOwner } from "../accounts/tenant-with-owner";
export { outboxOf } from "../mail/outbox-stub";
export type { Member } from "../people/member";
export { changeMemberRole, inviteMember, listMembers, removeMember } from "../people/members";
export { CODE_MAX_ATTEMPTS, CODE_TTL_MS, SESSION_ABSOLUTE_MS } from "../people/policy";
export type { Acting } from "../people/principal";
export { auditFields } from "../people/principal";
export type { Action } from "../people/roles";
export { can, ROLES } from "../people/roles";
export { keyedHash } from "../people/secret";
export type { ResolvedSession } from "../people/sessions";
export { insecureCookies, resolveSession, switchTenant } from "../people/sessions";
export type { SignInOutcome } from "../people/sign-in";
export { requestSignInCode, signOut, verifySignInCode } from "../people/sign-in";
