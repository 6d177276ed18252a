/**
 * A batch's output file: JSON lines in item order, `{custom_id, task_id, status, output | error,
 * usage, billing}`, kept as an artifact of the tenant's. Its id derives from the batch, so a
 * second write (an alarm run twice) replaces the first.
 */
import type { Env } from "../env";
import { artifactId, artifactKey } from "../media/artifacts";
import type { BatchRow } from "./batch-record";

/** Rows read per query: a batch of 10,000 items is read in pieces, never all at once. */
const PAGE = 500;

export async function writeOutputFile(env: Env, b: BatchRow, sql: SqlStorage, expiresAt: string): Promise<string> {
  const parts: string[] = [];
  let after = -1;
  for (;;) {
    const rows = sql
      .exec<{
        seq: number;
        custom_id: string;
        task_id: string | null;
        status: string;
        error: string | null;
        result: string | null;
      }>("SELECT seq, custom_id, task_id, status, error, result FROM items WHERE seq > ? ORDER BY seq LIMIT ?", after, PAGE)
      .toArray();
    if (rows.length === 0) break;
    for (const r of rows) {
      const result = r.result ? (JSON.parse(r.result) as { output: unknown; usage: unknown; billing: unknown }) : null;
      const line = {
        custom_id: r.custom_id,
        task_id: r.task_id,
        status: r.status,
        ...(r.status === "succeeded" ? { output: result?.output ?? null } : { error: r.error ? JSON.parse(r.error) : null }),
        usage: result?.usage ?? null,
        billing: result?.billing ?? null,
      };
      parts.push(`${JSON.stringify(line)}\n`);
    }
    after = rows[rows.length - 1]?.seq ?? after;
  }
  const id = await artifactId(b.batch_id, 0, "batch-output");
  // Owned as a task's output is: the tenant, and the key mode that reads it (src/tasks/artifact-scope.ts).
  await env.ARTIFACTS.put(artifactKey(id), new TextEncoder().encode(parts.join("")), {
    httpMetadata: { contentType: "application/jsonl" },
    // Every read refuses it from `expires_at` on, before the batch's alarm deletes it (src/retention).
    customMetadata: { tenant_id: b.tenant_id, task_id: b.batch_id, mode: b.mode, expires_at: expiresAt },
  });
  return id;
}
