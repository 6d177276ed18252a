/**
 * What the webhook pages share: their paths, who may manage, the event boxes of a form and a
 * delivery's status badge.
 */
import type { Context } from "hono";
import { ApiError } from "../../errors/api-error";
import { GRACE_LABELS, type Grace } from "../../services/accounts";
import { auditFields, can } from "../../services/people";
import { tenantScope } from "../../services/tasks";
import { type LoggedStatus, SUBSCRIPTIONS } from "../../services/webhooks";
import { acting } from "../acting";
import type { ConsoleEnv } from "../context";
import { formField, formFields } from "../form-body";

export const HOME = "/console/webhooks";
export const SECRET_PATH = "/console/webhooks/created";
export const STATUSES: readonly LoggedStatus[] = ["pending", "succeeded", "failed"];
export const OVERLAP_LABELS: Record<Grace, string> = { ...GRACE_LABELS, none: "none (old secret stops now)" };

export const by = (c: Context<ConsoleEnv>) => auditFields(acting(c));
// Members act for the tenant as a whole: they see both modes' endpoints and deliveries, and make live endpoints.
export const scopeOf = (c: Context<ConsoleEnv>) => tenantScope(c.get("member").tenant_id);
export const mayManage = (c: Context<ConsoleEnv>) => can(c.get("member").role, "webhooks:manage");

/** The event types ticked in a form; none is refused naming the field. */
export function postedEvents(c: Context<ConsoleEnv>): string[] {
  const events = formFields(c, "events").filter((e) => (SUBSCRIPTIONS as readonly string[]).includes(e));
  if (events.length === 0) {
    const reason = "choose at least one event type";
    throw new ApiError("invalid_request", `events: ${reason}.`, {
      param: "events",
      details: { errors: [{ loc: ["body", "events"], reason }] },
    });
  }
  return events;
}

export function EventBoxes(props: { idPrefix: string; checked: readonly string[] }) {
  return (
    <fieldset>
      <legend>Events</legend>
      {SUBSCRIPTIONS.map((e) => (
        <label class="inline-check" for={`${props.idPrefix}-${e}`}>
          <input id={`${props.idPrefix}-${e}`} type="checkbox" name="events" value={e} checked={props.checked.includes(e)} />{" "}
          <code>{e === "*" ? "* (every type)" : e}</code>
        </label>
      ))}
    </fieldset>
  );
}

export function StatusBadge(props: { status: string }) {
  return (
    <span class="badge" data-status={props.status}>
      {props.status}
    </span>
  );
}

/** `datetime-local` gives minutes without a zone: read as UTC. */
export function postedSince(c: Context<ConsoleEnv>): string {
  const raw = formField(c, "since") ?? "";
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(raw) ? `${raw}:00Z` : raw;
}
