import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Env } from "../http/context";
import { insecureCookies } from "../services/people";
import type { ConsoleEnv } from "./context";

/**
 * The console's cookies: HttpOnly, SameSite=Lax, Path=/, and Secure with the `__Host-` prefix
 * everywhere but the local configuration (plain http on 127.0.0.1, CONSOLE_INSECURE_COOKIES).
 */
export function cookieName(env: Env, base: string): string {
  return insecureCookies(env) ? base : `__Host-${base}`;
}

export function readCookie(c: Context<ConsoleEnv>, base: string): string | undefined {
  return getCookie(c, cookieName(c.env, base));
}

export function writeCookie(c: Context<ConsoleEnv>, base: string, value: string, maxAgeSeconds: number): void {
  setCookie(c, cookieName(c.env, base), value, {
    path: "/",
    httpOnly: true,
    secure: !insecureCookies(c.env),
    sameSite: "Lax",
    maxAge: maxAgeSeconds,
  });
}

export function clearCookie(c: Context<ConsoleEnv>, base: string): void {
  deleteCookie(c, cookieName(c.env, base), { path: "/", secure: !insecureCookies(c.env), httpOnly: true, sameSite: "Lax" });
}
