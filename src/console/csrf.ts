/**
 * Cross-site request protection for every state-changing console request (POST, PUT, PATCH,
 * DELETE), applied once by the router, so no page does anything for it but render `csrfField(c)`
 * in its forms. A request is refused (403, nothing done) when:
 * - its `Origin` is another site's (or `Sec-Fetch-Site` says cross-site), or
 * - its `_csrf` form field (or `X-CSRF-Token` header, for scripts) is missing or not this
 *   session's token. The token is an HMAC of the session id under a server key; before sign-in it
 *   is bound instead to a random cookie of its own (double submit), so the sign-in forms are
 *   covered too.
 * SameSite=Lax cookies already keep the session cookie off cross-site POSTs; this holds even where
 * a browser does not.
 */
import type { Context, MiddlewareHandler } from "hono";
import { jsx } from "hono/jsx";
import { ApiError } from "../errors/api-error";
import { timingSafeEqualStrings } from "../lib/crypto";
import { randomBase62 } from "../lib/ids";
import { publicBaseUrl } from "../lib/public-url";
import { keyedHash } from "../services/people";
import type { ConsoleEnv } from "./context";
import { readCookie, writeCookie } from "./cookies";
import { formField } from "./form-body";

export const CSRF_FIELD = "_csrf";
export const CSRF_HEADER = "X-CSRF-Token";
const PRE_SESSION_COOKIE = "csrf";
const PRE_SESSION_VALUE = /^[0-9A-Za-z]{22}$/;
const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The hidden input every console form carries. */
export const csrfField = (c: Context<ConsoleEnv>) => jsx("input", { type: "hidden", name: CSRF_FIELD, value: c.get("csrf") });

/** Why a request was refused: shown on the 403 page and in `details.reason`. */
export class CsrfRefusal extends ApiError {
  constructor(readonly reason: "foreign_origin" | "missing_token" | "bad_token") {
    super(
      "forbidden",
      reason === "foreign_origin"
        ? "This request came from another site and was refused."
        : "This form has expired or did not come from this console: reload the page and try again.",
      { details: { reason } },
    );
  }
}

function sameOrigin(c: Context<ConsoleEnv>): boolean {
  const origin = c.req.header("Origin");
  if (origin === undefined) {
    // No Origin (older browsers on same-origin POSTs, scripts): the browser may still tell.
    return c.req.header("Sec-Fetch-Site") !== "cross-site";
  }
  const allowed = new Set([new URL(c.req.url).origin]);
  const configured = publicBaseUrl(c.env);
  if (configured) allowed.add(new URL(configured).origin);
  return allowed.has(origin);
}

/** The header (scripts), else the form field; the router parsed the form already (src/console/form-body.ts). */
function submittedToken(c: Context<ConsoleEnv>): string | undefined {
  return c.req.header(CSRF_HEADER) || formField(c, CSRF_FIELD);
}

export const csrfProtection: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  const unsafe = UNSAFE.has(c.req.method);
  const session = c.get("session");
  let binding: string | null = null;
  if (session) binding = `session:${session.session.session_id}`;
  else {
    const pre = readCookie(c, PRE_SESSION_COOKIE);
    if (pre && PRE_SESSION_VALUE.test(pre)) binding = `pre:${pre}`;
    else if (!unsafe) {
      const fresh = randomBase62(16);
      writeCookie(c, PRE_SESSION_COOKIE, fresh, 24 * 60 * 60);
      binding = `pre:${fresh}`;
    }
  }
  const expected = binding ? await keyedHash(c.env, "csrf", binding) : null;
  if (expected) {
    c.set("csrf", expected);
    const member = c.get("member");
    if (member) member.csrf = expected;
  }
  // Signing out with no live session changes nothing on the server (it only clears the cookie):
  // a form left open past the session's end still works.
  const harmless = !session && c.req.path === "/console/sign-out";
  if (unsafe && !harmless) {
    if (!sameOrigin(c)) throw new CsrfRefusal("foreign_origin");
    const given = submittedToken(c);
    if (!given || !expected) throw new CsrfRefusal("missing_token");
    if (!timingSafeEqualStrings(given, expected)) throw new CsrfRefusal("bad_token");
  }
  await next();
};
