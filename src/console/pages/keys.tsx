/**
 * API keys: every member sees the tenant's keys (never the keys themselves) and each key's spend
 * against its credit limit; developers and owners (`keys:manage`) create one (the key shown
 * once, with its limits), change its limits, revoke, and rotate with a grace period during which
 * the old key keeps working. Creating and rotating answer with a redirect to
 * /console/keys/created, which shows the new key once (src/console/secret-once.tsx); each form
 * acts once however often it is sent (src/console/form-once.tsx).
 */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  GRACE_LABELS,
  issueApiKey,
  listApiKeys,
  PERMISSIONS,
  revokeApiKey,
  rotateApiKey,
  WORK_PERMISSIONS,
} from "../../services/accounts";
import { keyStandingsOf, limitsFrom, setKeyLimits } from "../../services/keys";
import { can } from "../../services/people";
import { acting } from "../acting";

/** Ticked when the form opens: the work permissions, as a key issued without a list holds; the managing ones only when chosen. */
const DEFAULT_TICKED: ReadonlySet<string> = new Set(WORK_PERMISSIONS);

import type { ConsoleEnv } from "../context";
import { CopyId } from "../copy-id";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { claimForm, FormOnce } from "../form-once";
import { Layout } from "../layout";
import { showingRefusals } from "../refusal";
import { render } from "../render";
import { PostButton, postedGrace, RotateForm } from "../row-forms";
import { stashSecret, takeSecret, when } from "../secret-once";
import { requireMember, requireRole } from "../session";
import { TableHead } from "../table";
import { LimitCell, LimitFields, PERMISSION_HELP, statusText } from "./key-cells";
import { CREATED_PATH, type NewKey, NewKeyPage } from "./key-created";
import { createInput, limitsInput } from "./key-form-input";

async function keysPage(c: Context<ConsoleEnv>, flash?: Flash, status: ContentfulStatusCode = 200) {
  const member = c.get("member");
  const keys = await listApiKeys(c.env, member.tenant_id, acting(c));
  const standings = await keyStandingsOf(
    c.env,
    member.tenant_id,
    keys.filter((k) => k.limits).map((k) => k.key_id),
  );
  const manage = can(member.role, "keys:manage");
  return render(
    c,
    <Layout title="API keys" member={member} active="keys" flash={flash}>
      {keys.length === 0 ? (
        <p class="muted">No API keys yet.</p>
      ) : (
        <div class="table-scroll">
          <table>
            <TableHead
              columns={["Name", "Key", "Mode", "Permissions", "Limits and spend", "Last used", "Created", "Status"]}
              actions={manage}
            />
            <tbody>
              {keys.map((k) => (
                <tr data-key-id={k.key_id} data-status={k.status}>
                  <td>{k.name ?? <span class="muted">unnamed</span>}</td>
                  <td>
                    <code>{k.prefix ? `${k.prefix}…` : `sk_${k.region}_${k.mode}_…`}</code>
                    <div>
                      <CopyId value={k.key_id} label={`the id of ${k.name ?? k.key_id}`} muted />
                    </div>
                  </td>
                  <td>
                    <span class="badge">{k.mode}</span>
                  </td>
                  <td>{k.permissions.length ? k.permissions.join(", ") : <span class="muted">none</span>}</td>
                  <td>
                    <LimitCell k={k} s={standings[k.key_id]} />
                    {manage && k.status !== "revoked" ? (
                      <details>
                        <summary>Change limits</summary>
                        <form class="stack" method="post" action={`/console/keys/${k.key_id}/limits`}>
                          {csrfField(c)}
                          <LimitFields idPrefix={`lim-${k.key_id}`} l={k.limits} />
                          <button type="submit">Save limits</button>
                        </form>
                      </details>
                    ) : null}
                  </td>
                  <td>{when(k.last_used_at)}</td>
                  <td>
                    {when(k.created_at)}
                    <div class="muted">by {k.created_by ?? "operator"}</div>
                  </td>
                  <td>
                    {statusText(k)}
                    {k.replaced_by ? (
                      <div class="muted">
                        replaced by <CopyId value={k.replaced_by} muted />
                      </div>
                    ) : null}
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
        </div>
      )}
      {manage ? (
        <>
          <h2>Create a key</h2>
          <form class="stack wide" method="post" action="/console/keys">
            {csrfField(c)}
            <FormOnce />
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
                  <input id={`perm-${p}`} type="checkbox" name="permissions" value={p} checked={DEFAULT_TICKED.has(p)} />{" "}
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
            <LimitFields idPrefix="new-limit" l={null} />
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

export function register(app: Hono<ConsoleEnv>) {
  app.get("/keys", requireMember, async (c) => keysPage(c, takeFlash(c)));

  // The page a create or rotate form redirects to: the new key once, never again on reload.
  app.get("/keys/created", requireMember, async (c) =>
    render(c, <NewKeyPage c={c} shown={await takeSecret<NewKey>(c, CREATED_PATH)} />),
  );

  app.post("/keys", requireRole("keys:manage"), async (c) =>
    showingRefusals(c, keysPage, async () => {
      const input = createInput(c);
      // A form sent again (double click, resubmitted page) creates nothing more.
      if (!(await claimForm(c))) return c.redirect(CREATED_PATH, 303);
      const member = c.get("member");
      const { record, api_key } = await issueApiKey(c.env, member.tenant_id, c.env.REGION, input.permissions, input.mode, {
        name: input.name,
        acting: acting(c),
        limits: await limitsFrom(c.env, input.limits),
      });
      await stashSecret(c, CREATED_PATH, {
        kind: "created",
        api_key,
        name: record.name,
        key_id: record.key_id,
        mode: record.mode,
        permissions: record.permissions,
      } satisfies NewKey);
      return c.redirect(CREATED_PATH, 303);
    }),
  );

  app.post("/keys/:key_id/limits", requireRole("keys:manage"), async (c) =>
    showingRefusals(c, keysPage, async () => {
      const limits = limitsInput(c);
      const member = c.get("member");
      const k = await setKeyLimits(c.env, c.req.param("key_id"), limits, acting(c), member.tenant_id);
      return redirectWithFlash(c, "/console/keys", { kind: "ok", text: `Limits of ${k.name ?? k.key_id} saved.` });
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
      const grace = postedGrace(c, "grace");
      if (!(await claimForm(c))) return c.redirect(CREATED_PATH, 303);
      const r = await rotateApiKey(c.env, c.req.param("key_id"), grace, acting(c));
      await stashSecret(c, CREATED_PATH, {
        kind: "rotated",
        api_key: r.api_key,
        name: r.record.name,
        key_id: r.record.key_id,
        old_key_id: r.old.key_id,
        grace,
        old_expires_at: r.old.expires_at,
      } satisfies NewKey);
      return c.redirect(CREATED_PATH, 303);
    }),
  );
}
