/**
 * Artifacts: outputs re-hosted in R2 so that they outlive the upstream's short-lived URLs, and
 * uploads (src/media/uploads.ts). Object key `artifacts/<artifact_id>`; the owner is in the
 * object's custom metadata. Output ids derive from the task and output index, so a retried store
 * overwrites, never duplicates; upload ids are random.
 */
import { sha256Hex } from "../lib/crypto";

export async function artifactId(taskId: string, index: number, name = "output"): Promise<string> {
  return `art_${(await sha256Hex(`${taskId}:${name}:${index}`)).slice(0, 32)}`;
}

export const artifactKey = (id: string) => `artifacts/${id}`;
const key = artifactKey;

export async function putArtifact(
  bucket: R2Bucket,
  id: string,
  bytes: Uint8Array,
  meta: { tenant_id: string; task_id: string; content_type: string; provider?: string; upstream_job_id?: string },
): Promise<void> {
  const { content_type, ...custom } = meta;
  await bucket.put(key(id), bytes, {
    httpMetadata: { contentType: content_type },
    customMetadata: Object.fromEntries(Object.entries(custom).filter(([, v]) => v !== undefined)) as Record<string, string>,
  });
}

/** The artifact's metadata if it exists and belongs to the tenant; `null` otherwise (the caller says 404). */
export async function headArtifact(bucket: R2Bucket, id: string, tenantId: string): Promise<R2Object | null> {
  if (!/^art_[0-9a-f]{32}$/.test(id)) return null;
  const head = await bucket.head(key(id));
  return head && head.customMetadata?.tenant_id === tenantId ? head : null;
}

/** The artifact's bytes if it exists and belongs to the tenant; `null` otherwise. */
export async function getArtifact(bucket: R2Bucket, id: string, tenantId: string): Promise<R2ObjectBody | null> {
  return (await headArtifact(bucket, id, tenantId)) ? bucket.get(key(id)) : null;
}

/**
 * Removes the tenant's artifact (an upload or an output); false when there is none of theirs to
 * remove. `before` runs first with its metadata (a task output's envelope stops advertising it),
 * so a failure there leaves the artifact whole.
 */
export async function deleteArtifact(
  bucket: R2Bucket,
  id: string,
  tenantId: string,
  before?: (head: R2Object) => Promise<void>,
): Promise<boolean> {
  const head = await headArtifact(bucket, id, tenantId);
  if (!head) return false;
  await before?.(head);
  await bucket.delete(key(id));
  return true;
}
