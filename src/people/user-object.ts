import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { timingSafeEqualStrings } from "../lib/crypto";
import { newId } from "../lib/ids";
import { migratedSql } from "../storage/migrations";
import { generateCode } from "./codes";
import { CODE_MAX_ATTEMPTS, CODE_TTL_MS, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, SESSION_TOUCH_MS } from "./policy";
import { keyedHash } from "./secret";
import type { UserRpc } from "./user-rpc";
import { USER_MIGRATIONS } from "./user-schema";
import type { CodeCheck, SessionView, UserTenant, UserView } from "./user-views";

type CodeStatus = "live" | "used" | "superseded" | "void" | "dead" | "expired";

/**
 * One per person (named by user id, `usr_…`; the directory maps `user-email:<address>` to it).
 * Holds who they are, the tenants they belong to (a mirror for the switcher: each tenant's
 * AccountObject decides the role), their sign-in codes and their sessions — codes and session
 * tokens as keyed hashes only. Schema: docs/storage/user-object.md.
 */
export class UserObject extends DurableObject<Env> implements UserRpc {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = migratedSql(ctx, USER_MIGRATIONS);
  }

  private row(): UserView | null {
    return this.sql.exec<UserView>("SELECT user_id, email, created_at, last_sign_in_at FROM user LIMIT 1").toArray()[0] ?? null;
  }

  /** Creates the person once; later calls return them as they are. */
  init(userId: string, email: string): UserView {
    const existing = this.row();
    if (existing) return existing;
    this.sql.exec("INSERT INTO user (user_id, email, created_at) VALUES (?, ?, ?)", userId, email, new Date().toISOString());
    return this.row() as UserView;
  }

  profile(): UserView | null {
    return this.row();
  }

  // ------------------------------------------------------------------ tenants (mirror)

  addTenant(tenantId: string, tenantName: string): void {
    this.sql.exec(
      "INSERT INTO tenants (tenant_id, tenant_name, added_at) VALUES (?, ?, ?) ON CONFLICT (tenant_id) DO UPDATE SET tenant_name = excluded.tenant_name",
      tenantId,
      tenantName,
      new Date().toISOString(),
    );
  }

  /** The tenant is forgotten, and sessions standing on it stand on none (the console picks another). */
  dropTenant(tenantId: string): void {
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM tenants WHERE tenant_id = ?", tenantId);
      this.sql.exec("UPDATE sessions SET tenant_id = NULL WHERE tenant_id = ?", tenantId);
    });
  }

  tenants(): UserTenant[] {
    return this.sql.exec<UserTenant>("SELECT tenant_id, tenant_name FROM tenants ORDER BY added_at, tenant_id").toArray();
  }

  // ------------------------------------------------------------------ sign-in codes

  /**
   * A new code for this person. Only its keyed hash is kept; the code itself is returned once,
   * to be mailed. Every older code still usable is superseded.
   */
  async issueCode(now: number, ip: string | null): Promise<{ code_id: string; code: string; expires_at: number } | null> {
    const user = this.row();
    if (!user) return null;
    const code = generateCode();
    const hash = await keyedHash(this.env, "sign-in-code", `${user.user_id}:${code}`);
    const codeId = newId("code");
    const expiresAt = now + CODE_TTL_MS;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("UPDATE sign_in_codes SET status = 'superseded' WHERE status = 'live'");
      this.sql.exec(
        "INSERT INTO sign_in_codes (code_id, code_hash, status, attempts, created_at, expires_at, ip) VALUES (?, ?, 'live', 0, ?, ?, ?)",
        codeId,
        hash,
        now,
        expiresAt,
        ip,
      );
      // Keep the last few for the record, not every code ever sent.
      this.sql.exec(
        "DELETE FROM sign_in_codes WHERE code_id NOT IN (SELECT code_id FROM sign_in_codes ORDER BY created_at DESC LIMIT 20)",
      );
    });
    return { code_id: codeId, code, expires_at: expiresAt };
  }

  /** A code whose mail could not be sent is never usable. */
  voidCode(codeId: string): void {
    this.sql.exec("UPDATE sign_in_codes SET status = 'void' WHERE code_id = ?", codeId);
  }

  /**
   * Checks a typed code against the newest one. The candidate's hash is computed before the row is
   * read, so the check and the attempt count are one synchronous step: two guesses at once cannot
   * both see the same count.
   */
  async verifyCode(input: string, now: number): Promise<CodeCheck> {
    const user = this.row();
    if (!user) return { ok: false, reason: "no_code" };
    const candidate = await keyedHash(this.env, "sign-in-code", `${user.user_id}:${input}`);
    const latest = this.sql
      .exec<{ code_id: string; code_hash: string; status: CodeStatus; attempts: number; expires_at: number }>(
        "SELECT code_id, code_hash, status, attempts, expires_at FROM sign_in_codes ORDER BY created_at DESC, rowid DESC LIMIT 1",
      )
      .toArray()[0];
    if (!latest) return { ok: false, reason: "no_code" };
    if (latest.status === "dead") return { ok: false, reason: "too_many_attempts" };
    if (latest.status === "expired") return { ok: false, reason: "expired" };
    if (latest.status !== "live") return { ok: false, reason: "no_code" };
    if (now >= latest.expires_at) {
      this.sql.exec("UPDATE sign_in_codes SET status = 'expired' WHERE code_id = ?", latest.code_id);
      return { ok: false, reason: "expired" };
    }
    if (timingSafeEqualStrings(candidate, latest.code_hash)) {
      this.sql.exec("UPDATE sign_in_codes SET status = 'used', attempts = attempts + 1 WHERE code_id = ?", latest.code_id);
      return { ok: true };
    }
    const attempts = latest.attempts + 1;
    const dead = attempts >= CODE_MAX_ATTEMPTS;
    this.sql.exec(
      "UPDATE sign_in_codes SET attempts = ?, status = ? WHERE code_id = ?",
      attempts,
      dead ? "dead" : "live",
      latest.code_id,
    );
    return dead
      ? { ok: false, reason: "too_many_attempts" }
      : { ok: false, reason: "wrong", attempts_left: CODE_MAX_ATTEMPTS - attempts };
  }

  // ------------------------------------------------------------------ sessions

  /** A session for a token whose hash is given (the token itself never reaches storage). */
  startSession(input: {
    token_hash: string;
    tenant_id: string | null;
    now: number;
    ip: string | null;
    user_agent: string | null;
  }): SessionView | null {
    const user = this.row();
    if (!user) return null;
    const sessionId = newId("ses");
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "INSERT INTO sessions (session_id, token_hash, tenant_id, created_at, last_seen_at, expires_at, ip, user_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        sessionId,
        input.token_hash,
        input.tenant_id,
        input.now,
        input.now,
        input.now + SESSION_ABSOLUTE_MS,
        input.ip,
        input.user_agent?.slice(0, 300) ?? null,
      );
      this.sql.exec("UPDATE user SET last_sign_in_at = ?", new Date(input.now).toISOString());
      // Sessions long over are of no use to anyone.
      this.sql.exec("DELETE FROM sessions WHERE expires_at < ?", input.now - SESSION_ABSOLUTE_MS);
    });
    return this.session(input.token_hash, input.now);
  }

  /** The live session of a token hash, its last use recorded (at most once a minute); null when over. */
  session(tokenHash: string, now: number): SessionView | null {
    const user = this.row();
    const s = this.sql
      .exec<{
        session_id: string;
        token_hash: string;
        tenant_id: string | null;
        created_at: number;
        last_seen_at: number;
        expires_at: number;
        ended_at: number | null;
      }>(
        "SELECT session_id, token_hash, tenant_id, created_at, last_seen_at, expires_at, ended_at FROM sessions WHERE token_hash = ?",
        tokenHash,
      )
      .toArray()[0];
    if (!user || !s || !timingSafeEqualStrings(s.token_hash, tokenHash)) return null;
    if (s.ended_at !== null || now >= s.expires_at || now >= s.last_seen_at + SESSION_IDLE_MS) return null;
    let lastSeen = s.last_seen_at;
    if (now - lastSeen >= SESSION_TOUCH_MS) {
      lastSeen = now;
      this.sql.exec("UPDATE sessions SET last_seen_at = ? WHERE session_id = ?", now, s.session_id);
    }
    return {
      session_id: s.session_id,
      user_id: user.user_id,
      email: user.email,
      tenant_id: s.tenant_id,
      created_at: s.created_at,
      expires_at: s.expires_at,
      idle_expires_at: Math.min(s.expires_at, lastSeen + SESSION_IDLE_MS),
    };
  }

  /** The session and the person's tenants in one call (every console request needs both). */
  sessionAndTenants(tokenHash: string, now: number): { session: SessionView; tenants: UserTenant[] } | null {
    const session = this.session(tokenHash, now);
    return session ? { session, tenants: this.tenants() } : null;
  }

  setSessionTenant(sessionId: string, tenantId: string | null): void {
    this.sql.exec("UPDATE sessions SET tenant_id = ? WHERE session_id = ? AND ended_at IS NULL", tenantId, sessionId);
  }

  /** Sign-out: the session is over here, whatever its cookie still says. */
  endSession(sessionId: string, now: number): void {
    this.sql.exec("UPDATE sessions SET ended_at = ? WHERE session_id = ? AND ended_at IS NULL", now, sessionId);
  }
}
