/** What a page of one hour shard is asked for, and the SQL it becomes (every filter a bound parameter). */
import type { KeyMode } from "../keys/api-keys";
import type { LogRow } from "./entry";

export interface LogFilters {
  /** Ms since the epoch, inclusive. */
  since?: number;
  /** Ms since the epoch, exclusive. */
  until?: number;
  /** An exact status (`200`) or a class (`4xx`). */
  status?: { from: number; to: number };
  route?: string;
  key_id?: string;
  model?: string;
  task_id?: string;
  error_code?: string;
  /** The caller's mode: an API key sees its own mode only; a console session both. */
  mode?: KeyMode;
}

export interface ShardQuery extends LogFilters {
  limit: number;
  /** Continue after this entry (newest first). */
  before?: { at: number; seq: number };
}

/** What an export reads of a shard: the entries written after `seq` (oldest write first), of one mode, arrived since `since`. */
export interface AfterQuery {
  seq: number;
  since: number;
  mode: KeyMode;
  limit: number;
}

export interface ShardPage {
  rows: (LogRow & { seq: number })[];
}

export function whereOf(q: ShardQuery): { sql: string; args: (string | number)[] } {
  const clauses: string[] = [];
  const args: (string | number)[] = [];
  const add = (clause: string, ...values: (string | number)[]) => {
    clauses.push(clause);
    args.push(...values);
  };
  if (q.since !== undefined) add("at >= ?", q.since);
  if (q.until !== undefined) add("at < ?", q.until);
  if (q.status) add("status BETWEEN ? AND ?", q.status.from, q.status.to);
  if (q.route !== undefined) add("route = ?", q.route);
  if (q.key_id !== undefined) add("key_id = ?", q.key_id);
  if (q.model !== undefined) add("model = ?", q.model);
  if (q.task_id !== undefined) add("task_id = ?", q.task_id);
  if (q.error_code !== undefined) add("error_code = ?", q.error_code);
  if (q.mode !== undefined) add("mode = ?", q.mode);
  if (q.before) add("(at < ? OR (at = ? AND seq < ?))", q.before.at, q.before.at, q.before.seq);
  return { sql: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", args };
}

/** `200`, `4xx`, `5xx`… as a range of statuses; null when it is neither. */
export function statusRange(value: string): { from: number; to: number } | null {
  if (/^[1-5][0-9]{2}$/.test(value)) return { from: Number(value), to: Number(value) };
  const m = /^([1-5])xx$/i.exec(value);
  if (!m) return null;
  const base = Number(m[1]) * 100;
  return { from: base, to: base + 99 };
}
