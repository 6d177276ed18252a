/**
 * One-shot messages across a redirect (post, redirect, get): a form handler sets one, the page
 * it redirects to shows it once (Layout's `flash`).
 */
import type { Context } from "hono";
import { fromBase64Url, toBase64Url } from "../lib/base64";
import type { ConsoleEnv } from "./context";
import { clearCookie, readCookie, writeCookie } from "./cookies";

export interface Flash {
  kind: "ok" | "error";
  text: string;
}

const COOKIE = "flash";

export function setFlash(c: Context<ConsoleEnv>, flash: Flash): void {
  const value = toBase64Url(new TextEncoder().encode(JSON.stringify({ kind: flash.kind, text: flash.text.slice(0, 500) })));
  writeCookie(c, COOKIE, value, 60);
}

export function takeFlash(c: Context<ConsoleEnv>): Flash | undefined {
  const raw = readCookie(c, COOKIE);
  if (!raw) return undefined;
  clearCookie(c, COOKIE);
  try {
    const parsed = JSON.parse(new TextDecoder().decode(fromBase64Url(raw))) as Partial<Flash>;
    if ((parsed.kind === "ok" || parsed.kind === "error") && typeof parsed.text === "string") {
      return { kind: parsed.kind, text: parsed.text };
    }
  } catch {
    // A mangled cookie is no message.
  }
  return undefined;
}

/** Sets a flash and answers 303 to `path` (a console path). */
export function redirectWithFlash(c: Context<ConsoleEnv>, path: string, flash: Flash) {
  setFlash(c, flash);
  return c.redirect(path, 303);
}
