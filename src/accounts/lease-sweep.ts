import type { AccountContext } from "../tenancy/account-context";
import type { LedgerStore } from "./ledger-store";
import { unlistTask } from "./task-index";
import { type TaskLeaseSlice, taskLeaseOf } from "./task-lease-stub";

/** How long an unconfirmed hold waits for its task object when that object cannot answer. */
const LEASE_RETRY_MS = 30_000;

/**
 * Leases that ran out. A task's hold is kept when its task object holds it (it committed: the
 * lease only covered admission) or is still admitting with it; otherwise, like a chat call's
 * whose isolate died before settling, it is given back, and a task that never came to be is
 * unlisted. docs/storage/account-object.md describes the leases.
 */
export async function sweepLeases(ctx: AccountContext, ledger: LedgerStore, now: number): Promise<void> {
  const { sql, env } = ctx;
  const due = sql
    .exec<{ task_id: string }>(
      "SELECT task_id FROM reservations WHERE status = 'open' AND lease_until IS NOT NULL AND lease_until <= ?",
      now,
    )
    .toArray();
  for (const { task_id: id } of due) {
    if (!id.startsWith("task_")) {
      ledger.release(id);
      continue;
    }
    const taskId = id.split(":")[0] as string;
    let verdict: ReturnType<TaskLeaseSlice["holdsReservation"]>;
    try {
      const stub = taskLeaseOf(env, taskId.slice("task_".length));
      verdict = await stub.holdsReservation(id);
    } catch {
      // The task object cannot answer now: ask again later rather than guess.
      sql.exec("UPDATE reservations SET lease_until = ? WHERE task_id = ?", now + LEASE_RETRY_MS, id);
      continue;
    }
    if (verdict.holds === "yes") sql.exec("UPDATE reservations SET lease_until = NULL WHERE task_id = ?", id);
    else if (verdict.holds === "admitting")
      sql.exec("UPDATE reservations SET lease_until = ? WHERE task_id = ?", now + LEASE_RETRY_MS, id);
    else {
      ledger.release(id);
      if (!verdict.committed) unlistTask(sql, taskId);
    }
  }
}

/** The earliest lease still open, if any. */
export function nextLeaseAt(sql: SqlStorage): number | null {
  return (
    sql
      .exec<{ at: number | null }>(
        "SELECT MIN(lease_until) AS at FROM reservations WHERE status = 'open' AND lease_until IS NOT NULL",
      )
      .toArray()[0]?.at ?? null
  );
}
