/**
 * A look into the stopped server's persisted state: the open reservation rows of every account
 * object (for diagnosis), and the settled ones the request log's agreement with the bill is checked
 * against (their ids say what holds them: `task_<id>:<epoch>` for a task,
 * `chat_<request id>_…` for a chat call), which the operator API reports only as a count.
 * Read with node:sqlite (Node 22, the Node that npm run puts first on PATH); skipped where missing.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

export interface OpenRow {
  id: string;
  amount: string;
  created_at: string | null;
  lease_until: number | null;
}

/** Tenant id → its open reservation rows; null when the state cannot be read here. */
export async function openReservationRows(stateDir: string): Promise<Map<string, OpenRow[]> | null> {
  return eachAccount(stateDir, (db) =>
    (db.prepare("SELECT * FROM reservations WHERE status = 'open'").all() as Record<string, unknown>[]).map((r) => ({
      id: String(r.task_id),
      amount: String(r.amount),
      created_at: typeof r.created_at === "string" ? r.created_at : null,
      lease_until: typeof r.lease_until === "number" ? r.lease_until : null,
    })),
  );
}

type Database = import("node:sqlite").DatabaseSync;

/** `read` over every account object's database, by tenant id; null when node:sqlite or the state is missing. */
async function eachAccount<T>(stateDir: string, read: (db: Database) => T): Promise<Map<string, T> | null> {
  const dir = join(stateDir, "v3/do");
  if (!existsSync(dir)) return null;
  let sqlite: typeof import("node:sqlite");
  try {
    const quiet = process.emitWarning;
    process.emitWarning = () => {}; // node:sqlite announces itself as experimental
    try {
      sqlite = await import("node:sqlite");
    } finally {
      process.emitWarning = quiet;
    }
  } catch {
    return null;
  }
  const out = new Map<string, T>();
  for (const ns of readdirSync(dir).filter((d) => d.endsWith("-AccountObject"))) {
    for (const file of readdirSync(join(dir, ns)).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite")) {
      try {
        const db = new sqlite.DatabaseSync(join(dir, ns, file), { readOnly: true });
        const tenant = db.prepare("SELECT tenant_id FROM tenant LIMIT 1").get() as { tenant_id?: string } | undefined;
        const value = read(db);
        db.close();
        if (!tenant?.tenant_id) continue;
        out.set(tenant.tenant_id, value);
      } catch {
        // not an account object's database (or not readable): skip it
      }
    }
  }
  return out;
}

export interface SettledRow {
  id: string;
  request_id: string | null;
  status: string;
  captured: string;
}

/** Tenant id → its settled reservation rows (what the bill is made of); null when the state cannot be read here. */
export async function settledReservationRows(stateDir: string): Promise<Map<string, SettledRow[]> | null> {
  return eachAccount(stateDir, (db) =>
    (
      db.prepare("SELECT task_id, request_id, status, captured_amount FROM reservations WHERE status != 'open'").all() as Record<
        string,
        unknown
      >[]
    ).map((r) => ({
      id: String(r.task_id),
      request_id: typeof r.request_id === "string" ? r.request_id : null,
      status: String(r.status),
      captured: String(r.captured_amount),
    })),
  );
}
