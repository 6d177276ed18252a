import type { ApiKeyRecord, KeyStanding } from "../../services/accounts";
import { PERIODS, type Permission } from "../../services/accounts";
import { when } from "../secret-once";

export const PERMISSION_HELP: Record<Permission, string> = {
  "catalog:read": "read the catalog of models and voices",
  "tasks:read": "read tasks and their outputs, balance and usage",
  "tasks:write": "create and cancel tasks",
  chat: "chat completions",
  "keys:manage": "create, change and revoke keys through the API (never beyond its own)",
  "webhooks:manage": "manage webhook endpoints and their deliveries through the API",
  "providers:manage": "add, replace and remove the tenant's own provider keys through the API",
  "storage:manage": "manage the storage destinations (the tenant's own buckets) through the API",
  "logs:read": "read the request log (every call, its attempts and cost) through the API",
  "logs:manage": "manage the request log's exports through the API",
};

export function statusText(k: ApiKeyRecord): string {
  if (k.status === "revoked") return `revoked ${when(k.revoked_at)}`;
  if (k.status === "expired") return `expired ${when(k.expires_at)}`;
  if (k.status === "disabled") return "disabled";
  if (k.expires_at) return `active until ${when(k.expires_at)}`;
  return "active";
}

/** A key's limits and its spend in the current period, in a line or two. */
export function LimitCell(props: { k: ApiKeyRecord; s: KeyStanding | undefined }) {
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
export function LimitFields(props: { idPrefix: string; l: ApiKeyRecord["limits"] }) {
  const { idPrefix: p, l } = props;
  return (
    <fieldset class="fields">
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
      <label for={`${p}-models`}>Models</label>
      <input
        id={`${p}-models`}
        name="limit_models"
        type="text"
        autocomplete="off"
        aria-describedby={`${p}-models-hint`}
        value={l?.models?.join(", ") ?? ""}
      />
      <span class="hint" id={`${p}-models-hint`}>
        Comma-separated; empty: every model.
      </span>
      <label for={`${p}-caps`}>Capabilities</label>
      <input
        id={`${p}-caps`}
        name="limit_capabilities"
        type="text"
        autocomplete="off"
        aria-describedby={`${p}-caps-hint`}
        value={l?.capabilities?.join(", ") ?? ""}
      />
      <span class="hint" id={`${p}-caps-hint`}>
        Comma-separated; empty: every capability.
      </span>
    </fieldset>
  );
}
