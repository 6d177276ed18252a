/** The audit log (owners): who did what, when, from where; newest first, 50 a page. */
import type { Hono } from "hono";
import { listAudit } from "../../services/audit";
import type { ConsoleEnv } from "../context";
import { Layout } from "../layout";
import { render } from "../render";
import { requireRole } from "../session";
import { TableHead } from "../table";

const PAGE = 50;

export function register(app: Hono<ConsoleEnv>) {
  app.get("/audit", requireRole("audit:read"), async (c) => {
    const member = c.get("member");
    const beforeParam = c.req.query("before");
    const before = beforeParam && /^\d{1,15}$/.test(beforeParam) ? Number(beforeParam) : undefined;
    const page = await listAudit(c.env, member.tenant_id, { limit: PAGE, ...(before !== undefined ? { before } : {}) });
    const last = page.entries[page.entries.length - 1];
    return render(
      c,
      <Layout title="Audit log" member={member} active="audit">
        {page.entries.length === 0 ? (
          <p class="muted">Nothing recorded yet.</p>
        ) : (
          <div class="table-scroll">
            <table>
              <TableHead columns={["When (UTC)", "Who", "What", "On", "From"]} />
              <tbody>
                {page.entries.map((e) => (
                  <tr data-action={e.action}>
                    <td>
                      <time datetime={e.at}>{e.at.replace("T", " ").slice(0, 19)}</time>
                    </td>
                    <td>
                      {e.actor.email ?? e.actor.id}
                      <span class="muted"> ({e.actor.type === "api_key" ? "API key" : e.actor.type})</span>
                    </td>
                    <td>
                      <code>{e.action}</code>
                      {e.details ? <div class="muted mono">{JSON.stringify(e.details)}</div> : null}
                    </td>
                    <td class="mono">{e.target ?? ""}</td>
                    <td>
                      {e.ip ?? <span class="muted">unknown</span>}
                      {e.user_agent ? (
                        <div class="muted" title={e.user_agent}>
                          {e.user_agent.slice(0, 60)}
                        </div>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p>
          {before !== undefined ? <a href="/console/audit">Newest</a> : null}
          {before !== undefined && page.has_more ? " · " : null}
          {page.has_more && last ? <a href={`/console/audit?before=${last.id}`}>Older entries</a> : null}
        </p>
      </Layout>,
    );
  });
}
