/**
 * Forms that must act once however often they are sent (creating a key, rotating one, creating a
 * task): the page renders a fresh random token in the form (`FormOnce`); the handler claims it
 * (`claimForm`) before acting. The first claim wins, stored in a counter object of its own
 * (`console-form:<tenant>:<token>`, RateCounterObject.takeStored with a limit of one), so a
 * double click, a resubmitted page or a replayed request with the same token acts only once.
 */
import type { Context } from "hono";
import { ApiError } from "../errors/api-error";
import { randomBase62 } from "../lib/ids";
import type { ConsoleEnv } from "./context";
import { formField } from "./form-body";

export const FORM_TOKEN_FIELD = "_form";
const TOKEN = /^[0-9A-Za-z]{22}$/;

/** A fresh token for one rendering of a form. */
export function newFormToken(): string {
  return randomBase62(16);
}

/** The hidden field a once-only form carries. */
export function FormOnce(props: { token?: string }) {
  return <input type="hidden" name={FORM_TOKEN_FIELD} value={props.token ?? newFormToken()} />;
}

/** The posted form's token; a missing or malformed one is refused (422), naming the field. */
export function postedFormToken(c: Context<ConsoleEnv>): string {
  const token = formField(c, FORM_TOKEN_FIELD);
  if (!token || !TOKEN.test(token)) {
    const reason = "this form has no valid form token: reload the page and send it again";
    throw new ApiError("invalid_request", `${FORM_TOKEN_FIELD}: ${reason}.`, {
      param: FORM_TOKEN_FIELD,
      details: { errors: [{ loc: ["body", FORM_TOKEN_FIELD], reason }] },
    });
  }
  return token;
}

/** True the first time this form (its token, in this tenant) is claimed; false ever after. */
export async function claimForm(c: Context<ConsoleEnv>, token = postedFormToken(c)): Promise<boolean> {
  const tenant = c.get("member")?.tenant_id ?? "none";
  const { allowed } = await c.env.RATE_COUNTERS.getByName(`console-form:${tenant}:${token}`).takeStored(0, 1);
  return allowed;
}
