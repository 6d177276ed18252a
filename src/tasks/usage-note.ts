/** What a task's settlement tells the account's usage report (src/accounts/usage.ts). */
import { USAGE_COUNTERS, type UsageCounters, type UsageNote } from "../accounts/usage";
import type { TaskRecord } from "../task-record/record";

/** Counters only for a task that succeeded: what failed or was canceled delivered nothing billed. */
export function taskUsageNote(rec: TaskRecord, outcome: UsageNote["outcome"]): UsageNote {
  const counters: UsageCounters = {};
  if (outcome === "succeeded") for (const c of USAGE_COUNTERS) counters[c] = rec.usage[c];
  return {
    mode: rec.mode,
    kind: "task",
    capability: rec.capability,
    model: rec.resolved_model,
    outcome,
    counted: true,
    counters,
  };
}
