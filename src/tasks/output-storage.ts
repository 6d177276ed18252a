/** Copies one provider output into R2 (downloading a URL under its cap) and measures what the bytes are. */
import type { Env } from "../env";
import { policyFrom } from "../lib/url-policy";
import { artifactId, artifactKey, putArtifact } from "../media/artifacts";
import { type ProbedMedia, probeMedia } from "../media/probe";
import { DownloadError, downloadToR2, OUTPUT_CAP_BYTES } from "../providers/download";
import type { ProviderOutput } from "../providers/types";
import type { TaskRecord } from "../task-record/record";
import type { StoredOutput } from "./steps/store";

export async function storeOutput(
  env: Env,
  rec: TaskRecord,
  out: ProviderOutput,
  expiresAt: string | null = null,
): Promise<StoredOutput> {
  const id = await artifactId(rec.task_id, out.index, out.kind);
  // Provenance: an extension of this output can name the upstream job that made it.
  const meta = {
    tenant_id: rec.tenant_id,
    task_id: rec.task_id,
    // The task's key mode: a key of the other mode finds no such artifact (src/keys/scope.ts).
    mode: rec.mode ?? "live",
    provider: rec.route.provider,
    ...(rec.provider_handle ? { upstream_job_id: rec.provider_handle.job_id } : {}),
    // Every read refuses the object from then on, before its task's alarm deletes it (src/retention).
    ...(expiresAt ? { expires_at: expiresAt } : {}),
  };
  let contentType = out.content_type ?? "application/octet-stream";
  let bytes: number;
  let facts: ProbedMedia | null = null;
  if ("bytes" in out) {
    await putArtifact(env.ARTIFACTS, id, out.bytes, { ...meta, content_type: contentType });
    bytes = out.bytes.byteLength;
    if (out.kind !== "text" && (out.width === undefined || out.duration_seconds === undefined)) facts = probeOrNull(out.bytes);
  } else {
    // What the bytes are decides, not what the upstream declared.
    const inspect = (data: Uint8Array): string | undefined => {
      if (out.kind === "text") return undefined;
      const probed = probeOrNull(data);
      if (!probed) throw new DownloadError(`output ${out.index} is not a readable ${out.kind} file`);
      if (probed.kind !== out.kind) throw new DownloadError(`output ${out.index} is ${probed.mime}, not ${out.kind}`);
      return probed.mime;
    };
    const got = await downloadToR2(env.ARTIFACTS, artifactKey(id), out, {
      policy: policyFrom(env),
      maxBytes: OUTPUT_CAP_BYTES[out.kind],
      contentType: out.content_type,
      customMetadata: meta,
      inspect,
    });
    bytes = got.bytes;
    facts = out.kind === "text" ? null : probeOrNull(got.probeBytes);
    contentType = facts?.mime ?? out.content_type ?? got.declaredType ?? contentType;
  }
  const width = facts?.width ?? out.width;
  const height = facts?.height ?? out.height;
  const duration = facts?.duration_seconds ?? out.duration_seconds;
  return {
    kind: out.kind,
    artifact_id: id,
    url: `${rec.origin}/v1/artifacts/${id}`,
    content_type: contentType,
    bytes,
    index: out.index,
    ...(width !== undefined && height !== undefined ? { width, height } : {}),
    ...(duration !== undefined ? { duration_seconds: duration } : {}),
    ...(expiresAt ? { expires_at: expiresAt } : {}),
  };
}

function probeOrNull(bytes: Uint8Array): ProbedMedia | null {
  try {
    return probeMedia(bytes, "/output");
  } catch {
    return null;
  }
}

/** Raw upstream answers an adapter staged (src/providers/openai/staging.ts), dropped once the task is settled. */
export async function dropStaging(env: Env, taskId: string): Promise<void> {
  try {
    const listed = await env.ARTIFACTS.list({ prefix: `staging/${taskId}/` });
    if (listed.objects.length > 0) await env.ARTIFACTS.delete(listed.objects.map((o) => o.key));
  } catch {
    // Best effort: a leftover is only storage, and the bucket's lifecycle rule removes it.
  }
}
