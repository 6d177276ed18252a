/**
 * The tenant's own provider keys (`providers:manage`: owners and developers): add one (checked with
 * its provider first), replace it, change how its routes are used (mode, models, failover),
 * remove it; see its status and when a task last used it. The key is never shown back: its last
 * four characters only. Every form calls src/services/provider-keys.ts, as the API does.
 */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { auditFields } from "../../services/people";
import type { ProviderKeyMode } from "../../services/provider-keys";
import {
  deleteProviderKey,
  keyableProviders,
  listProviderKeys,
  type ProviderKeyInput,
  putProviderKey,
} from "../../services/provider-keys";
import { tenantScope } from "../../services/tasks";
import { acting } from "../acting";
import type { ConsoleEnv } from "../context";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { formField } from "../form-body";
import { Layout } from "../layout";
import { showingRefusals } from "../refusal";
import { render } from "../render";
import { PostButton } from "../row-forms";
import { when } from "../secret-once";
import { requireRole } from "../session";
import { TableHead } from "../table";

const PATH = "/console/provider-keys";
const MODES: Record<ProviderKeyMode, string> = {
  prefer: "prefer: my key first, then the platform's routes",
  fallback: "fallback: the platform's routes first, my key after",
  only: "only: never the platform's key for this provider",
};

function ModeSelect(props: { id: string; selected: ProviderKeyMode }) {
  return (
    <select id={props.id} name="mode">
      {(Object.keys(MODES) as ProviderKeyMode[]).map((m) => (
        <option value={m} selected={m === props.selected}>
          {MODES[m]}
        </option>
      ))}
    </select>
  );
}

async function providerKeysPage(c: Context<ConsoleEnv>, flash?: Flash, status: ContentfulStatusCode = 200) {
  const member = c.get("member");
  const keys = (await listProviderKeys(c.env, tenantScope(member.tenant_id))).data;
  return render(
    c,
    <Layout title="Provider keys" member={member} active="provider-keys" flash={flash}>
      <p class="muted">
        Run tasks on your own provider accounts: the provider's routes use your key for your live tasks (test-mode keys never do),
        and a task served on it is charged the platform fee instead of the card price. A key the provider refuses on a task
        becomes <em>invalid</em> and is no longer used until you replace it.
      </p>
      {keys.length === 0 ? (
        <p class="muted">No provider keys yet.</p>
      ) : (
        <div class="table-scroll">
          <table>
            <TableHead columns={["Provider", "Key", "Mode", "Models", "Status", "Last used", "Updated"]} actions />
            <tbody>
              {keys.map((k) => (
                <tr data-provider={k.provider} data-status={k.status}>
                  <td>
                    <code>{k.provider}</code>
                    {k.base_url ? <div class="muted">{k.base_url}</div> : null}
                  </td>
                  <td>
                    <code>…{k.last4}</code>
                  </td>
                  <td>
                    {k.mode}
                    {k.mode === "only" && !k.failover ? <div class="muted">no failover to other providers</div> : null}
                  </td>
                  <td>{k.models ? k.models.join(", ") : <span class="muted">every model</span>}</td>
                  <td>
                    <span class="badge">{k.status}</span>
                    {k.status_reason ? <div class="muted">{k.status_reason}</div> : null}
                  </td>
                  <td data-last-used={k.last_used_at ?? ""}>
                    {k.last_used_at ? when(k.last_used_at) : <span class="muted">never</span>}
                  </td>
                  <td>{when(k.updated_at)}</td>
                  <td>
                    <form class="inline" method="post" action={`${PATH}/${k.provider}/mode`}>
                      {csrfField(c)}
                      <label class="sr-only" for={`mode-${k.provider}`}>
                        Mode of the {k.provider} key
                      </label>
                      <ModeSelect id={`mode-${k.provider}`} selected={k.mode} />
                      <input type="hidden" name="models" value={k.models?.join(", ") ?? ""} />
                      <label>
                        <input type="checkbox" name="failover" value="on" checked={k.failover} /> failover
                      </label>
                      <button type="submit" class="secondary">
                        Change
                      </button>
                    </form>
                    <PostButton
                      c={c}
                      action={`${PATH}/${k.provider}/remove`}
                      kind="danger"
                      label={`Remove the ${k.provider} key`}
                    >
                      Remove
                    </PostButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Add or replace a key</h2>
      <form class="fields" method="post" action={PATH} autocomplete="off">
        {csrfField(c)}
        <label for="pk-provider">Provider</label>
        <select id="pk-provider" name="provider">
          {keyableProviders().map((p) => (
            <option value={p}>{p}</option>
          ))}
        </select>
        <label for="pk-key">API key</label>
        <input id="pk-key" name="api_key" type="password" required autocomplete="off" spellcheck={false} />
        <label for="pk-mode">Mode</label>
        <ModeSelect id="pk-mode" selected="prefer" />
        <label for="pk-models">Models</label>
        <input id="pk-models" name="models" type="text" aria-describedby="pk-models-hint" />
        <span class="hint" id="pk-models-hint">
          Comma-separated; empty: every model with a route to the provider.
        </span>
        <label for="pk-base">Host</label>
        <input id="pk-base" name="base_url" type="url" placeholder="https://" aria-describedby="pk-base-hint" />
        <span class="hint" id="pk-base-hint">
          Optional; default: the provider's.
        </span>
        <label class="check">
          <input type="checkbox" name="failover" value="on" checked /> with <em>only</em>, other providers may serve the model
        </label>
        <button type="submit">Check and save the key</button>
      </form>
    </Layout>,
    status,
  );
}

function modeOf(c: Context<ConsoleEnv>): ProviderKeyMode {
  const mode = formField(c, "mode");
  return mode === "fallback" || mode === "only" ? mode : "prefer";
}

function routingOf(c: Context<ConsoleEnv>): Omit<ProviderKeyInput, "api_key" | "base_url"> {
  const models = (formField(c, "models") ?? "")
    .split(",")
    .map((m) => m.trim())
    .filter(Boolean);
  return { mode: modeOf(c), models: models.length > 0 ? models : null, failover: formField(c, "failover") === "on" };
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/provider-keys", requireRole("providers:manage"), async (c) => providerKeysPage(c, takeFlash(c)));

  app.post("/provider-keys", requireRole("providers:manage"), async (c) =>
    showingRefusals(c, providerKeysPage, async () => {
      const provider = formField(c, "provider") ?? "";
      const base = formField(c, "base_url")?.trim();
      const key = await putProviderKey(
        c.env,
        tenantScope(c.get("member").tenant_id),
        provider,
        { api_key: formField(c, "api_key") ?? "", ...(base ? { base_url: base } : {}), ...routingOf(c) },
        auditFields(acting(c)),
      );
      return redirectWithFlash(c, PATH, {
        kind: "ok",
        text: `${provider} accepted the key ending …${key.last4}; your live tasks on its routes now use it (${key.mode}).`,
      });
    }),
  );

  app.post("/provider-keys/:provider/mode", requireRole("providers:manage"), async (c) =>
    showingRefusals(c, providerKeysPage, async () => {
      const provider = c.req.param("provider");
      const key = await putProviderKey(
        c.env,
        tenantScope(c.get("member").tenant_id),
        provider,
        routingOf(c),
        auditFields(acting(c)),
      );
      return redirectWithFlash(c, PATH, { kind: "ok", text: `The ${provider} key is now used as ${key.mode}.` });
    }),
  );

  app.post("/provider-keys/:provider/remove", requireRole("providers:manage"), async (c) =>
    showingRefusals(c, providerKeysPage, async () => {
      const provider = c.req.param("provider");
      await deleteProviderKey(c.env, tenantScope(c.get("member").tenant_id), provider, auditFields(acting(c)));
      return redirectWithFlash(c, PATH, {
        kind: "ok",
        text: `The ${provider} key was removed: your tasks use the platform's routes for ${provider} again.`,
      });
    }),
  );
}
