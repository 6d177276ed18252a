/**
 * A task that settles tells its create's log entry what it was charged in the end, so that a
 * listing shows the final charge without reading the task (the detail reads the task itself).
 * After the task's own write, never on a request's path; a failure is logged and the detail
 * still reads the charge from the task.
 */
import type { Env } from "../env";
import { hourShard } from "./log-stub";
import { hoursOfRequest } from "./shards";

export async function settleLogEntry(
  env: Env,
  rec: { tenant_id: string; task_id: string; request_id: string; created_at: string; billing: { captured: string } },
): Promise<void> {
  const hours = hoursOfRequest(rec.request_id, Date.parse(rec.created_at));
  try {
    await Promise.all(hours.map((h) => hourShard(env, rec.tenant_id, h).settle(rec.task_id, rec.billing.captured)));
  } catch (e) {
    console.warn(`request log: the charge of ${rec.task_id} was not told to its entry: ${String(e)}`);
  }
}
