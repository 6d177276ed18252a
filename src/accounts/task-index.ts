import type { KeyMode } from "../keys/api-keys";

/** The tenant's list of tasks (`tasks`), for `GET /v1/tasks`: ids by creation, the tasks themselves in their objects. */
export interface TaskIndexEntry {
  task_id: string;
  created_at: string;
  status: string;
  capability: string;
  model: string;
  /** The creating key's mode (live when absent: entries written before modes were listed apart). */
  mode?: KeyMode;
}

export interface TaskIndexQuery {
  status?: string;
  capability?: string;
  /** Only the tasks of keys of this mode (an API key sees its own mode's tasks); all when absent. */
  mode?: KeyMode;
  created_after?: string;
  created_before?: string;
  limit: number;
  after?: { created_at: string; task_id: string };
}

/** Lists a task; `update` moves the status of one listed already, otherwise the first entry stands. */
export function insertTaskIndex(sql: SqlStorage, entry: TaskIndexEntry, update: boolean): void {
  sql.exec(
    `INSERT INTO tasks (task_id, created_at, status, capability, model, mode, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (task_id) DO ${update ? "UPDATE SET status = excluded.status, updated_at = excluded.updated_at" : "NOTHING"}`,
    entry.task_id,
    entry.created_at,
    entry.status,
    entry.capability,
    entry.model,
    entry.mode ?? "live",
    new Date().toISOString(),
  );
}

/** Unlists a task that never came to be. */
export function unlistTask(sql: SqlStorage, taskId: string): void {
  sql.exec("DELETE FROM tasks WHERE task_id = ?", taskId);
}

/** One page of task ids, newest first. */
export function listTasks(
  sql: SqlStorage,
  q: TaskIndexQuery,
): { task_ids: string[]; has_more: boolean; last?: { created_at: string; task_id: string } } {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (q.mode) where.push("mode = ?") && args.push(q.mode);
  if (q.status) where.push("status = ?") && args.push(q.status);
  if (q.capability) where.push("capability = ?") && args.push(q.capability);
  if (q.created_after) where.push("created_at > ?") && args.push(q.created_after);
  if (q.created_before) where.push("created_at < ?") && args.push(q.created_before);
  if (q.after)
    where.push("(created_at < ? OR (created_at = ? AND task_id < ?))") &&
      args.push(q.after.created_at, q.after.created_at, q.after.task_id);
  const rows = sql
    .exec<{ task_id: string; created_at: string }>(
      `SELECT task_id, created_at FROM tasks ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC, task_id DESC LIMIT ?`,
      ...args,
      q.limit + 1,
    )
    .toArray();
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return { task_ids: page.map((r) => r.task_id), has_more: rows.length > q.limit, ...(last ? { last } : {}) };
}
