/**
 * Artifacts: outputs re-hosted in R2 so that they outlive the upstream's short-lived URLs, and
 * uploads (src/media/uploads.ts). Object key `artifacts/<artifact_id>`; the owner is in the
 * object's custom metadata. Output ids derive from the task and output index, so a retried store
 * overwrites, never duplicates; upload ids are random.
 */
import { sha256Hex } from "../lib/crypto";
import { objectExpired } from "../retention/outputs";

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

/**
 * The artifact's metadata if it exists, belongs to the tenant and has not reached its retention's
 * end (src/retention); `null` otherwise (the caller says 404).
 */
export async function headArtifact(bucket: R2Bucket, id: string, tenantId: string): Promise<R2Object | null> {
  if (!/^art_[0-9a-f]{32}$/.test(id)) return null;
  const head = await bucket.head(key(id));
  return head && head.customMetadata?.tenant_id === tenantId && !objectExpired(head, Date.now()) ? head : null;
}
