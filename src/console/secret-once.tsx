/**
 * A secret shown once (a new API key, a signing secret): a read-only field the user can select
 * without JavaScript, and a copy button that a small inline script reveals and wires to the
 * clipboard (progressive enhancement; without the script the button stays hidden).
 *
 * The form that makes a secret answers with a redirect (post, redirect, get): the secret travels
 * to the page that shows it in a one-time cookie (`stashSecret`), sealed under the storage key and
 * bound to the session and that page, for two minutes at most; the page takes it and clears it
 * (`takeSecret`), so reloading the page neither makes another secret nor shows this one again.
 */
import type { Context } from "hono";
import { raw } from "hono/html";
import { seal, unseal } from "../lib/sealed";
import type { ConsoleEnv } from "./context";
import { clearCookie, readCookie, writeCookie } from "./cookies";

const STASH_COOKIE = "once";
const STASH_SECONDS = 120;

function stashBinding(c: Context<ConsoleEnv>, page: string): string {
  return `secret-once:${c.get("member")?.session_id ?? "none"}:${page}`;
}

/** Keeps `data` (a secret and what its page says about it) for the next GET of `page`. */
export async function stashSecret(c: Context<ConsoleEnv>, page: string, data: object): Promise<void> {
  writeCookie(
    c,
    STASH_COOKIE,
    await seal(c.env.STORAGE_ENCRYPTION_KEY, JSON.stringify(data), stashBinding(c, page)),
    STASH_SECONDS,
  );
}

/** What was stashed for `page` in this session, once; undefined when none (or it was taken already). */
export async function takeSecret<T>(c: Context<ConsoleEnv>, page: string): Promise<T | undefined> {
  const sealed = readCookie(c, STASH_COOKIE);
  if (!sealed) return undefined;
  try {
    const data = JSON.parse(await unseal(c.env.STORAGE_ENCRYPTION_KEY, sealed, stashBinding(c, page))) as T;
    clearCookie(c, STASH_COOKIE);
    return data;
  } catch {
    // Another page's (or another session's) stash: not this page's to show or to clear.
    return undefined;
  }
}

const COPY_SCRIPT = `
for (const b of document.querySelectorAll("button[data-copy]")) {
  const field = document.getElementById(b.dataset.copy);
  if (!field || !navigator.clipboard) continue;
  b.hidden = false;
  b.addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(field.value); b.textContent = "Copied"; }
    catch { field.select(); b.textContent = "Press Ctrl+C to copy"; }
  });
}`;

export function SecretOnce(props: { id: string; label: string; value: string }) {
  return (
    <div class="card secret" data-secret-once>
      <label for={props.id}>{props.label}</label>
      <div style="display:flex;gap:.5rem;align-items:center;margin:.4rem 0">
        <input
          id={props.id}
          type="text"
          class="mono"
          readonly
          value={props.value}
          size={Math.min(80, props.value.length + 2)}
          spellcheck={false}
          autocomplete="off"
          aria-describedby={`${props.id}-note`}
          style="flex:1;min-width:0"
        />
        <button type="button" data-copy={props.id} hidden>
          Copy
        </button>
      </div>
      <p id={`${props.id}-note`} class="muted" style="margin:0">
        Shown only now: store it somewhere safe. It cannot be displayed again.
      </p>
    </div>
  );
}

/** Place once, after the secrets, on a page that shows any; `nonce` is the response's (the CSP's). */
export function CopyScript(props: { nonce: string }) {
  return <script nonce={props.nonce}>{raw(COPY_SCRIPT)}</script>;
}

/** `2026-03-01 14:05 UTC`; a dash for none. */
export function when(iso: string | null | undefined): string {
  return iso ? `${iso.replace("T", " ").slice(0, 16)} UTC` : "—";
}
