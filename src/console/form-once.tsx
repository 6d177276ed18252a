/**
 * Forms that must act once however often they are sent (creating a key, rotating one, creating a
 * task): the page renders a fresh random token in the form (`FormOnce`); the handler claims it
 * (`claimForm`) before acting. The first claim wins, stored in a counter object of its own
 * (`console-form:<tenant>:<token>`, RateCounterObject.takeStored with a limit of one), so a
 * double click, a resubmitted page or a replayed request with the same token acts only once.
 *
 * A token starts with the second it was made (six base62 digits), then 16 random ones. A form is
 * good for FORM_TOKEN_TTL_MS: an older token is refused (reload the page), so its claim never has
 * to be remembered longer, and the counter object deletes its claim at the token's end (its alarm).
 */

import type { Context } from "hono";
import { ApiError } from "../errors/api-error";
import { BASE62, randomBase62 } from "../lib/ids";
import { rateCounterNamed } from "../services/accounts";
import type { ConsoleEnv } from "./context";
import { formField } from "./form-body";

export const FORM_TOKEN_FIELD = "_form";
const TOKEN = /^[0-9A-Za-z]{22}$/;
const TIME_DIGITS = 6;
/** How long a rendered form may be sent: a day, for a page left open. */
export const FORM_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;
/** Clocks of isolates differ a little: a token made "later" than now by more than this is not ours. */
const SKEW_MS = 5 * 60 * 1000;

function timeDigits(seconds: number): string {
  let out = "";
  for (let n = seconds, i = 0; i < TIME_DIGITS; i++, n = Math.floor(n / 62)) out = BASE62[n % 62] + out;
  return out;
}

/** When the token was made (ms), from its first digits. */
export function formTokenIssuedAt(token: string): number {
  let seconds = 0;
  for (const ch of token.slice(0, TIME_DIGITS)) seconds = seconds * 62 + BASE62.indexOf(ch);
  return seconds * 1000;
}

/** A fresh token for one rendering of a form, made at `now`. */
export function newFormToken(now = Date.now()): string {
  return timeDigits(Math.floor(now / 1000)) + randomBase62(12).slice(-16);
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
    throw tokenRefused(reason);
  }
  const issued = formTokenIssuedAt(token);
  const now = Date.now();
  if (issued + FORM_TOKEN_TTL_MS <= now || issued > now + SKEW_MS) {
    throw tokenRefused(
      "this form has expired (a form may be sent for a day after its page was shown): reload the page and send it again",
    );
  }
  return token;
}

function tokenRefused(reason: string): ApiError {
  return new ApiError("invalid_request", `${FORM_TOKEN_FIELD}: ${reason}.`, {
    param: FORM_TOKEN_FIELD,
    details: { errors: [{ loc: ["body", FORM_TOKEN_FIELD], reason }] },
  });
}

/** True the first time this form (its token, in this tenant) is claimed; false ever after. */
export async function claimForm(c: Context<ConsoleEnv>, token = postedFormToken(c)): Promise<boolean> {
  const tenant = c.get("member")?.tenant_id ?? "none";
  const counter = rateCounterNamed(c.env, `console-form:${tenant}:${token}`);
  // Past the token's end it is refused before any claim: its record can go then.
  const { allowed } = await counter.takeStored(0, 1, formTokenIssuedAt(token) + FORM_TOKEN_TTL_MS);
  return allowed;
}
