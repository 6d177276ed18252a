/** The task's stored output files: noted before they are written, deleted when unlisted or past their retention. */
import type { Env } from "../../env";
import { artifactId, artifactKey } from "../../media/artifacts";
import type { ProviderOutput } from "../../providers/types";
import { markExpired, outputArtifactIds, unlistedOutputs } from "../../retention/outputs";
import type { TaskRecord } from "../../task-record/record";
import type { TaskStorage } from "../task-storage";

/**
 * Other requests (a cancel) may run while a step awaits an outside call: a step only writes
 * its result if the stored task is still where it left it.
 */
export function stillCurrent(store: TaskStorage, rec: TaskRecord): boolean {
  const fresh = store.load();
  return !!fresh && fresh.step === rec.step && fresh.status === rec.status && !fresh.pending_outcome;
}

/**
 * Deletes the task's outputs from R2, then stores them shown expired (a crash between the two
 * leaves them due, so the next alarm deletes again). The record as saved.
 */
export async function deleteOutputs(env: Env, store: TaskStorage): Promise<TaskRecord> {
  const rec = store.load() as TaskRecord;
  const ids = outputArtifactIds(rec.output);
  if (ids.length > 0) await env.ARTIFACTS.delete(ids.map(artifactKey));
  const fresh = store.load() as TaskRecord;
  // A DELETE and the alarm may both have been deleting: the first to finish records it.
  if (fresh.retention?.expired_at) return fresh;
  const marked = markExpired(fresh, Date.now());
  store.save(marked);
  store.event("outputs_deleted", { count: ids.length });
  return marked;
}

/**
 * Notes the artifact ids of `outputs` in the record before any is written (a crash mid-write
 * leaves them noted). Null when the task moved on meanwhile: then nothing is stored at all.
 */
export async function noteStoring(
  store: TaskStorage,
  rec: TaskRecord,
  outputs: readonly ProviderOutput[],
): Promise<TaskRecord | null> {
  const ids = await Promise.all(outputs.map((o) => artifactId(rec.task_id, o.index, o.kind)));
  if (!stillCurrent(store, rec)) return null;
  const fresh = store.load() as TaskRecord;
  const noted = { ...fresh, stored_outputs: [...new Set([...(fresh.stored_outputs ?? []), ...ids])] };
  store.save(noted);
  return noted;
}

/**
 * Deletes the outputs stored for the task that its decided outcome does not list (of `ids`, or
 * all it noted), then forgets them. Nothing while the outcome is open: a retry rewrites the same keys.
 */
export async function dropUnlistedOutputs(env: Env, store: TaskStorage, ids?: readonly string[]): Promise<void> {
  const rec = store.load();
  const drop = rec ? unlistedOutputs(rec, ids) : [];
  if (drop.length === 0) return;
  await env.ARTIFACTS.delete(drop.map(artifactKey));
  const fresh = store.load() as TaskRecord;
  const gone = new Set(drop);
  store.save({ ...fresh, stored_outputs: (fresh.stored_outputs ?? []).filter((id) => !gone.has(id)) });
  store.event("unlisted_outputs_deleted", { count: drop.length });
}
