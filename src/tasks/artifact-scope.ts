/**
 * Artifacts within a caller's task scope (src/keys/scope.ts). A task's output belongs to its
 * task: a key of the other mode finds no such artifact, as it finds no such task. An upload
 * belongs to the tenant, whatever the mode of the key that sent it (it is no task's, and either
 * mode's tasks may take it as an input).
 */

import type { Env } from "../env";
import type { KeyMode } from "../keys/api-keys";
import { inScope, type TaskScope } from "../keys/scope";
import { artifactKey, headArtifact } from "../media/artifacts";
import { TASK_ID, taskStub } from "./task-stub";

/** The artifact's metadata if it exists and `scope` may see it; null otherwise (the caller says 404). */
export async function artifactInScope(env: Env, id: string, scope: TaskScope): Promise<R2Object | null> {
  const head = await headArtifact(env.ARTIFACTS, id, scope.tenant_id);
  if (!head || scope.mode === "both") return head;
  const taskId = head.customMetadata?.task_id;
  if (!taskId) return head;
  const mode = (head.customMetadata?.mode as KeyMode | undefined) ?? (await modeOfTask(env, taskId));
  return inScope({ tenant_id: scope.tenant_id, mode }, scope) ? head : null;
}

/** Removes an artifact `scope` may see (an upload or an output); false when there is none to remove. */
export async function deleteArtifactInScope(env: Env, id: string, scope: TaskScope): Promise<boolean> {
  const head = await artifactInScope(env, id, scope);
  if (!head) return false;
  // A task's output: its envelope shows it deleted, with no URL, before the bytes go.
  const taskId = head.customMetadata?.task_id;
  if (taskId && TASK_ID.test(taskId)) await taskStub(env, taskId).forgetArtifact(scope.tenant_id, id);
  await env.ARTIFACTS.delete(artifactKey(id));
  return true;
}

/** An output stored before outputs recorded their mode: its task knows (tasks from before modes are live). */
async function modeOfTask(env: Env, taskId: string): Promise<KeyMode> {
  // Metadata that names no task object at all (written by hand) counts as live, as everything from before modes does.
  if (!TASK_ID.test(taskId)) return "live";
  const owner = await taskStub(env, taskId).owner();
  return owner?.mode ?? "live";
}
