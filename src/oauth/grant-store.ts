/**
 * OAuth grants and their tokens, in the tenant's AccountObject (docs/storage/account-object.md,
 * "OAuth grants"): beside `members`, so that one read tells whether a token's grant is live and
 * whether its person still belongs to the tenant, and removing a member revokes their grants in
 * the same transaction. Only hashes of codes and tokens are stored.
 */

import { type AuditInput, appendAudit } from "../audit/audit-store";
import type { Permission } from "../keys/api-keys";
import { timingSafeEqualStrings } from "../lib/crypto";
import { readMember } from "../people/members-store";
import type { Role } from "../people/roles";
import { formatScope, narrowScopes, storedScopes } from "./scopes";
import { ACCESS_TOKEN_TTL_MS, REFRESH_TOKEN_TTL_MS } from "./tokens";

export const OAUTH_TABLES_SQL = `
  CREATE TABLE oauth_grants (
    grant_id TEXT PRIMARY KEY, client_id TEXT NOT NULL, client_name TEXT NOT NULL, user_id TEXT NOT NULL,
    email TEXT NOT NULL, scopes TEXT NOT NULL, resource TEXT NOT NULL, created_at TEXT NOT NULL,
    last_used_at TEXT, revoked_at TEXT, refresh_hash TEXT UNIQUE, refresh_expires_at INTEGER);
  CREATE INDEX oauth_grants_by_user ON oauth_grants (user_id);
  CREATE TABLE oauth_tokens (
    token_hash TEXT PRIMARY KEY, grant_id TEXT NOT NULL, kind TEXT NOT NULL, expires_at INTEGER NOT NULL,
    scopes TEXT, client_id TEXT, client_name TEXT, redirect_uri TEXT, code_challenge TEXT, resource TEXT,
    user_id TEXT, email TEXT, used_at INTEGER);
  CREATE INDEX oauth_tokens_by_grant ON oauth_tokens (grant_id);
  CREATE INDEX oauth_tokens_by_expiry ON oauth_tokens (expires_at);
`;

/** A grant as the console lists it and the Worker resolves it. */
export interface OAuthGrantView {
  grant_id: string;
  client_id: string;
  client_name: string;
  user_id: string;
  email: string;
  scopes: Permission[];
  resource: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** The hashes of a new access token and a new refresh token, made in the Worker (they carry region and tenant). */
export interface IssueHashes {
  access_hash: string;
  refresh_hash: string;
}

export type IssueResult =
  | { ok: true; grant: OAuthGrantView; scopes: Permission[]; access_expires_at: number }
  | { ok: false; error: "invalid_grant" | "invalid_target" | "invalid_scope"; description: string };

export type AccessResolution =
  | {
      ok: true;
      grant: OAuthGrantView;
      /** The token's own scopes (a refresh may narrow them), before the role is applied. */
      token_scopes: Permission[];
      /** The member's current role; null when they no longer belong to the tenant. */
      role: Role | null;
      expires_at: number;
      /** The tenant's own requests-per-minute limit (null: the deployment's default), as for its keys. */
      rate_limit_per_minute: number | null;
    }
  | { ok: false; reason: "unknown" | "expired" | "revoked" | "no_tenant" | "tenant_disabled" };

type GrantRow = Omit<OAuthGrantView, "scopes"> & {
  scopes: string;
  refresh_hash: string | null;
  refresh_expires_at: number | null;
};

const GRANT_COLUMNS =
  "grant_id, client_id, client_name, user_id, email, scopes, resource, created_at, last_used_at, revoked_at, refresh_hash, refresh_expires_at";

function view(row: GrantRow): OAuthGrantView {
  return {
    grant_id: row.grant_id,
    client_id: row.client_id,
    client_name: row.client_name,
    user_id: row.user_id,
    email: row.email,
    scopes: storedScopes(row.scopes),
    resource: row.resource,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
  };
}

/** `last_used_at` is kept to the minute: at most one write a minute per grant. */
const USE_STAMP_MS = 60_000;

/** The grant store of one AccountObject; every method is synchronous, so each is one transaction. */
export class OAuthGrantStore {
  constructor(private readonly storage: DurableObjectStorage) {}

  private get sql(): SqlStorage {
    return this.storage.sql;
  }

  private grantRow(grantId: string): GrantRow | null {
    return this.sql.exec<GrantRow>(`SELECT ${GRANT_COLUMNS} FROM oauth_grants WHERE grant_id = ?`, grantId).toArray()[0] ?? null;
  }

  grant(grantId: string): OAuthGrantView | null {
    const row = this.grantRow(grantId);
    return row ? view(row) : null;
  }

  /** Live grants, newest first; with `userId`, that person's only. */
  grants(userId?: string): OAuthGrantView[] {
    const rows = userId
      ? this.sql.exec<GrantRow>(
          `SELECT ${GRANT_COLUMNS} FROM oauth_grants WHERE revoked_at IS NULL AND user_id = ? ORDER BY created_at DESC, grant_id`,
          userId,
        )
      : this.sql.exec<GrantRow>(
          `SELECT ${GRANT_COLUMNS} FROM oauth_grants WHERE revoked_at IS NULL ORDER BY created_at DESC, grant_id`,
        );
    return rows.toArray().map(view);
  }

  /** Codes and tokens past their end are of no use to anyone; each write sweeps them. */
  private sweep(now: number): void {
    this.sql.exec("DELETE FROM oauth_tokens WHERE expires_at < ?", now);
  }

  /**
   * A member approved a client on the consent page: the authorization code's hash and what it is
   * bound to (RFC 6749 §4.1.3, RFC 7636, RFC 8707), with the approval in the audit log. The scopes
   * are narrowed to what the member's role allows; `not_member` when they no longer belong here.
   */
  createCode(
    input: {
      code_hash: string;
      grant_id: string;
      client_id: string;
      client_name: string;
      redirect_uri: string;
      code_challenge: string;
      resource: string;
      scopes: Permission[];
      user_id: string;
      expires_at: number;
    },
    audit: AuditInput,
    now: number,
  ): { ok: true; scopes: Permission[] } | { ok: false; code: "not_member" } {
    const member = readMember(this.sql, input.user_id);
    if (!member) return { ok: false, code: "not_member" };
    const scopes = narrowScopes(input.scopes, member.role);
    const at = new Date(now).toISOString();
    this.storage.transactionSync(() => {
      this.sweep(now);
      this.sql.exec(
        `INSERT INTO oauth_tokens (token_hash, grant_id, kind, expires_at, scopes, client_id, client_name, redirect_uri,
           code_challenge, resource, user_id, email) VALUES (?, ?, 'code', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        input.code_hash,
        input.grant_id,
        input.expires_at,
        formatScope(scopes),
        input.client_id,
        input.client_name,
        input.redirect_uri,
        input.code_challenge,
        input.resource,
        member.user_id,
        member.email,
      );
      appendAudit(this.sql, { ...audit, details: { ...audit.details, scopes } }, at);
    });
    return { ok: true, scopes };
  }

  /**
   * Exchanges an authorization code: single use (a second presentation revokes the grant the
   * first one made, RFC 6749 §4.1.2 / OAuth 2.1 §4.1.3), bound to its client, redirect URI, PKCE
   * challenge and resource. `challenge` is S256 of the presented verifier, computed by the Worker.
   */
  redeemCode(
    codeHash: string,
    presented: { client_id: string; redirect_uri: string | null; challenge: string; resource: string | null },
    issue: IssueHashes,
    now: number,
  ): IssueResult {
    const code = this.sql
      .exec<{
        grant_id: string;
        expires_at: number;
        scopes: string;
        client_id: string;
        client_name: string;
        redirect_uri: string;
        code_challenge: string;
        resource: string;
        user_id: string;
        email: string;
        used_at: number | null;
      }>(
        `SELECT grant_id, expires_at, scopes, client_id, client_name, redirect_uri, code_challenge, resource, user_id, email, used_at
           FROM oauth_tokens WHERE token_hash = ? AND kind = 'code'`,
        codeHash,
      )
      .toArray()[0];
    const invalid = (description: string): IssueResult => ({ ok: false, error: "invalid_grant", description });
    if (!code) return invalid("The authorization code is not valid.");
    if (code.used_at !== null) {
      // A replayed code: whatever it was exchanged for is no longer trusted.
      this.storage.transactionSync(() => this.revoke(code.grant_id, now));
      return invalid("The authorization code was already used; the grant made with it is revoked.");
    }
    // Any presentation spends the code, whether or not the rest matches.
    this.sql.exec("UPDATE oauth_tokens SET used_at = ? WHERE token_hash = ?", now, codeHash);
    if (code.expires_at <= now) return invalid("The authorization code has expired.");
    if (presented.client_id !== code.client_id) return invalid("The authorization code was issued to another client.");
    if (presented.redirect_uri !== code.redirect_uri) return invalid("redirect_uri does not match the authorization request.");
    if (!timingSafeEqualStrings(presented.challenge, code.code_challenge))
      return invalid("code_verifier does not match the code_challenge.");
    if (presented.resource !== null && presented.resource !== code.resource) {
      return { ok: false, error: "invalid_target", description: "resource does not match the authorization request." };
    }
    const member = readMember(this.sql, code.user_id);
    if (!member) return invalid("The person who approved this client no longer belongs to the tenant.");
    if (!this.tenantActive()) return invalid("The tenant is disabled.");
    const scopes = narrowScopes(storedScopes(code.scopes), member.role);
    return this.newGrant(
      {
        grant_id: code.grant_id,
        client_id: code.client_id,
        client_name: code.client_name,
        user_id: member.user_id,
        email: member.email,
        scopes,
        resource: code.resource,
      },
      issue,
      now,
    );
  }

  /**
   * A device authorization approved in the console and now claimed by its device (RFC 8628 §3.5):
   * the grant and its first tokens. `not_member` when the approver left the tenant meanwhile.
   */
  issueDeviceGrant(
    input: { grant_id: string; client_id: string; client_name: string; user_id: string; scopes: Permission[]; resource: string },
    issue: IssueHashes,
    now: number,
  ): IssueResult {
    const member = readMember(this.sql, input.user_id);
    if (!member)
      return {
        ok: false,
        error: "invalid_grant",
        description: "The person who approved this device no longer belongs to the tenant.",
      };
    if (this.grantRow(input.grant_id))
      return { ok: false, error: "invalid_grant", description: "The device code was already used." };
    if (!this.tenantActive()) return { ok: false, error: "invalid_grant", description: "The tenant is disabled." };
    return this.newGrant({ ...input, email: member.email, scopes: narrowScopes(input.scopes, member.role) }, issue, now);
  }

  private newGrant(
    g: Pick<OAuthGrantView, "grant_id" | "client_id" | "client_name" | "user_id" | "email" | "scopes" | "resource">,
    issue: IssueHashes,
    now: number,
  ): IssueResult {
    const at = new Date(now).toISOString();
    const accessExpires = now + ACCESS_TOKEN_TTL_MS;
    this.storage.transactionSync(() => {
      this.sweep(now);
      this.sql.exec(
        `INSERT INTO oauth_grants (grant_id, client_id, client_name, user_id, email, scopes, resource, created_at, last_used_at,
           refresh_hash, refresh_expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        g.grant_id,
        g.client_id,
        g.client_name,
        g.user_id,
        g.email,
        formatScope(g.scopes),
        g.resource,
        at,
        at,
        issue.refresh_hash,
        now + REFRESH_TOKEN_TTL_MS,
      );
      this.insertAccess(issue.access_hash, g.grant_id, g.scopes, accessExpires);
    });
    return { ok: true, grant: view(this.grantRow(g.grant_id) as GrantRow), scopes: g.scopes, access_expires_at: accessExpires };
  }

  private insertAccess(hash: string, grantId: string, scopes: Permission[], expiresAt: number): void {
    this.sql.exec(
      "INSERT INTO oauth_tokens (token_hash, grant_id, kind, expires_at, scopes) VALUES (?, ?, 'access', ?, ?)",
      hash,
      grantId,
      expiresAt,
      formatScope(scopes),
    );
  }

  /**
   * The refresh token grant (RFC 6749 §6) with rotation: the presented token is retired and kept
   * (as kind `refresh`) until it would have expired, so that presenting it again is recognised
   * as theft and revokes the whole grant (OAuth 2.1 §4.3.1). `scopes` may only narrow; `resource`
   * must be the grant's.
   */
  refresh(
    refreshHash: string,
    presented: { client_id: string; scopes: Permission[] | null; resource: string | null },
    issue: IssueHashes,
    now: number,
  ): IssueResult {
    const invalid = (description: string): IssueResult => ({ ok: false, error: "invalid_grant", description });
    const row = this.sql
      .exec<GrantRow>(`SELECT ${GRANT_COLUMNS} FROM oauth_grants WHERE refresh_hash = ?`, refreshHash)
      .toArray()[0];
    if (!row) {
      const retired = this.sql
        .exec<{ grant_id: string }>("SELECT grant_id FROM oauth_tokens WHERE token_hash = ? AND kind = 'refresh'", refreshHash)
        .toArray()[0];
      if (retired) {
        const grant = this.grantRow(retired.grant_id);
        if (grant && grant.revoked_at === null) this.revokeForItsUser(grant, "refresh_token_reuse", now);
        return invalid("The refresh token was already used; the grant is revoked.");
      }
      return invalid("The refresh token is not valid.");
    }
    if (row.revoked_at !== null) return invalid("The grant was revoked.");
    if ((row.refresh_expires_at ?? 0) <= now) return invalid("The refresh token has expired.");
    if (presented.client_id !== row.client_id) return invalid("The refresh token was issued to another client.");
    if (presented.resource !== null && presented.resource !== row.resource) {
      return { ok: false, error: "invalid_target", description: "resource is not the one this grant was made for." };
    }
    const granted = storedScopes(row.scopes);
    if (presented.scopes && !presented.scopes.every((s) => granted.includes(s))) {
      return { ok: false, error: "invalid_scope", description: "scope asks for more than the grant holds." };
    }
    const member = readMember(this.sql, row.user_id);
    if (!member) return invalid("The person who approved this client no longer belongs to the tenant.");
    // The refresh token stays: once the tenant is enabled again it works, unless it expired meanwhile.
    if (!this.tenantActive()) return invalid("The tenant is disabled.");
    const scopes = narrowScopes(presented.scopes ?? granted, member.role);
    const accessExpires = now + ACCESS_TOKEN_TTL_MS;
    this.storage.transactionSync(() => {
      this.sweep(now);
      this.sql.exec(
        "INSERT INTO oauth_tokens (token_hash, grant_id, kind, expires_at) VALUES (?, ?, 'refresh', ?)",
        refreshHash,
        row.grant_id,
        row.refresh_expires_at ?? now,
      );
      this.sql.exec(
        "UPDATE oauth_grants SET refresh_hash = ?, refresh_expires_at = ?, last_used_at = ? WHERE grant_id = ?",
        issue.refresh_hash,
        now + REFRESH_TOKEN_TTL_MS,
        new Date(now).toISOString(),
        row.grant_id,
      );
      this.insertAccess(issue.access_hash, row.grant_id, scopes, accessExpires);
    });
    return { ok: true, grant: view(this.grantRow(row.grant_id) as GrantRow), scopes, access_expires_at: accessExpires };
  }

  /** Whether the tenant may be given tokens now (a disabled tenant's grants issue none). */
  private tenantActive(): boolean {
    return this.sql.exec<{ status: string }>("SELECT status FROM tenant LIMIT 1").toArray()[0]?.status === "active";
  }

  /** What an access token stands for right now, with its person's current role. */
  resolveAccess(accessHash: string, now: number): AccessResolution {
    const token = this.sql
      .exec<{ grant_id: string; expires_at: number; scopes: string | null }>(
        "SELECT grant_id, expires_at, scopes FROM oauth_tokens WHERE token_hash = ? AND kind = 'access'",
        accessHash,
      )
      .toArray()[0];
    if (!token) return { ok: false, reason: "unknown" };
    if (token.expires_at <= now) return { ok: false, reason: "expired" };
    const row = this.grantRow(token.grant_id);
    if (!row || row.revoked_at !== null) return { ok: false, reason: "revoked" };
    const tenant = this.sql
      .exec<{ status: string; rate_limit_per_minute: number | null }>("SELECT status, rate_limit_per_minute FROM tenant LIMIT 1")
      .toArray()[0];
    if (!tenant) return { ok: false, reason: "no_tenant" };
    if (tenant.status !== "active") return { ok: false, reason: "tenant_disabled" };
    const member = readMember(this.sql, row.user_id);
    if (member && (row.last_used_at === null || now - Date.parse(row.last_used_at) >= USE_STAMP_MS)) {
      row.last_used_at = new Date(now - (now % USE_STAMP_MS)).toISOString();
      this.sql.exec("UPDATE oauth_grants SET last_used_at = ? WHERE grant_id = ?", row.last_used_at, row.grant_id);
    }
    return {
      ok: true,
      grant: view(row),
      token_scopes: storedScopes(token.scopes),
      role: member?.role ?? null,
      expires_at: token.expires_at,
      rate_limit_per_minute: tenant.rate_limit_per_minute,
    };
  }

  /**
   * Revokes a grant from the console (`userId`: only if it is theirs) with its audit entry;
   * null when there is no such live grant.
   */
  revokeGrant(grantId: string, userId: string | null, audit: AuditInput, now: number): OAuthGrantView | null {
    const row = this.grantRow(grantId);
    if (!row || row.revoked_at !== null || (userId !== null && row.user_id !== userId)) return null;
    this.storage.transactionSync(() => {
      this.revoke(grantId, now);
      appendAudit(this.sql, { ...audit, details: { ...audit.details, client_id: row.client_id } }, new Date(now).toISOString());
    });
    return this.grant(grantId);
  }

  /**
   * RFC 7009: a refresh token revokes its grant; an access token only itself. Unknown tokens are
   * not an error (§2.2). `wrong_client` when the token was issued to another client than the one named.
   */
  revokeToken(hash: string, clientId: string | null, now: number): "ok" | "wrong_client" {
    const byRefresh = this.sql
      .exec<GrantRow>(`SELECT ${GRANT_COLUMNS} FROM oauth_grants WHERE refresh_hash = ?`, hash)
      .toArray()[0];
    if (byRefresh) {
      if (clientId !== null && clientId !== byRefresh.client_id) return "wrong_client";
      if (byRefresh.revoked_at === null) this.revokeForItsUser(byRefresh, "client_revocation", now);
      return "ok";
    }
    const access = this.sql
      .exec<{ grant_id: string }>("SELECT grant_id FROM oauth_tokens WHERE token_hash = ? AND kind = 'access'", hash)
      .toArray()[0];
    if (access) {
      const grant = this.grantRow(access.grant_id);
      if (clientId !== null && grant && clientId !== grant.client_id) return "wrong_client";
      this.sql.exec("DELETE FROM oauth_tokens WHERE token_hash = ?", hash);
    }
    return "ok";
  }

  /** A member leaves the tenant: every grant they made stops at once (call inside the removal's transaction). */
  revokeUserGrants(userId: string, now: number): string[] {
    const ids = this.sql
      .exec<{ grant_id: string }>("SELECT grant_id FROM oauth_grants WHERE user_id = ? AND revoked_at IS NULL", userId)
      .toArray()
      .map((r) => r.grant_id);
    for (const id of ids) this.revoke(id, now);
    return ids;
  }

  /** The grant is marked revoked (kept for the record) and its tokens are deleted; not a transaction of its own. */
  /** Revokes a grant on its own member's behalf (the client acted, not a person in the console), audited. */
  private revokeForItsUser(grant: GrantRow, reason: "refresh_token_reuse" | "client_revocation", now: number): void {
    this.storage.transactionSync(() => {
      this.revoke(grant.grant_id, now);
      appendAudit(
        this.sql,
        {
          actor: { type: "user", id: grant.user_id, email: grant.email },
          action: "oauth.grant.revoke",
          target: grant.grant_id,
          details: { reason, client_id: grant.client_id },
        },
        new Date(now).toISOString(),
      );
    });
  }

  private revoke(grantId: string, now: number): void {
    this.sql.exec(
      "UPDATE oauth_grants SET revoked_at = ?, refresh_hash = NULL, refresh_expires_at = NULL WHERE grant_id = ? AND revoked_at IS NULL",
      new Date(now).toISOString(),
      grantId,
    );
    this.sql.exec("DELETE FROM oauth_tokens WHERE grant_id = ? AND kind <> 'code'", grantId);
  }
}
