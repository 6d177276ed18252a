/**
 * The small forms in a table row: one button that posts (revoke, retire, remove), and rotating a
 * key with how long the old one keeps working (API keys' grace, signing keys' overlap). A rotate
 * form acts once however often it is sent (src/console/form-once.tsx).
 */
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { ApiError } from "../errors/api-error";
import { GRACES, type Grace } from "../services/accounts";
import type { ConsoleEnv } from "./context";
import { csrfField } from "./csrf";
import { formField } from "./form-body";
import { FormOnce } from "./form-once";

export function PostButton(props: {
  c: Context<ConsoleEnv>;
  action: string;
  kind: "danger" | "secondary";
  /** What a screen reader says, when the button's text alone does not name the row. */
  label?: string;
  children: Child;
}) {
  return (
    <form class="inline" method="post" action={props.action}>
      {csrfField(props.c)}
      <button type="submit" class={props.kind} aria-label={props.label}>
        {props.children}
      </button>
    </form>
  );
}

export function RotateForm(props: {
  c: Context<ConsoleEnv>;
  action: string;
  /** The form field (and the select's id prefix) the handler reads. */
  name: string;
  rowId: string;
  /** The select's label (read by screen readers) and its tooltip. */
  label: string;
  title: string;
  labels: Record<Grace, string>;
  selected: Grace;
}) {
  const id = `${props.name}-${props.rowId}`;
  return (
    <form class="inline" method="post" action={props.action}>
      {csrfField(props.c)}
      <FormOnce />
      <label class="sr-only" for={id}>
        {props.label}
      </label>
      <select id={id} name={props.name} title={props.title}>
        {GRACES.map((g) => (
          <option value={g} selected={g === props.selected}>
            {props.labels[g]}
          </option>
        ))}
      </select>
      <button type="submit" class="secondary">
        Rotate
      </button>
    </form>
  );
}

/** The grace a RotateForm posted (`fallback` when the field is absent); anything else is refused naming the field. */
export function postedGrace(c: Context<ConsoleEnv>, name: string, fallback?: Grace): Grace {
  const value = formField(c, name) ?? fallback;
  if (typeof value !== "string" || !(GRACES as readonly string[]).includes(value)) {
    const reason = `must be one of ${GRACES.join(", ")}`;
    throw new ApiError("invalid_request", `${name}: ${reason}.`, {
      param: name,
      details: { errors: [{ loc: ["body", name], reason }] },
    });
  }
  return value as Grace;
}
