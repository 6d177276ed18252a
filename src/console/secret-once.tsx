/**
 * A secret shown once (a new API key, a signing secret): a read-only field the user can select
 * without JavaScript, and a copy button that a small inline script reveals and wires to the
 * clipboard (progressive enhancement; without the script the button stays hidden).
 */
import { raw } from "hono/html";

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

/** Place once, after the secrets, on a page that shows any. */
export function CopyScript() {
  return <script>{raw(COPY_SCRIPT)}</script>;
}

/** `2026-03-01 14:05 UTC`; a dash for none. */
export function when(iso: string | null | undefined): string {
  return iso ? `${iso.replace("T", " ").slice(0, 16)} UTC` : "—";
}
