/**
 * The Run again buttons of a request's page (`tasks:write`): for a task create, "Run again" and
 * "Run again on another model" (the catalog's models of the same capability that can run in the
 * request's mode). Each rendering carries its own Idempotency-Key, so a double click makes one
 * task. The console has no chat path: a chat call is run again through the API, and the page says so.
 */
import type { Env } from "../http/context";
import type { Capability } from "../services/catalog";
import { OPERATIONS } from "../services/operations";
import type { RequestDetail } from "../services/request-log";
import { readTask, tenantScope } from "../services/tasks";
import { IDEMPOTENCY_FIELD, newFormKey } from "./member-create";
import { catalogChoices, type ModelChoice } from "./model-choices";

export const CHAT_ROUTE = "POST /v1/chat/completions";

/** The capability of the task a logged create made, or null when the request was not a task create. */
export async function createdCapability(env: Env, tenantId: string, r: RequestDetail): Promise<Capability | null> {
  const [method, path] = r.route.split(" ");
  const op = method === "POST" ? OPERATIONS.find((o) => o.path === path) : undefined;
  if (op) return op.capability;
  if (r.door !== "console" || !r.task_id) return null;
  const task = await readTask(env, r.task_id, tenantScope(tenantId));
  return task ? (task.envelope().capability as Capability) : null;
}

/** The models a run again may pick instead: same capability, selectable in the request's mode, not the one it used. */
export async function otherModels(env: Env, capability: Capability, r: RequestDetail): Promise<ModelChoice[]> {
  const { models } = await catalogChoices(env, capability);
  return models.filter((m) => (r.mode === "test" ? m.test : m.live) && m.id !== r.model);
}

function KeyFields({ csrf }: { csrf: string }) {
  return (
    <>
      <input type="hidden" name="_csrf" value={csrf} />
      <input type="hidden" name={IDEMPOTENCY_FIELD} value={newFormKey()} />
    </>
  );
}

export function RunAgain(props: { r: RequestDetail; csrf: string; capability: Capability | null; models: ModelChoice[] }) {
  const { r, csrf, capability, models } = props;
  if (r.route === CHAT_ROUTE) {
    return (
      <p class="muted" data-run-again="chat">
        The console makes no chat calls: run this one again through the API, with{" "}
        <code>POST /v1/requests/{r.request_id}/replay</code>.
      </p>
    );
  }
  // A create is run again from its logged body or, when bodies are off, its task's stored request.
  if (!capability || (!r.task_id && !r.request_body)) return null;
  const action = `/console/requests/${encodeURIComponent(r.request_id)}/run`;
  return (
    <div class="actions" data-run-again="task">
      <form class="inline" method="post" action={action}>
        <KeyFields csrf={csrf} />
        <button type="submit">Run again</button>
      </form>
      {models.length > 0 && (
        <form class="inline" method="post" action={action}>
          <KeyFields csrf={csrf} />
          <label for="run-model">Model</label>
          <select id="run-model" name="model" required>
            {models.map((m) => (
              <option value={m.id}>{m.label === m.id ? m.id : `${m.id} (${m.label})`}</option>
            ))}
          </select>
          <button type="submit" class="secondary">
            Run again on another model
          </button>
        </form>
      )}
      <span class="muted">
        In {r.mode} mode, as the original{r.mode === "live" ? `: charged to the tenant` : ": the sandbox, never charged"}.
      </span>
    </div>
  );
}
