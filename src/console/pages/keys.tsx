/**
 * API keys: every member sees the tenant's keys (never the keys themselves); developers and
 * owners (`keys:manage`) create one (the key shown once), revoke, and rotate with a grace period
 * during which the old key keeps working.
 */
import type { Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiKeyRecord } from "../../accounts/api-key-rows";
import { KEY_MODES, type KeyMode, PERMISSIONS, type Permission } from "../../accounts/api-keys";
import { GRACE_LABELS, rotateApiKey } from "../../accounts/key-rotation";
import { issueApiKey, listApiKeys, revokeApiKey } from "../../accounts/service";
import { ApiError } from "../../errors/api-error";
import { can } from "../../people/roles";
import { acting } from "../acting";
import type { ConsoleEnv } from "../context";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { Layout } from "../layout";
import { showingRefusals } from "../refusal";
import { render } from "../render";
import { PostButton, postedGrace, RotateForm } from "../row-forms";
import { CopyScript, SecretOnce, when } from "../secret-once";
import { requireMember, requireRole } from "../session";
import { TableHead } from "../table";

const PERMISSION_HELP: Record<Permission, string> = {
  "catalog:read": "read the catalog of models and voices",
  "tasks:read": "read tasks and their outputs, balance and usage",
  "tasks:write": "create and cancel tasks",
  chat: "chat completions",
};

function statusText(k: ApiKeyRecord): string {
  if (k.status === "revoked") return `revoked ${when(k.revoked_at)}`;
  if (k.status === "expired") return `expired ${when(k.expires_at)}`;
  if (k.expires_at) return `active until ${when(k.expires_at)}`;
  return "active";
}

async function keysPage(c: Context<ConsoleEnv>, flash?: Flash, status: ContentfulStatusCode = 200) {
  const member = c.get("member");
  const keys = await listApiKeys(c.env, member.tenant_id, acting(c));
  const manage = can(member.role, "keys:manage");
  return render(
    c,
    <Layout title="API keys" member={member} active="keys" flash={flash}>
      {keys.length === 0 ? (
        <p class="muted">No API keys yet.</p>
      ) : (
        <table>
          <TableHead columns={["Name", "Key", "Mode", "Permissions", "Last used", "Created", "Status"]} actions={manage} />
          <tbody>
            {keys.map((k) => (
              <tr data-key-id={k.key_id} data-status={k.status}>
                <td>{k.name ?? <span class="muted">unnamed</span>}</td>
                <td>
                  <code>{k.prefix ? `${k.prefix}…` : `sk_${k.region}_${k.mode}_…`}</code>
                  <div class="muted mono">{k.key_id}</div>
                </td>
                <td>
                  <span class="badge">{k.mode}</span>
                </td>
                <td>{k.permissions.length ? k.permissions.join(", ") : <span class="muted">none</span>}</td>
                <td>{when(k.last_used_at)}</td>
                <td>
                  {when(k.created_at)}
                  <div class="muted">by {k.created_by ?? "operator"}</div>
                </td>
                <td>
                  {statusText(k)}
                  {k.replaced_by ? <div class="muted mono">replaced by {k.replaced_by}</div> : null}
                </td>
                {manage ? (
                  <td>
                    {k.status === "active" && !k.replaced_by ? (
                      <RotateForm
                        c={c}
                        action={`/console/keys/${k.key_id}/rotate`}
                        name="grace"
                        rowId={k.key_id}
                        label="Old key keeps working for"
                        title="How long the old key keeps working"
                        labels={GRACE_LABELS}
                        selected="24h"
                      />
                    ) : null}
                    {k.status !== "revoked" ? (
                      <PostButton
                        c={c}
                        action={`/console/keys/${k.key_id}/revoke`}
                        kind="danger"
                        label={`Revoke ${k.name ?? k.key_id}`}
                      >
                        Revoke
                      </PostButton>
                    ) : null}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {manage ? (
        <>
          <h2>Create a key</h2>
          <form class="stack" method="post" action="/console/keys">
            {csrfField(c)}
            <label for="key-name">Name</label>
            <input
              id="key-name"
              name="name"
              type="text"
              required
              maxlength={100}
              autocomplete="off"
              placeholder="e.g. production backend"
            />
            <fieldset>
              <legend>Permissions</legend>
              {PERMISSIONS.map((p) => (
                <div>
                  <input id={`perm-${p}`} type="checkbox" name="permissions" value={p} checked />{" "}
                  <label for={`perm-${p}`}>
                    <code>{p}</code>
                  </label>{" "}
                  <span class="muted">{PERMISSION_HELP[p]}</span>
                </div>
              ))}
            </fieldset>
            <fieldset>
              <legend>Mode</legend>
              <div>
                <input id="mode-live" type="radio" name="mode" value="live" checked /> <label for="mode-live">live</label>{" "}
                <span class="muted">real models, charged</span>
              </div>
              <div>
                <input id="mode-test" type="radio" name="mode" value="test" /> <label for="mode-test">test</label>{" "}
                <span class="muted">the sandbox only, never charged</span>
              </div>
            </fieldset>
            <button type="submit">Create key</button>
          </form>
        </>
      ) : (
        <p class="muted">Your role ({member.role}) can see the keys; developers and owners create, rotate and revoke them.</p>
      )}
    </Layout>,
    status,
  );
}

function invalid(param: string, reason: string): ApiError {
  return new ApiError("invalid_request", `${param}: ${reason}.`, {
    param,
    details: { errors: [{ loc: ["body", param], reason }] },
  });
}

/** The create form's fields, checked as the operator API checks them. */
async function createInput(c: Context<ConsoleEnv>): Promise<{ name: string; permissions: Permission[]; mode: KeyMode }> {
  const body = await c.req.parseBody({ all: true });
  const name = typeof body.name === "string" ? body.name.trim() : "";
  if (name.length < 1 || name.length > 100) throw invalid("name", "a name of 1 to 100 characters is required");
  const raw = body.permissions === undefined ? [] : Array.isArray(body.permissions) ? body.permissions : [body.permissions];
  const permissions = [...new Set(raw)].filter((p): p is Permission => (PERMISSIONS as readonly unknown[]).includes(p));
  if (permissions.length === 0 || permissions.length !== new Set(raw).size) {
    throw invalid("permissions", `choose at least one of ${PERMISSIONS.join(", ")}`);
  }
  const mode = body.mode ?? "live";
  if (typeof mode !== "string" || !(KEY_MODES as readonly string[]).includes(mode)) throw invalid("mode", "must be live or test");
  return { name, permissions, mode: mode as KeyMode };
}

function NewKeyPage(props: { c: Context<ConsoleEnv>; title: string; apiKey: string; children?: Child }) {
  const member = props.c.get("member");
  return (
    <Layout title={props.title} member={member} active="keys">
      <SecretOnce id="new-api-key" label="Your new API key" value={props.apiKey} />
      {props.children}
      <p>
        Send it as <code>Authorization: Bearer &lt;key&gt;</code>. <a href="/console/keys">Back to API keys</a>
      </p>
      <CopyScript />
    </Layout>
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/keys", requireMember, async (c) => keysPage(c, takeFlash(c)));

  app.post("/keys", requireRole("keys:manage"), async (c) =>
    showingRefusals(c, keysPage, async () => {
      const input = await createInput(c);
      const member = c.get("member");
      const { record, api_key } = await issueApiKey(c.env, member.tenant_id, c.env.REGION, input.permissions, input.mode, {
        name: input.name,
        acting: acting(c),
      });
      return render(
        c,
        <NewKeyPage c={c} title={`Key “${record.name}” created`} apiKey={api_key}>
          <p class="muted">
            {record.mode} key <code>{record.key_id}</code> with {record.permissions.join(", ")}.
          </p>
        </NewKeyPage>,
        201,
      );
    }),
  );

  app.post("/keys/:key_id/revoke", requireRole("keys:manage"), async (c) =>
    showingRefusals(c, keysPage, async () => {
      const k = await revokeApiKey(c.env, c.req.param("key_id"), acting(c));
      return redirectWithFlash(c, "/console/keys", { kind: "ok", text: `Key ${k.name ?? k.key_id} was revoked.` });
    }),
  );

  app.post("/keys/:key_id/rotate", requireRole("keys:manage"), async (c) =>
    showingRefusals(c, keysPage, async () => {
      const grace = await postedGrace(c, "grace");
      const r = await rotateApiKey(c.env, c.req.param("key_id"), grace, acting(c));
      return render(
        c,
        <NewKeyPage c={c} title={`Key “${r.record.name ?? r.record.key_id}” rotated`} apiKey={r.api_key}>
          <p>
            {grace === "none" ? (
              <>
                The old key <code>{r.old.key_id}</code> stopped working now.
              </>
            ) : (
              <>
                The old key <code>{r.old.key_id}</code> keeps working until <strong>{when(r.old.expires_at)}</strong> (
                {GRACE_LABELS[grace]}), then stops: deploy the new key before then.
              </>
            )}
          </p>
        </NewKeyPage>,
        201,
      );
    }),
  );
}
