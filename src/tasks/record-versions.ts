/**
 * The task record is one JSON value; its shape is versioned by `record_version`. A stored record
 * of an earlier version is upgraded when read, step by step, and written back in the current
 * version at its next save (docs/storage/task-object.md lists the versions).
 */
import type { TaskRecord } from "../task-record/record";

export const RECORD_VERSION = 7;

type Stored = Record<string, unknown> & { record_version?: number };

/** Each step takes a record of version n to n + 1. */
const STEPS: Record<number, (rec: Stored) => void> = {
  // 1 → 2: records from before failover, key modes and the malformed-answer count.
  1(rec) {
    rec.routes ??= [rec.route];
    rec.mode ??= "live";
    rec.route_index ??= 0;
    rec.submit_attempts ??= 0;
    rec.submitting ??= null;
    rec.route_uncertain ??= false;
    rec.route_failures ??= [];
    rec.malformed_polls ??= 0;
  },
  // 2 → 3: records from before task events counted their changes.
  2(rec) {
    rec.change_seq ??= 0;
  },
  // 3 → 4: records from before content review at admission.
  3(rec) {
    rec.safety ??= null;
  },
  // 4 → 5: records from before stalled jobs were moved.
  4(rec) {
    rec.activity ??= null;
    rec.stall ??= null;
    rec.stall_moves ??= 0;
  },
  // 5 → 6: records from before retention: their outputs are kept until deleted.
  5(rec) {
    rec.retention ??= null;
  },
  // 6 → 7: records from before delivery to storage destinations.
  6(rec) {
    rec.delivery ??= null;
  },
};

export function upgradeRecord(stored: Stored): TaskRecord {
  let version = stored.record_version ?? 1;
  if (version > RECORD_VERSION) throw new Error(`task record version ${version} is newer than this code (${RECORD_VERSION})`);
  while (version < RECORD_VERSION) {
    (STEPS[version] as (rec: Stored) => void)(stored);
    version++;
  }
  stored.record_version = RECORD_VERSION;
  return stored as unknown as TaskRecord;
}
