/**
 * The local configuration's mail (EMAIL_OUTBOX = "true"): nothing leaves the machine. Each message
 * is printed on one line of the `npm start` log and kept in the OutboxObject, newest first at
 * `GET /admin/v1/outbox`, so the whole sign-in flow works on a laptop.
 */

import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { newId } from "../lib/ids";
import { type Migration, migratedSql } from "../storage/migrations";
import type { MailMessage, OutboxMessage } from "./message";
import type { OutboxRpc } from "./outbox-rpc";

/** The OutboxObject's schema (docs/storage/outbox-object.md). */
export const OUTBOX_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "messages",
    up(sql) {
      sql.exec(`
        CREATE TABLE messages (
          seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, recipient TEXT NOT NULL, subject TEXT NOT NULL,
          text TEXT NOT NULL, created_at TEXT NOT NULL);
      `);
    },
  },
];

/** The newest messages kept; older ones are dropped (it is a development aid, not an archive). */
const KEEP = 500;

/** One object (named `outbox`) for the whole local deployment. */
export class OutboxObject extends DurableObject<Env> implements OutboxRpc {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = migratedSql(ctx, OUTBOX_MIGRATIONS);
  }

  put(message: MailMessage): OutboxMessage {
    const stored: OutboxMessage = { id: newId("msg"), ...message, created_at: new Date().toISOString() };
    this.sql.exec(
      "INSERT INTO messages (id, recipient, subject, text, created_at) VALUES (?, ?, ?, ?, ?)",
      stored.id,
      stored.to,
      stored.subject,
      stored.text,
      stored.created_at,
    );
    this.sql.exec("DELETE FROM messages WHERE seq <= (SELECT MAX(seq) FROM messages) - ?", KEEP);
    return stored;
  }

  /** Newest first; `to` keeps one recipient's. */
  list(q: { limit: number; to?: string }): OutboxMessage[] {
    return this.sql
      .exec<OutboxMessage>(
        `SELECT id, recipient AS "to", subject, text, created_at FROM messages ${q.to ? "WHERE recipient = ?" : ""} ORDER BY seq DESC LIMIT ?`,
        ...(q.to ? [q.to] : []),
        q.limit,
      )
      .toArray();
  }
}
