/**
 * A task's outputs past their retention. Each output artifact carries `expires_at` (the same for
 * all of a task's outputs: the time they were stored plus the task's days), also written in the
 * object's R2 metadata so that every read refuses it from then on, whether or not its bytes are
 * gone yet. The task object's alarm deletes them at that time (docs/storage/r2-artifacts.md says
 * why the alarm and not a bucket rule); `DELETE /v1/tasks/{id}/outputs` deletes them sooner. The
 * envelope then keeps each artifact, with `expired: true` and no URL.
 *
 * Outputs stored for a task that then did not succeed (a later output failed to download, a cancel
 * or the deadline won meanwhile) are in no envelope, so no expiry would find them: each write is
 * noted first in the record (`stored_outputs`), and once the outcome is decided every noted id the
 * output does not list is deleted at once, rather than at an `expires_at` nothing would act on.
 */
import { type OutputRetention, type TaskRecord, TERMINAL } from "../task-record/record";

const LISTS = ["images", "artifacts"] as const;

type Output = Record<string, unknown>;

/** Whether the record's outputs are past their end (deleted, or due to be) at `nowMs`. */
export function outputsExpired(retention: OutputRetention | null | undefined, nowMs: number): boolean {
  if (!retention) return false;
  return retention.expired_at !== null || (retention.expires_at !== null && Date.parse(retention.expires_at) <= nowMs);
}

/** When the alarm must delete the outputs (ms), or null: nothing stored, already deleted, or no retention. */
export function outputsDueAt(rec: TaskRecord): number | null {
  const r = rec.retention;
  return r?.expires_at && r.expired_at === null ? Date.parse(r.expires_at) : null;
}

/** The artifact ids of a task's output (each once). */
export function outputArtifactIds(output: Output | null): string[] {
  const ids = new Set<string>();
  for (const list of LISTS) {
    const entries = output?.[list];
    if (!Array.isArray(entries)) continue;
    for (const a of entries as Output[]) if (typeof a.artifact_id === "string") ids.add(a.artifact_id);
  }
  return [...ids];
}

/** The output as shown once expired: every artifact kept in its place, `expired: true`, no URL. */
export function expiredView(output: Output | null): Output | null {
  if (!output) return output;
  const shown: Output = { ...output };
  for (const list of LISTS) {
    const entries = output[list];
    if (!Array.isArray(entries)) continue;
    shown[list] = (entries as Output[]).map(({ url: _url, signed_url: _s, signed_url_expires_at: _e, ...kept }) => ({
      ...kept,
      expired: true,
    }));
  }
  return shown;
}

/** The record once its outputs are deleted: the view above stored, and when. */
export function markExpired(rec: TaskRecord, nowMs: number): TaskRecord {
  const retention = rec.retention ?? { days: 0, expires_at: null, expired_at: null };
  return {
    ...rec,
    output: expiredView(rec.output),
    retention: { ...retention, expired_at: retention.expired_at ?? new Date(nowMs).toISOString() },
  };
}

/** Whether an R2 object's own `expires_at` (metadata) has come: then no read serves it. */
export function objectExpired(head: { customMetadata?: Record<string, string> } | null, nowMs: number): boolean {
  const at = head?.customMetadata?.expires_at;
  return at !== undefined && Date.parse(at) <= nowMs;
}

/** Whether the task's outcome is decided: nothing more will be stored for it or listed in its output. */
function decided(rec: TaskRecord): boolean {
  return rec.pending_outcome !== null || TERMINAL.has(rec.status);
}

/** Outputs stored for the task that its decided outcome does not list (of `ids`, or of all it noted): to delete. */
export function unlistedOutputs(rec: TaskRecord, ids: readonly string[] = rec.stored_outputs ?? []): string[] {
  if (ids.length === 0 || !decided(rec)) return [];
  const listed = new Set(outputArtifactIds(rec.output));
  return [...new Set(ids)].filter((id) => !listed.has(id));
}
