/**
 * Where to go after signing in, for pages reached from outside the console (an OAuth consent or
 * device link): kept for 15 minutes in a cookie of its own, and only ever a console path, so that
 * it cannot send anyone elsewhere.
 */
import type { Context, MiddlewareHandler } from "hono";
import { fromBase64Url, toBase64Url } from "../lib/base64";
import type { ConsoleEnv } from "./context";
import { clearCookie, readCookie, writeCookie } from "./cookies";
import { requireMember, wantsJson } from "./session";

const COOKIE = "return_to";
const MAX_LENGTH = 4000;

function safe(path: string): boolean {
  return path.startsWith("/console/") && !path.startsWith("//") && !path.includes("\\") && path.length <= MAX_LENGTH;
}

export function setReturnTo(c: Context<ConsoleEnv>, path: string): void {
  if (safe(path)) writeCookie(c, COOKIE, toBase64Url(new TextEncoder().encode(path)), 15 * 60);
}

/** The path to return to (once), or null. */
export function takeReturnTo(c: Context<ConsoleEnv>): string | null {
  const raw = readCookie(c, COOKIE);
  if (!raw) return null;
  clearCookie(c, COOKIE);
  try {
    const path = new TextDecoder().decode(fromBase64Url(raw));
    return safe(path) ? path : null;
  } catch {
    return null;
  }
}

/** requireMember, but a signed-out visitor comes back to this very page after signing in. */
export const requireMemberReturning: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  if (!c.get("member") && !c.get("session") && !wantsJson(c.req.header("Accept"))) {
    const url = new URL(c.req.url);
    setReturnTo(c, `${url.pathname}${url.search}`);
  }
  return requireMember(c, next);
};
