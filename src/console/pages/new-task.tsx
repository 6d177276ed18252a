/**
 * /console/tasks/new — a person runs a task from the console: choose a capability, then fill the
 * form made from that operation's request schema (src/console/task-form.tsx). Files chosen in the
 * form are uploaded through the API's upload service (src/media/uploads.ts) and sent as
 * artifacts; the task is admitted by the same code as `POST /v1/...` and the MCP tools
 * (the task service's createTask), then the browser is sent to the task's page, which follows it live.
 *
 * Who: members whose role may create tasks (`tasks:write`: owners, developers).
 * Mode: test by default — the built-in sandbox makes the output and nothing is charged, like a
 * test-mode key; live (the real models, charged to the tenant) is an explicit choice on the form.
 * Once only: each rendering of the form carries its own Idempotency-Key (`console-<uuid>`), so a
 * double submit, a resubmitted page or a retry creates one task, and a form already used leads to
 * its task.
 * Logged: a create sent with a valid form is written to the request log from the console door, as
 * the member (`CONSOLE POST /console/tasks/new`, key `console:<user id>`; src/console/member-create.ts).
 */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "../../errors/api-error";
import { KEY_MODES, type KeyMode } from "../../services/accounts";
import type { OperationSpec } from "../../services/operations";
import { OPERATIONS } from "../../services/operations";
import { providersServing } from "../../services/providers";
import { storeRetainedUpload } from "../../services/retention";
import type { ConsoleEnv } from "../context";
import { csrfField } from "../csrf";
import type { Flash } from "../flash";
import { formField } from "../form-body";
import { Layout } from "../layout";
import {
  admitForMember,
  type ConsoleCreate,
  consoleCaller,
  IDEMPOTENCY_FIELD,
  loggedCreate,
  madeAlready,
  newFormKey,
  postedKey,
} from "../member-create";
import { type Choices, catalogChoices } from "../model-choices";
import { refusal } from "../refusal";
import { render } from "../render";
import { requireRole } from "../session";
import {
  ALLOW_FALLBACKS_SHOWN,
  checkTask,
  isMainField,
  isRoutingField,
  PROVIDER_LISTS,
  postedTask,
  type TaskField,
  taskFields,
} from "../task-form";

type C = Context<ConsoleEnv>;

export const NEW_TASK_PATH = "/console/tasks/new";
/** Console-made tasks run in test mode unless the person chooses live. */
export const DEFAULT_TASK_MODE: KeyMode = "test";

function operationOf(capability: string | undefined): OperationSpec | undefined {
  return OPERATIONS.find((o) => o.capability === capability);
}

function Help({ f }: { f: TaskField }) {
  return f.description ? (
    <small id={`help-${f.name}`} class="muted">
      {f.description}
    </small>
  ) : null;
}

function Field({ f, choices, value }: { f: TaskField; choices: Choices; value: string | undefined }) {
  const id = `field-${f.name}`;
  const described = f.description ? `help-${f.name}` : undefined;
  const label = (
    <label for={id}>
      {f.name}
      {f.required ? "" : <span class="muted"> (optional)</span>}
    </label>
  );
  let control: unknown;
  switch (f.kind) {
    case "model":
      control = (
        <select id={id} name={f.name} aria-describedby={described}>
          <option value="auto" selected={!value || value === "auto"}>
            auto — the service picks a model that fits
          </option>
          {choices.models.map((m) => (
            <option value={m.id} selected={value === m.id}>
              {m.id}
              {m.live ? "" : " (sandbox only here)"}
            </option>
          ))}
        </select>
      );
      break;
    case "voice":
      control = (
        <select id={id} name={f.name} required={f.required} aria-describedby={described}>
          {f.required ? null : <option value="">—</option>}
          {choices.voices.map((v) => (
            <option value={v.id} selected={value === v.id}>
              {v.label}
            </option>
          ))}
        </select>
      );
      break;
    case "media":
      control = (
        <input
          id={id}
          name={f.name}
          type="file"
          accept="image/*,video/*,audio/*"
          multiple={(f.maxFiles ?? 1) > 1}
          required={f.required}
          aria-describedby={described}
        />
      );
      break;
    case "enum":
      control = (
        <select id={id} name={f.name} aria-describedby={described}>
          {f.required ? null : <option value="">default</option>}
          {(f.options ?? []).map((o) => (
            <option value={o} selected={value === o}>
              {o}
            </option>
          ))}
        </select>
      );
      break;
    case "boolean":
      control = (
        <select id={id} name={f.name} aria-describedby={described}>
          <option value="">default</option>
          <option value="true" selected={value === "true"}>
            yes
          </option>
          <option value="false" selected={value === "false"}>
            no
          </option>
        </select>
      );
      break;
    case "number":
      control = (
        <input
          id={id}
          name={f.name}
          type="number"
          min={f.minimum}
          max={f.maximum}
          step={f.integer ? 1 : "any"}
          value={value ?? ""}
          placeholder={f.default !== undefined ? String(f.default) : ""}
          required={f.required}
          aria-describedby={described}
        />
      );
      break;
    case "longtext":
    case "json":
      control = (
        <textarea
          id={id}
          name={f.name}
          rows={f.kind === "json" ? 2 : 4}
          required={f.required}
          class={f.kind === "json" ? "mono" : undefined}
          placeholder={f.kind === "json" ? (f.default !== undefined ? JSON.stringify(f.default) : "JSON") : ""}
          aria-describedby={described}
        >
          {value ?? ""}
        </textarea>
      );
      break;
    default:
      control = (
        <input
          id={id}
          name={f.name}
          type="text"
          maxlength={f.maxLength}
          value={value ?? ""}
          placeholder={f.default !== undefined ? String(f.default) : ""}
          required={f.required}
          autocomplete="off"
          aria-describedby={described}
        />
      );
  }
  return (
    <div class="field" data-field={f.name} data-kind={f.kind}>
      {label}
      {control}
      <Help f={f} />
    </div>
  );
}

const PROVIDER_LIST_TEXT: Record<(typeof PROVIDER_LISTS)[number], { label: string; help: string }> = {
  order: { label: "Provider order", help: "Providers to try first, in this order; then the model's other routes" },
  only: { label: "Only these providers", help: "Use these providers' routes and no other" },
  ignore: { label: "Never these providers", help: "Never use these providers' routes" },
};

/**
 * `models` (fallback models, comma-separated) and `provider` (the route preferences: three lists,
 * a sort and whether other providers may serve), each input labelled; `read` gives what was
 * posted, when a refused form is shown again.
 */
function RoutingFields({
  fields,
  capability,
  read,
}: {
  fields: TaskField[];
  capability: string;
  read: (name: string) => string | undefined;
}) {
  const models = fields.find((f) => f.kind === "models");
  const provider = fields.find((f) => f.kind === "provider");
  if (!models && !provider) return null;
  const serving = providersServing(capability);
  const posted = read(ALLOW_FALLBACKS_SHOWN) !== undefined;
  const allow = posted ? read("provider.allow_fallbacks") !== undefined : true;
  const given = !!read("models") || PROVIDER_LISTS.some((k) => !!read(`provider.${k}`)) || !!read("provider.sort") || !allow;
  return (
    <details open={given}>
      <summary>Models and providers</summary>
      <div class="stack">
        {models && (
          <div class="field" data-field="models" data-kind="models">
            <label for="field-models">
              Fallback models <span class="muted">(optional)</span>
            </label>
            <input
              id="field-models"
              name="models"
              type="text"
              value={read("models") ?? ""}
              placeholder="flux-2-pro, gpt-image-2"
              autocomplete="off"
              aria-describedby="help-models"
            />
            <small id="help-models" class="muted">
              Instead of a model: up to {models.maximum ?? 5} model ids, comma-separated, tried in this order; the first that can
              serve does (leave model on auto). The task page shows any passed over, and why.
            </small>
          </div>
        )}
        {provider && (
          <fieldset data-field="provider" data-kind="provider">
            <legend>Providers</legend>
            <div class="stack">
              {PROVIDER_LISTS.map((key) => (
                <div class="field" data-field={`provider.${key}`}>
                  <label for={`field-provider-${key}`}>
                    {PROVIDER_LIST_TEXT[key].label} <span class="muted">(optional)</span>
                  </label>
                  <input
                    id={`field-provider-${key}`}
                    name={`provider.${key}`}
                    type="text"
                    value={read(`provider.${key}`) ?? ""}
                    placeholder={serving.slice(0, 2).join(", ")}
                    autocomplete="off"
                    aria-describedby={`help-provider-${key}`}
                  />
                  <small id={`help-provider-${key}`} class="muted">
                    {PROVIDER_LIST_TEXT[key].help}; comma-separated. Providers of {capability}: {serving.join(", ")}.
                  </small>
                </div>
              ))}
              <div class="field" data-field="provider.sort">
                <label for="field-provider-sort">Sort the other routes</label>
                <select id="field-provider-sort" name="provider.sort" aria-describedby="help-provider-sort">
                  <option value="">none — the service's order</option>
                  {(provider.options ?? []).map((o) => (
                    <option value={o} selected={read("provider.sort") === o}>
                      {o}
                    </option>
                  ))}
                </select>
                <small id="help-provider-sort" class="muted">
                  price: by their price for this request; latency: by their measured p50 over the last hour.
                </small>
              </div>
              <div class="field" data-field="provider.allow_fallbacks">
                <input type="hidden" name={ALLOW_FALLBACKS_SHOWN} value="1" />
                <label class="inline-check" for="field-provider-allow_fallbacks">
                  <input
                    id="field-provider-allow_fallbacks"
                    type="checkbox"
                    name="provider.allow_fallbacks"
                    value="true"
                    checked={allow}
                    aria-describedby="help-provider-allow_fallbacks"
                  />{" "}
                  Allow other providers
                </label>
                <small id="help-provider-allow_fallbacks" class="muted">
                  Unchecked: only the providers in the order (without one, only the first route) may serve.
                </small>
              </div>
            </div>
          </fieldset>
        )}
      </div>
    </details>
  );
}

function Chooser() {
  return (
    <>
      <p>Choose what to make. The form that follows has the fields of the API's request for it.</p>
      <ul class="capabilities">
        {OPERATIONS.map((o) => (
          <li>
            <a href={`${NEW_TASK_PATH}?capability=${o.capability}`}>
              <code>{o.capability}</code>
            </a>{" "}
            <span class="muted">
              {o.summary} · <code>POST {o.path}</code>
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}

async function newTaskPage(c: C, flash?: Flash, status: ContentfulStatusCode = 200) {
  const member = c.get("member");
  const spec = operationOf(c.req.query("capability") ?? formField(c, "capability"));
  if (!spec) {
    return render(
      c,
      <Layout title="New task" member={member} active="tasks" flash={flash}>
        <Chooser />
      </Layout>,
      status,
    );
  }
  const fields = taskFields(spec);
  const choices = await catalogChoices(c.env, spec.capability);
  // A refused form is shown again with what was typed (files must be chosen again).
  const posted = (name: string) => (c.req.method === "POST" ? formField(c, name) : undefined);
  const mode = posted("mode") ?? DEFAULT_TASK_MODE;
  return render(
    c,
    <Layout title={`New task: ${spec.capability}`} member={member} active="tasks" flash={flash}>
      <p class="muted">
        {spec.summary}. The same request as <code>POST {spec.path}</code>; <a href={NEW_TASK_PATH}>choose another</a>.
      </p>
      <form class="stack wide task-form" method="post" action={NEW_TASK_PATH} enctype="multipart/form-data">
        {csrfField(c)}
        <input type="hidden" name="capability" value={spec.capability} />
        <input type="hidden" name={IDEMPOTENCY_FIELD} value={newFormKey()} />
        <fieldset>
          <legend>Mode</legend>
          <div>
            <input id="mode-test" type="radio" name="mode" value="test" checked={mode !== "live"} />{" "}
            <label for="mode-test">test</label> <span class="muted">the built-in sandbox makes the output; never charged</span>
          </div>
          <div>
            <input id="mode-live" type="radio" name="mode" value="live" checked={mode === "live"} />{" "}
            <label for="mode-live">live</label> <span class="muted">the real models; charged to {member.tenant_name}</span>
          </div>
        </fieldset>
        {fields.filter(isMainField).map((f) => (
          <Field f={f} choices={choices} value={posted(f.name)} />
        ))}
        <details>
          <summary>More options</summary>
          <div class="stack">
            {fields
              .filter((f) => !isMainField(f) && !isRoutingField(f))
              .map((f) => (
                <Field f={f} choices={choices} value={posted(f.name)} />
              ))}
          </div>
        </details>
        <RoutingFields fields={fields} capability={spec.capability} read={posted} />
        <button type="submit">Create task</button>
      </form>
    </Layout>,
    status,
  );
}

function postedMode(c: C): KeyMode {
  const mode = formField(c, "mode") || DEFAULT_TASK_MODE;
  if (!(KEY_MODES as readonly string[]).includes(mode)) {
    throw new ApiError("invalid_request", "mode: must be test or live.", {
      param: "mode",
      details: { errors: [{ loc: ["body", "mode"], reason: "must be test or live" }] },
    });
  }
  return mode as KeyMode;
}

/** The form's task, made by the member (or the one this form made already: a form sent again). */
async function createTask(c: C, call: ConsoleCreate, spec: OperationSpec, key: string) {
  const seen = await madeAlready(c, key, call.caller.mode);
  if (seen) {
    call.note.task_id = seen.task_id;
    return seen;
  }
  const { raw, files } = postedTask(c, spec);
  call.body = raw;
  // Everything but the files' contents is checked before anything is uploaded.
  checkTask(spec, raw);
  for (const { field, files: given } of files) {
    const refs = [];
    for (const [i, file] of given.entries()) {
      const param = field.maxFiles === 1 ? `/${field.name}` : `/${field.name}/${i}`;
      const stored = await storeRetainedUpload(c.env, { body: file.stream(), length: file.size, param }, call.caller);
      refs.push({ type: "artifact", artifact_id: stored.artifact_id });
    }
    raw[field.name] = field.maxFiles === 1 ? refs[0] : refs;
  }
  return admitForMember(c, call, spec, checkTask(spec, raw), raw, key);
}

/** Refusals before the member's caller is known (no capability, no key, no mode) are not logged: nothing was asked of the tenant. */
async function createFromForm(c: C): Promise<Response> {
  const spec = operationOf(formField(c, "capability"));
  if (!spec) {
    throw new ApiError("unsupported_capability", "Choose a capability first.", { param: "capability" });
  }
  const key = postedKey(c);
  const caller = await consoleCaller(c, postedMode(c));
  const envelope = await loggedCreate(c, { path: NEW_TASK_PATH, caller }, (call) => createTask(c, call, spec, key));
  return c.redirect(`/console/tasks/${envelope.task_id}`, 303);
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/tasks/new", requireRole("tasks:write"), async (c) => newTaskPage(c));

  app.post("/tasks/new", requireRole("tasks:write"), async (c) => {
    try {
      return await createFromForm(c);
    } catch (e) {
      const { flash, status } = refusal(c, e);
      return newTaskPage(c, flash, status);
    }
  });
}
