/**
 * One object per OAuth client or device authorization (docs/storage/oauth-object.md):
 * - `client:<client_id>`: a dynamically registered client (RFC 7591), or the cached copy of a
 *   client ID metadata document (client_id is its URL);
 * - `device:<USERCODE>`: one device authorization (RFC 8628), from its request to its end.
 *
 * Names come from outside (a client_id, a typed user code), so an object that was never written
 * stays empty: reads build no schema, and the first write does (a guess creates nothing).
 */

import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import type { Permission } from "../keys/api-keys";
import { timingSafeEqualStrings } from "../lib/crypto";
import { type Migration, migrate } from "../storage/migrations";
import type { DevicePoll, DeviceStatus, DeviceView, OAuthClient } from "./oauth-records";
import type { OAuthRpc } from "./oauth-rpc";
import { formatScope, storedScopes } from "./scopes";
import { SLOW_DOWN_STEP_S } from "./tokens";

export const OAUTH_OBJECT_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "client, device",
    up(sql) {
      sql.exec(`
        CREATE TABLE client (
          client_id TEXT PRIMARY KEY, kind TEXT NOT NULL, client_name TEXT NOT NULL, redirect_uris TEXT NOT NULL,
          grant_types TEXT NOT NULL, application_type TEXT, client_uri TEXT, created_at TEXT NOT NULL, cache_until INTEGER);
        CREATE TABLE device (
          user_code TEXT PRIMARY KEY, device_code_hash TEXT NOT NULL, client_id TEXT NOT NULL, client_name TEXT NOT NULL,
          scopes TEXT NOT NULL, resource TEXT NOT NULL, created_at TEXT NOT NULL, expires_at INTEGER NOT NULL,
          interval_s INTEGER NOT NULL, last_poll_at INTEGER, status TEXT NOT NULL, tenant_id TEXT, tenant_name TEXT,
          user_id TEXT, email TEXT, grant_id TEXT, decided_at INTEGER);
      `);
    },
  },
];

type ClientRow = Omit<OAuthClient, "redirect_uris" | "grant_types"> & {
  redirect_uris: string;
  grant_types: string;
  cache_until: number | null;
};

type DeviceRow = {
  user_code: string;
  device_code_hash: string;
  client_id: string;
  client_name: string;
  scopes: string;
  resource: string;
  expires_at: number;
  interval_s: number;
  last_poll_at: number | null;
  status: DeviceStatus;
  tenant_id: string | null;
  tenant_name: string | null;
  user_id: string | null;
  email: string | null;
  grant_id: string | null;
};

/** An ended device authorization is kept this long to answer `expired_token`, then erased. */
const DEVICE_KEEP_MS = 60 * 60 * 1000;

export class OAuthObject extends DurableObject<Env> implements OAuthRpc {
  private readonly sql: SqlStorage;
  private schemaReady = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    void ctx.blockConcurrencyWhile(async () => {
      // Only an object that holds something is migrated at start; an empty one stays empty.
      if (this.hasTables()) await this.ensureSchema();
    });
  }

  private hasTables(): boolean {
    return (
      this.sql
        .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name IN ('schema_version', 'client', 'device') LIMIT 1")
        .toArray().length > 0
    );
  }

  private async ensureSchema(): Promise<void> {
    if (this.schemaReady) return;
    await migrate(this.ctx.storage, OAUTH_OBJECT_MIGRATIONS);
    this.schemaReady = true;
  }

  // ------------------------------------------------------------------ clients

  /** The client held here; a metadata document's copy only while fresh (`now` before its cache end). */
  client(now: number): OAuthClient | null {
    if (!this.schemaReady) return null;
    const row = this.sql.exec<ClientRow>("SELECT * FROM client LIMIT 1").toArray()[0];
    if (!row) return null;
    if (row.cache_until !== null && row.cache_until <= now) return null;
    return {
      client_id: row.client_id,
      kind: row.kind,
      client_name: row.client_name,
      redirect_uris: JSON.parse(row.redirect_uris) as string[],
      grant_types: JSON.parse(row.grant_types) as string[],
      application_type: row.application_type,
      client_uri: row.client_uri,
      created_at: row.created_at,
    };
  }

  /** Registers (once: a second registration under the same id is refused) or refreshes a cached document. */
  async putClient(client: OAuthClient, cacheUntil: number | null): Promise<boolean> {
    await this.ensureSchema();
    const existing = this.sql.exec<{ kind: string }>("SELECT kind FROM client LIMIT 1").toArray()[0];
    if (existing && (existing.kind === "registered" || client.kind === "registered")) return false;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM client");
      this.sql.exec(
        `INSERT INTO client (client_id, kind, client_name, redirect_uris, grant_types, application_type, client_uri, created_at, cache_until)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        client.client_id,
        client.kind,
        client.client_name,
        JSON.stringify(client.redirect_uris),
        JSON.stringify(client.grant_types),
        client.application_type,
        client.client_uri,
        client.created_at,
        cacheUntil,
      );
    });
    // A cached document is erased when it goes stale; a registration stays.
    if (cacheUntil !== null) await this.ctx.storage.setAlarm(cacheUntil);
    return true;
  }

  // ------------------------------------------------------------------ device authorizations

  private deviceRow(): DeviceRow | null {
    if (!this.schemaReady) return null;
    return this.sql.exec<DeviceRow>("SELECT * FROM device LIMIT 1").toArray()[0] ?? null;
  }

  /**
   * Starts a device authorization under this object's user code; false when the code is taken
   * by one that has not ended yet (the caller draws another code).
   */
  async startDevice(
    input: {
      user_code: string;
      device_code_hash: string;
      client_id: string;
      client_name: string;
      scopes: Permission[];
      resource: string;
      expires_at: number;
      interval_s: number;
    },
    now: number = Date.now(),
  ): Promise<boolean> {
    const existing = this.deviceRow();
    if (existing && existing.expires_at + DEVICE_KEEP_MS > now) return false;
    await this.ensureSchema();
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM device");
      this.sql.exec(
        `INSERT INTO device (user_code, device_code_hash, client_id, client_name, scopes, resource, created_at, expires_at,
           interval_s, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')`,
        input.user_code,
        input.device_code_hash,
        input.client_id,
        input.client_name,
        formatScope(input.scopes),
        input.resource,
        new Date(now).toISOString(),
        input.expires_at,
        input.interval_s,
      );
    });
    await this.ctx.storage.setAlarm(input.expires_at + DEVICE_KEEP_MS);
    return true;
  }

  /** The authorization for the console; null when there is none, or it has ended. */
  device(now: number = Date.now()): DeviceView | null {
    const row = this.deviceRow();
    if (!row || row.expires_at <= now) return null;
    return {
      user_code: row.user_code,
      client_id: row.client_id,
      client_name: row.client_name,
      scopes: storedScopes(row.scopes),
      resource: row.resource,
      status: row.status,
      expires_at: row.expires_at,
      tenant_id: row.tenant_id,
      tenant_name: row.tenant_name,
      email: row.email,
    };
  }

  /**
   * A signed-in member approves (with the scopes their role allows and the grant id the device's
   * tokens will carry) or denies. Only a pending, unexpired authorization can be decided, once.
   */
  decideDevice(
    decision:
      | {
          approve: true;
          tenant_id: string;
          tenant_name: string;
          user_id: string;
          email: string;
          scopes: Permission[];
          grant_id: string;
        }
      | { approve: false; tenant_id: string; tenant_name: string; user_id: string; email: string },
    now: number = Date.now(),
  ): { ok: true; view: DeviceView } | { ok: false; code: "unknown" | "decided" } {
    const row = this.deviceRow();
    if (!row || row.expires_at <= now) return { ok: false, code: "unknown" };
    if (row.status !== "pending") return { ok: false, code: "decided" };
    this.sql.exec(
      `UPDATE device SET status = ?, tenant_id = ?, tenant_name = ?, user_id = ?, email = ?, scopes = ?, grant_id = ?, decided_at = ?`,
      decision.approve ? "approved" : "denied",
      decision.tenant_id,
      decision.tenant_name,
      decision.user_id,
      decision.email,
      decision.approve ? formatScope(decision.scopes) : row.scopes,
      decision.approve ? decision.grant_id : null,
      now,
    );
    return { ok: true, view: this.device(now) as DeviceView };
  }

  /**
   * One poll of the token endpoint with the device code's hash. While pending, a poll sooner
   * than the interval after the previous one is `slow_down` and adds 5 s to the interval for
   * good (RFC 8628 §3.5); every poll counts as the last one. `approved` is answered once and
   * turns the authorization into `issued`: the device code is single use.
   */
  pollDevice(deviceCodeHash: string, clientId: string, now: number = Date.now()): DevicePoll {
    const row = this.deviceRow();
    if (!row || !timingSafeEqualStrings(row.device_code_hash, deviceCodeHash) || row.client_id !== clientId)
      return { state: "invalid" };
    if (row.status === "issued") return { state: "issued" };
    if (row.expires_at <= now) return { state: "expired" };
    if (row.status === "denied") return { state: "denied" };
    if (row.status === "approved") {
      this.sql.exec("UPDATE device SET status = 'issued', last_poll_at = ?", now);
      return {
        state: "approved",
        grant_id: row.grant_id as string,
        tenant_id: row.tenant_id as string,
        user_id: row.user_id as string,
        client_id: row.client_id,
        client_name: row.client_name,
        scopes: storedScopes(row.scopes),
        resource: row.resource,
      };
    }
    const tooSoon = row.last_poll_at !== null && now - row.last_poll_at < row.interval_s * 1000;
    this.sql.exec(
      "UPDATE device SET last_poll_at = ?, interval_s = ?",
      now,
      tooSoon ? row.interval_s + SLOW_DOWN_STEP_S : row.interval_s,
    );
    return { state: tooSoon ? "slow_down" : "pending" };
  }

  /**
   * Past its end (and the grace to say so), a device authorization is erased and its user code
   * free again; a stale copy of a metadata document is erased too. Registered clients stay.
   */
  override async alarm(): Promise<void> {
    const now = Date.now();
    const row = this.deviceRow();
    if (row && row.expires_at + DEVICE_KEEP_MS > now) {
      await this.ctx.storage.setAlarm(row.expires_at + DEVICE_KEEP_MS);
      return;
    }
    const client = this.schemaReady
      ? this.sql.exec<{ kind: string; cache_until: number | null }>("SELECT kind, cache_until FROM client LIMIT 1").toArray()[0]
      : undefined;
    if (client?.kind === "registered") return;
    if (client?.cache_until != null && client.cache_until > now) {
      await this.ctx.storage.setAlarm(client.cache_until);
      return;
    }
    await this.ctx.storage.deleteAll();
    this.schemaReady = false;
  }
}
