/**
 * The frame of every console page: header with the tenant (and a switcher when the person has
 * several), navigation, sign-out, the page's flash message, and a small stylesheet. Plain HTML
 * forms and links: everything works without JavaScript.
 */
import type { Child } from "hono/jsx";
import { type Action, can } from "../services/people";
import type { Member } from "./context";
import { COPY_SCRIPT_PATH } from "./copy-id";
import type { Flash } from "./flash";

interface NavItem {
  key: string;
  label: string;
  href: string;
  /** Shown only to roles that may do this; none: everyone. */
  needs?: Action;
}

export const NAV: NavItem[] = [
  { key: "overview", label: "Overview", href: "/console" },
  { key: "keys", label: "API keys", href: "/console/keys" },
  { key: "signing-keys", label: "Signing keys", href: "/console/signing-keys" },
  { key: "webhooks", label: "Webhooks", href: "/console/webhooks" },
  { key: "provider-keys", label: "Provider keys", href: "/console/provider-keys", needs: "providers:manage" },
  { key: "storage", label: "Storage", href: "/console/storage", needs: "storage:manage" },
  { key: "tasks", label: "Tasks", href: "/console/tasks", needs: "tasks:read" },
  { key: "batches", label: "Batches", href: "/console/batches", needs: "tasks:read" },
  { key: "requests", label: "Requests", href: "/console/requests", needs: "logs:read" },
  { key: "usage", label: "Usage", href: "/console/usage", needs: "usage:read" },
  { key: "members", label: "Members", href: "/console/members", needs: "members:manage" },
  { key: "credits", label: "Credits", href: "/console/credits", needs: "billing:manage" },
  { key: "audit", label: "Audit", href: "/console/audit", needs: "audit:read" },
  { key: "connections", label: "Connected apps", href: "/console/connections" },
  { key: "settings", label: "Settings", href: "/console/settings", needs: "settings:manage" },
  { key: "status", label: "Status", href: "/console/status" },
];

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #5b6470; --bg: #ffffff; --panel: #f5f7f9; --line: #d8dde3;
  --accent: #2357c6; --ok: #1d7a3a; --err: #b42318; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ed; --muted: #a0a9b4; --bg: #14171b; --panel: #1d2126;
  --line: #333a42; --accent: #7aa2ff; --ok: #5cc27f; --err: #ff8a80; } }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: var(--bg); line-height: 1.45; }
a { color: var(--accent); }
header.top { display: flex; flex-wrap: wrap; gap: .75rem 1.5rem; align-items: center; padding: .75rem 1.25rem;
  border-bottom: 1px solid var(--line); background: var(--panel); width: 100%; }
header.top .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
header.top .who { margin-left: auto; display: flex; gap: .75rem; align-items: center; color: var(--muted); font-size: .9rem; }
nav.main ul { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem; margin: 0; padding: 0; }
nav.main a { display: block; padding: .3rem .6rem; border-radius: 6px; text-decoration: none; }
nav.main a[aria-current="page"] { background: var(--accent); color: var(--bg); }
/* The navigation is a menu that opens under 768 px; wider, its links show and the summary does not
   (where a browser cannot show a closed menu's content, the summary stays and opens it). */
nav.main summary { display: inline-block; list-style: none; cursor: pointer; padding: .3rem .7rem; border: 1px solid var(--line);
  border-radius: 6px; font-weight: 600; color: var(--accent); background: var(--bg); }
nav.main summary::-webkit-details-marker { display: none; }
nav.main summary::before { content: "\\2630\\00a0"; }
nav.main details[open] > summary { margin-bottom: .4rem; }
nav.main summary .here { font-weight: 400; color: var(--fg); }
@media (min-width: 768px) { @supports selector(::details-content) {
  nav.main summary { display: none; }
  nav.main details::details-content { content-visibility: visible; display: contents; }
} }
@media (max-width: 767.98px) {
  header.top { padding: .5rem .75rem; gap: .5rem .75rem; }
  header.top .who { margin-left: 0; width: 100%; flex-wrap: wrap; gap: .25rem .75rem; font-size: .85rem; }
  header.top .who form.inline { margin: 0 0 0 auto; }
  nav.main { margin-left: auto; }
  nav.main:has(details[open]) { width: 100%; }
  nav.main details[open] ul { display: grid; grid-template-columns: repeat(auto-fill, minmax(9rem, 1fr)); }
  main { padding: 1rem .75rem; }
}
main { max-width: 90rem; margin: 0 auto; padding: 1.25rem; min-width: 0; }
main :is(p, li, dd) { overflow-wrap: anywhere; }
/* Long ids in cells break rather than widen the table, but never narrower than a readable piece. */
td :is(code, .mono) { display: inline-block; min-width: 14ch; overflow-wrap: anywhere; }
/* An id cut to one line with an ellipsis, its Copy button beside it (src/console/copy-id.tsx). */
.id { display: inline-flex; align-items: center; gap: .3rem; max-width: 100%; vertical-align: bottom; }
.id > .cut { display: block; min-width: 0; max-width: 12ch; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
button.copy { flex: none; padding: 0 .35rem; font-size: .75rem; line-height: 1.6; background: transparent; color: var(--accent); }
/* A row's actions stack in their cell, each form on its own line. */
td > form.inline { display: flex; max-width: 100%; }
td > form.inline select { min-width: 0; }
fieldset { min-width: 0; }
div.stack { display: grid; grid-template-columns: minmax(0, 1fr); gap: .6rem; margin-top: .6rem; }
h1 { font-size: 1.5rem; margin: .25rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
/* A wide table scrolls inside its own box; the page itself never scrolls sideways. */
.table-scroll { position: relative; max-width: 100%; overflow-x: auto; margin: .5rem 0 1rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .45rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .85rem; color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
form.inline { display: inline-flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin: 0 .4rem .3rem 0; }
form.stack { display: grid; grid-template-columns: minmax(0, 1fr); gap: .6rem; max-width: 26rem; }
form.stack.wide { max-width: 44rem; }
.field { display: grid; grid-template-columns: minmax(0, 1fr); gap: .2rem; }
.field textarea { width: 100%; }
/* Labels in one column, their inputs (and a hint under each) in the next; stacked on a narrow
   screen and inside a table's cell. A checkbox row, a fieldset or a note spans both. */
.fields { display: grid; grid-template-columns: minmax(0, 11rem) minmax(0, 1fr); gap: .5rem 1rem; align-items: start;
  max-width: 46rem; margin: 0 0 .75rem; }
.fields > label { padding-top: .45rem; }
.fields > :is(input, select, textarea, .hint, .check, button) { grid-column: 2; }
.fields > :is(input, select, textarea) { width: 100%; }
.fields > .hint { margin: -.3rem 0 0; font-size: .85rem; color: var(--muted); }
.fields > .check { font-weight: 400; }
.fields > button { justify-self: start; }
.fields > :is(fieldset, p, div, .span) { grid-column: 1 / -1; }
fieldset.fields { padding: .5rem .8rem .8rem; }
@media (max-width: 599.98px) {
  .fields { grid-template-columns: minmax(0, 1fr); gap: .3rem; }
  .fields > :is(*, .hint) { grid-column: 1 / -1; }
  .fields > label { padding-top: .35rem; }
  .fields > .hint { margin: 0; }
}
td form.stack { min-width: 10rem; }
/* A meter in a cell takes the cell's width rather than widening it. */
td progress { display: block; width: 100%; }
/* A cell's note (who made it, an address) breaks anywhere rather than widen its column. */
td div.muted { overflow-wrap: anywhere; }
td .fields { grid-template-columns: minmax(0, 1fr); gap: .3rem; }
td .fields > :is(*, .hint) { grid-column: 1 / -1; }
td .fields > label { padding-top: .3rem; }
td .fields > .hint { margin: 0; }
input, select, textarea { max-width: 100%; }
label { font-weight: 600; font-size: .9rem; }
input, select, textarea, button { font: inherit; }
input[type="text"], input[type="email"], input[type="password"], input[type="number"], input[type="url"], input[type="datetime-local"], input:not([type]), select, textarea { padding: .4rem .5rem;
  border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
button { padding: .4rem .8rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent);
  color: var(--bg); cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
button.danger { border-color: var(--err); background: transparent; color: var(--err); }
.flash { padding: .6rem .8rem; border-radius: 6px; margin: 0 0 1rem; border: 1px solid; }
.flash.ok { border-color: var(--ok); color: var(--ok); }
.flash.error { border-color: var(--err); color: var(--err); }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap: .75rem; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; }
.card .value { font-size: 1.6rem; font-weight: 700; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); }
.badge { display: inline-block; padding: 0 .4rem; border-radius: 4px; border: 1px solid var(--line); font-size: .8rem; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; }
figure { margin: 0; }
time { white-space: nowrap; }
.inline-check { display: block; font-weight: 400; }
h1 { overflow-wrap: anywhere; }
dl.facts { display: grid; grid-template-columns: minmax(0, max-content) minmax(0, 1fr); gap: .3rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.actions { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; }
input[type="url"] { width: 100%; }
fieldset { border: 1px solid var(--line); border-radius: 6px; }
pre.excerpt { white-space: pre-wrap; word-break: break-all; max-width: 28rem; margin: 0; font-size: .8rem; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

export function Layout(props: { title: string; member?: Member; active?: string; children: Child; flash?: Flash }) {
  const { member } = props;
  const links = member ? NAV.filter((n) => !n.needs || can(member.role, n.needs)) : [];
  const current = links.find((n) => n.key === props.active);
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <link rel="icon" href="/favicon.ico" sizes="32x32" />
        <title>{member ? `${props.title} · ${member.tenant_name} · Console` : `${props.title} · Console`}</title>
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
        <script src={COPY_SCRIPT_PATH} defer />
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/console">
            Media API console
          </a>
          {member ? (
            <>
              <nav class="main" aria-label="Console">
                <details class="menu">
                  <summary>
                    Menu<span class="here">{current ? `: ${current.label}` : ""}</span>
                  </summary>
                  <ul>
                    {links.map((n) => (
                      <li>
                        <a href={n.href} aria-current={props.active === n.key ? "page" : undefined}>
                          {n.label}
                        </a>
                      </li>
                    ))}
                  </ul>
                </details>
              </nav>
              <div class="who">
                <TenantSwitcher member={member} />
                <span>
                  {member.email} <span class="badge">{member.role}</span>
                </span>
                <form class="inline" method="post" action="/console/sign-out">
                  <input type="hidden" name="_csrf" value={member.csrf ?? ""} />
                  <button type="submit" class="secondary">
                    Sign out
                  </button>
                </form>
              </div>
            </>
          ) : null}
        </header>
        <main>
          <h1>{props.title}</h1>
          {props.flash ? (
            <p class={`flash ${props.flash.kind}`} role={props.flash.kind === "error" ? "alert" : "status"}>
              {props.flash.text}
            </p>
          ) : null}
          {props.children}
        </main>
      </body>
    </html>
  );
}

/** The tenant's name, or a select of the person's tenants when they belong to several. */
function TenantSwitcher(props: { member: Member }) {
  const { member } = props;
  const tenants = member.tenants ?? [];
  if (tenants.length < 2) return <strong>{member.tenant_name}</strong>;
  return (
    <form class="inline" method="post" action="/console/switch-tenant">
      <input type="hidden" name="_csrf" value={member.csrf ?? ""} />
      <label for="tenant-switch" class="sr-only">
        Tenant
      </label>
      <select id="tenant-switch" name="tenant_id">
        {tenants.map((t) => (
          <option value={t.tenant_id} selected={t.tenant_id === member.tenant_id}>
            {t.tenant_name}
          </option>
        ))}
      </select>
      <button type="submit" class="secondary">
        Switch
      </button>
    </form>
  );
}
