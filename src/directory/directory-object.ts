import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { type Migration, migratedSql } from "../storage/migrations";
import type { DirectoryRpc } from "./directory-rpc";

/** The DirectoryObject's schema, one migration per change (docs/storage/directory-object.md). */
export const DIRECTORY_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "pointers",
    up(sql) {
      sql.exec("CREATE TABLE IF NOT EXISTS pointers (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT NOT NULL)");
    },
  },
];

/**
 * Immutable pointers that let a request find its tenant without a global table:
 * `api-key-hash:<sha256>` and `api-key:<key_id>` and `signing-key:<id>` → tenant, and
 * `user-email:<address>` → the person's user id (src/people/users.ts).
 * Pointers are spread over shards by name (see `directoryFor`), and never change once written,
 * so callers may cache them; everything that can change lives in the tenant's account object.
 */
export class DirectoryObject extends DurableObject<Env> implements DirectoryRpc {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = migratedSql(ctx, DIRECTORY_MIGRATIONS);
  }

  /** Writes a pointer once; a second write with another value is refused (returns false). */
  put(name: string, value: string): boolean {
    const existing = this.get(name);
    if (existing !== null) return existing === value;
    this.sql.exec("INSERT INTO pointers (name, value, created_at) VALUES (?, ?, ?)", name, value, new Date().toISOString());
    return true;
  }

  get(name: string): string | null {
    const row = this.sql.exec<{ value: string }>("SELECT value FROM pointers WHERE name = ?", name).toArray()[0];
    return row ? row.value : null;
  }
}
