/** The audit log's rows in the tenant's AccountObject (docs/storage/account-object.md, "Audit log"). */
import type { AccountContext } from "../tenancy/account-context";

export interface AuditActor {
  type: "user" | "api_key" | "operator";
  id: string;
  email?: string;
}

export interface AuditInput {
  actor: AuditActor;
  /** `<object>.<verb>`, e.g. `member.invite`, `api_key.create`. */
  action: string;
  /** What was acted on: an id or an address. */
  target?: string;
  ip?: string | null;
  user_agent?: string | null;
  details?: Record<string, unknown>;
}

export interface AuditEntry {
  /** Grows with every entry: the listing's order and cursor. */
  id: number;
  at: string;
  actor: AuditActor;
  action: string;
  target: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown> | null;
}

export const AUDIT_TABLE_SQL = `
  CREATE TABLE audit_log (
    seq INTEGER PRIMARY KEY, at TEXT NOT NULL, actor_type TEXT NOT NULL, actor_id TEXT NOT NULL, actor_email TEXT,
    action TEXT NOT NULL, target TEXT, ip TEXT, user_agent TEXT, details TEXT);
`;

export function appendAudit(sql: SqlStorage, e: AuditInput, at = new Date().toISOString()): void {
  sql.exec(
    "INSERT INTO audit_log (at, actor_type, actor_id, actor_email, action, target, ip, user_agent, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    at,
    e.actor.type,
    e.actor.id,
    e.actor.email ?? null,
    e.action.slice(0, 100),
    e.target?.slice(0, 300) ?? null,
    e.ip?.slice(0, 64) ?? null,
    e.user_agent?.slice(0, 300) ?? null,
    e.details ? JSON.stringify(e.details) : null,
  );
}

/** Newest first; `before` is the id of the last entry of the previous page. */
export function readAudit(sql: SqlStorage, q: { limit: number; before?: number }): { entries: AuditEntry[]; has_more: boolean } {
  const rows = sql
    .exec<{
      seq: number;
      at: string;
      actor_type: AuditActor["type"];
      actor_id: string;
      actor_email: string | null;
      action: string;
      target: string | null;
      ip: string | null;
      user_agent: string | null;
      details: string | null;
    }>(
      `SELECT seq, at, actor_type, actor_id, actor_email, action, target, ip, user_agent, details FROM audit_log
       ${q.before !== undefined ? "WHERE seq < ?" : ""} ORDER BY seq DESC LIMIT ?`,
      ...(q.before !== undefined ? [q.before] : []),
      q.limit + 1,
    )
    .toArray();
  const entries = rows.slice(0, q.limit).map((r) => ({
    id: r.seq,
    at: r.at,
    actor: { type: r.actor_type, id: r.actor_id, ...(r.actor_email ? { email: r.actor_email } : {}) },
    action: r.action,
    target: r.target,
    ip: r.ip,
    user_agent: r.user_agent,
    details: r.details ? (JSON.parse(r.details) as Record<string, unknown>) : null,
  }));
  return { entries, has_more: rows.length > q.limit };
}

/** Runs `write` and appends `audit` (if any) at `now`, in one transaction. */
export function writeAudited<T>(ctx: AccountContext, audit: AuditInput | undefined, now: string, write: () => T): T {
  return ctx.transaction(() => {
    const out = write();
    if (audit) appendAudit(ctx.sql, audit, now);
    return out;
  });
}
