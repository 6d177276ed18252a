/**
 * A long id as tables show it: one line, cut with an ellipsis where the column ends (the whole id
 * in its title and in what a selection copies), and a small Copy button beside it. The button is
 * hidden until /console/copy.js (a same-origin script, as the CSP allows) finds the clipboard and
 * wires it; without JavaScript the id stays selectable.
 */
import type { Context, Hono } from "hono";
import type { ConsoleEnv } from "./context";

export const COPY_SCRIPT_PATH = "/console/copy.js";

const SCRIPT = `for (const b of document.querySelectorAll("button[data-copy-text]")) {
  if (!navigator.clipboard) continue;
  const label = b.getAttribute("aria-label");
  b.hidden = false;
  b.addEventListener("click", async () => {
    let said = "Copied";
    try { await navigator.clipboard.writeText(b.dataset.copyText); } catch { said = "Not copied"; }
    b.textContent = said;
    b.setAttribute("aria-label", said);
    setTimeout(() => { b.textContent = "Copy"; b.setAttribute("aria-label", label); }, 2000);
  });
}
`;

/** `value` cut to its column, linking to `href` when given, with a Copy button named after `label` (default: the id). */
export function CopyId(props: { value: string; href?: string; label?: string; muted?: boolean }) {
  const { value } = props;
  return (
    <span class={props.muted ? "id muted" : "id"}>
      {props.href ? (
        <a class="mono cut" href={props.href} title={value}>
          {value}
        </a>
      ) : (
        <code class="cut" title={value}>
          {value}
        </code>
      )}
      <button type="button" class="copy" data-copy-text={value} aria-label={`Copy ${props.label ?? value}`} hidden>
        Copy
      </button>
    </span>
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/copy.js", (c: Context<ConsoleEnv>) => c.body(SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8" }));
}
