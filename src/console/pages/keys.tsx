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
import { ApiError } from "../../errors/api-error";
import { isDecimalString } from "../../lib/decimal";
import type { ApiKeyRecord, KeyStanding } from "../../services/accounts";
import {
  GRACE_LABELS,
  type Grace,
  issueApiKey,
  KEY_MODES,
  type KeyMode,
  listApiKeys,
  PERIODS,
  PERMISSIONS,
  type Permission,
  revokeApiKey,
  rotateApiKey,
} from "../../services/accounts";
import { CAPABILITIES } from "../../services/catalog";
import { keyStandingsOf, type LimitsInput, limitsFrom, setKeyLimits } from "../../services/keys";
import { can } from "../../services/people";
import { acting } from "../acting";
import type { ConsoleEnv } from "../context";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { formField, formFields } from "../form-body";
import { claimForm, FormOnce } from "../form-once";
import { Layout } from "../layout";
import { showingRefusals } from "../refusal";
import { render } from "../render";
import { PostButton, postedGrace, RotateForm } from "../row-forms";
import { CopyScript, SecretOnce, stashSecret, takeSecret, when } from "../secret-once";
import { requireMember, requireRole } from "../session";
import { TableHead } from "../table";

const PERMISSION_HELP: Record<Permission, string> = {
  "catalog:read": "read the catalog of models and voices",
  "tasks:read": "read tasks and their outputs, balance and usage",
  "tasks:write": "create and cancel tasks",
  chat: "chat completions",
  "keys:manage": "create, change and revoke keys through the API (never beyond its own)",
  "webhooks:manage": "manage webhook endpoints and their deliveries through the API",
  "providers:manage": "add, replace and remove the tenant's own provider keys through the API",
  "storage:manage": "manage the storage destinations (the tenant's own buckets) through the API",
};

function statusText(k: ApiKeyRecord): string {
  if (k.status === "revoked") return `revoked ${when(k.revoked_at)}`;
  if (k.status === "expired") return `expired ${when(k.expires_at)}`;
  if (k.status === "disabled") return "disabled";
  if (k.expires_at) return `active until ${when(k.expires_at)}`;
  return "active";
}

/** A key's limits and its spend in the current period, in a line or two. */
function LimitCell(props: { k: ApiKeyRecord; s: KeyStanding | undefined }) {
  const { k, s } = props;
  const l = k.limits;
  if (!l) return <span class="muted">none</span>;
  const used = s ? (Number(s.spend.spent) + Number(s.spend.reserved)).toString() : "0";
  return (
    <div data-limit-credits={l.credits ?? ""} data-spent={s?.spend.spent ?? "0"} data-reserved={s?.spend.reserved ?? "0"}>
      {l.credits !== undefined ? (
        <div>
          <strong>{s?.spend.spent ?? "0"}</strong> spent{s && s.spend.reserved !== "0" ? ` (+${s.spend.reserved} held)` : ""} of{" "}
          {l.credits} per {l.period === "total" ? "all time" : l.period}
          <progress max={Number(l.credits) || 1} value={Math.min(Number(used), Number(l.credits) || 1)} />
          {s?.window.resets_at ? <div class="muted">resets {when(s.window.resets_at)}</div> : null}
        </div>
      ) : null}
      {l.models ? <div class="muted">models: {l.models.join(", ") || "none"}</div> : null}
      {l.capabilities ? <div class="muted">capabilities: {l.capabilities.join(", ") || "none"}</div> : null}
    </div>
  );
}

/** The limit fields of the create and edit forms, filled with `l`. */
function LimitFields(props: { idPrefix: string; l: ApiKeyRecord["limits"] }) {
  const { idPrefix: p, l } = props;
  return (
    <fieldset>
      <legend>Limits</legend>
      <label for={`${p}-credits`}>Credits per period</label>
      <input
        id={`${p}-credits`}
        name="limit_credits"
        type="text"
        inputmode="decimal"
        autocomplete="off"
        placeholder="no limit"
        value={l?.credits ?? ""}
      />
      <label for={`${p}-period`}>Period</label>
      <select id={`${p}-period`} name="limit_period">
        {PERIODS.map((x) => (
          <option value={x} selected={(l?.period ?? "month") === x}>
            {x === "total" ? "total (never resets)" : `${x} (from 00:00 UTC)`}
          </option>
        ))}
      </select>
      <label for={`${p}-models`}>Models (comma-separated; empty: every model)</label>
      <input id={`${p}-models`} name="limit_models" type="text" autocomplete="off" value={l?.models?.join(", ") ?? ""} />
      <label for={`${p}-caps`}>Capabilities (comma-separated; empty: every capability)</label>
      <input
        id={`${p}-caps`}
        name="limit_capabilities"
        type="text"
        autocomplete="off"
        value={l?.capabilities?.join(", ") ?? ""}
      />
    </fieldset>
  );
}

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
                    <div class="muted mono">{k.key_id}</div>
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
        </div>
      )}
      {manage ? (
        <>
          <h2>Create a key</h2>
          <form class="stack" method="post" action="/console/keys">
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
                  <input id={`perm-${p}`} type="checkbox" name="permissions" value={p} checked={p !== "keys:manage"} />{" "}
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

function invalid(param: string, reason: string): ApiError {
  return new ApiError("invalid_request", `${param}: ${reason}.`, {
    param,
    details: { errors: [{ loc: ["body", param], reason }] },
  });
}

/** A comma-separated list field: its entries, or undefined when empty. */
function listField(c: Context<ConsoleEnv>, name: string): string[] | undefined {
  const items = (formField(c, name) ?? "")
    .split(/[,\s]+/)
    .map((x) => x.trim())
    .filter((x) => x !== "");
  return items.length ? items : undefined;
}

/** The limit fields of a form, checked as the API checks them; null when none is set. */
function limitsInput(c: Context<ConsoleEnv>): LimitsInput | null {
  const credits = formField(c, "limit_credits")?.trim() ?? "";
  if (credits !== "" && !isDecimalString(credits)) throw invalid("limit_credits", 'a decimal number such as "100" or "12.5"');
  const period = formField(c, "limit_period") ?? "month";
  if (!(PERIODS as readonly string[]).includes(period)) throw invalid("limit_period", `one of ${PERIODS.join(", ")}`);
  const models = listField(c, "limit_models");
  const capabilities = listField(c, "limit_capabilities");
  const unknown = capabilities?.find((x) => !(CAPABILITIES as readonly string[]).includes(x));
  if (unknown) throw invalid("limit_capabilities", `'${unknown}' is not a capability (${CAPABILITIES.join(", ")})`);
  if (credits === "" && !models && !capabilities) return null;
  return {
    ...(credits !== "" ? { credits } : {}),
    period: period as LimitsInput["period"],
    ...(models ? { models } : {}),
    ...(capabilities ? { capabilities } : {}),
  };
}

/** The create form's fields, checked as the operator API checks them. */
function createInput(c: Context<ConsoleEnv>): {
  name: string;
  permissions: Permission[];
  mode: KeyMode;
  limits: LimitsInput | null;
} {
  const name = formField(c, "name")?.trim() ?? "";
  if (name.length < 1 || name.length > 100) throw invalid("name", "a name of 1 to 100 characters is required");
  const raw = formFields(c, "permissions");
  const permissions = [...new Set(raw)].filter((p): p is Permission => (PERMISSIONS as readonly unknown[]).includes(p));
  if (permissions.length === 0 || permissions.length !== new Set(raw).size) {
    throw invalid("permissions", `choose at least one of ${PERMISSIONS.join(", ")}`);
  }
  const mode = formField(c, "mode") ?? "live";
  if (typeof mode !== "string" || !(KEY_MODES as readonly string[]).includes(mode)) throw invalid("mode", "must be live or test");
  return { name, permissions, mode: mode as KeyMode, limits: limitsInput(c) };
}

/** What the created page shows, carried from the form's handler in the one-time stash. */
type NewKey =
  | { kind: "created"; api_key: string; name: string | null; key_id: string; mode: string; permissions: string[] }
  | {
      kind: "rotated";
      api_key: string;
      name: string | null;
      key_id: string;
      old_key_id: string;
      grace: Grace;
      old_expires_at: string | null;
    };

export const CREATED_PATH = "/console/keys/created";

function NewKeyPage(props: { c: Context<ConsoleEnv>; shown: NewKey | undefined }) {
  const { c, shown } = props;
  const member = c.get("member");
  if (!shown) {
    return (
      <Layout title="No new key to show" member={member} active="keys">
        <p>
          A new key is shown once, on the page that follows its form, and this one was shown already (or its form was sent again,
          which creates nothing more). Its key is listed on <a href="/console/keys">API keys</a>; if you did not keep it, revoke
          it there and create another.
        </p>
      </Layout>
    );
  }
  const title =
    shown.kind === "created" ? `Key “${shown.name ?? shown.key_id}” created` : `Key “${shown.name ?? shown.key_id}” rotated`;
  return (
    <Layout title={title} member={member} active="keys">
      <SecretOnce id="new-api-key" label="Your new API key" value={shown.api_key} />
      {shown.kind === "created" ? (
        <p class="muted">
          {shown.mode} key <code>{shown.key_id}</code> with {shown.permissions.join(", ")}.
        </p>
      ) : (
        <p>
          {shown.grace === "none" ? (
            <>
              The old key <code>{shown.old_key_id}</code> stopped working now.
            </>
          ) : (
            <>
              The old key <code>{shown.old_key_id}</code> keeps working until <strong>{when(shown.old_expires_at)}</strong> (
              {GRACE_LABELS[shown.grace]}), then stops: deploy the new key before then.
            </>
          )}
        </p>
      )}
      <p>
        Send it as <code>Authorization: Bearer &lt;key&gt;</code>. <a href="/console/keys">Back to API keys</a>
      </p>
      <CopyScript nonce={c.get("nonce")} />
    </Layout>
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
