/**
 * When each of a tenant's uploads goes: one row per upload in the tenant's AccountObject
 * (`upload_expiry`, schema version 15), read by its alarm, which deletes the uploads due from R2.
 * The owner of an upload is its tenant, as the owner of an output is its task: no scan of the
 * bucket is ever needed. Outputs are deleted by their own task object (src/retention/outputs.ts).
 */
import { artifactKey } from "../media/artifacts";

export const UPLOAD_EXPIRY_TABLE_SQL = `
  CREATE TABLE IF NOT EXISTS upload_expiry (
    artifact_id TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS upload_expiry_due ON upload_expiry (expires_at);
`;

export function noteUploadExpiry(sql: SqlStorage, artifactId: string, expiresAtMs: number): void {
  sql.exec("INSERT OR REPLACE INTO upload_expiry (artifact_id, expires_at) VALUES (?, ?)", artifactId, expiresAtMs);
}

export function forgetUploadExpiry(sql: SqlStorage, artifactId: string): void {
  sql.exec("DELETE FROM upload_expiry WHERE artifact_id = ?", artifactId);
}

/** The earliest upload still to delete (ms), or null. */
export function nextUploadExpiry(sql: SqlStorage): number | null {
  return sql.exec<{ at: number | null }>("SELECT MIN(expires_at) AS at FROM upload_expiry").toArray()[0]?.at ?? null;
}

/** Deletes from R2 the uploads whose time has come (a bounded batch per run), then their rows. */
export async function expireUploads(sql: SqlStorage, bucket: R2Bucket, nowMs: number): Promise<void> {
  const due = sql
    .exec<{ artifact_id: string }>(
      "SELECT artifact_id FROM upload_expiry WHERE expires_at <= ? ORDER BY expires_at LIMIT 500",
      nowMs,
    )
    .toArray()
    .map((r) => r.artifact_id);
  if (due.length === 0) return;
  // A failed delete leaves the rows, so the next alarm tries again.
  await bucket.delete(due.map(artifactKey));
  for (const id of due) forgetUploadExpiry(sql, id);
}
