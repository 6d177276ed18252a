/**
 * A tenant's members, in its AccountObject (docs/storage/account-object.md, "Members"): the one
 * place that says who may do what in the tenant. Every change checks and writes in one step, so
 * two owners demoting each other at once cannot leave the tenant without one.
 */
import type { Role } from "./roles";

export type MemberStatus = "invited" | "active";

export type MemberRecord = {
  user_id: string;
  email: string;
  role: Role;
  /** `invited` until the person first signs in. */
  status: MemberStatus;
  invited_by: string | null;
  created_at: string;
  joined_at: string | null;
};

export const MEMBERS_TABLE_SQL = `
  CREATE TABLE members (
    user_id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, role TEXT NOT NULL, status TEXT NOT NULL,
    invited_by TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, joined_at TEXT);
`;

const COLUMNS = "user_id, email, role, status, invited_by, created_at, joined_at";

export function readMember(sql: SqlStorage, userId: string): MemberRecord | null {
  return sql.exec<MemberRecord>(`SELECT ${COLUMNS} FROM members WHERE user_id = ?`, userId).toArray()[0] ?? null;
}

export function readMembers(sql: SqlStorage): MemberRecord[] {
  return sql.exec<MemberRecord>(`SELECT ${COLUMNS} FROM members ORDER BY created_at, email`).toArray();
}

/** Whom the service mails about the tenant: its active owners. */
export function activeOwnerMembers(sql: SqlStorage): MemberRecord[] {
  return readMembers(sql).filter((m) => m.role === "owner" && m.status === "active");
}

export function insertMember(
  sql: SqlStorage,
  m: { user_id: string; email: string; role: Role; status: MemberStatus; invited_by: string | null },
  now: string,
): void {
  sql.exec(
    "INSERT INTO members (user_id, email, role, status, invited_by, created_at, updated_at, joined_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    m.user_id,
    m.email,
    m.role,
    m.status,
    m.invited_by,
    now,
    now,
    m.status === "active" ? now : null,
  );
}

/** Owners who have signed in (or were made by the operator): the ones a tenant must keep one of. */
export function activeOwners(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM members WHERE role = 'owner' AND status = 'active'").one().n;
}
