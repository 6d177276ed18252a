/**
 * Connected apps (`/console/connections`): the OAuth grants of the tenant (MCP clients that members
 * connected), with who connected them, their scopes and last use, and a Revoke button. Owners see
 * and revoke every grant; other members their own. A revoked grant's tokens stop at once.
 */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { listGrants, revokeGrant, seesAllGrants } from "../../services/oauth";
import type { ConsoleEnv } from "../context";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { Layout } from "../layout";
import { showingRefusals } from "../refusal";
import { render } from "../render";
import { actorOf } from "../request-meta";
import { PostButton } from "../row-forms";
import { when } from "../secret-once";
import { requireMember } from "../session";
import { TableHead } from "../table";
import { ClientName } from "./oauth-consent";

async function connectionsPage(c: Context<ConsoleEnv>, flash?: Flash, status: ContentfulStatusCode = 200) {
  const member = c.get("member");
  const grants = await listGrants(c.env, member);
  const all = seesAllGrants(member);
  return render(
    c,
    <Layout title="Connected apps" member={member} active="connections" flash={flash}>
      <p class="muted">
        Applications (MCP clients) connected through OAuth, each acting for one member in this tenant.{" "}
        {all ? "As an owner you see everyone's." : "You see the ones you connected."} To connect a device that shows a code, go to{" "}
        <a href="/console/device">Connect a device</a>.
      </p>
      {grants.length === 0 ? (
        <p class="muted">No connected apps.</p>
      ) : (
        <div class="table-scroll">
          <table>
            <TableHead columns={["Application", "Member", "Scopes", "Connected", "Last used"]} actions />
            <tbody>
              {grants.map((g) => (
                <tr data-grant-id={g.grant_id}>
                  <td>
                    <ClientName name={g.client_name} clientId={g.client_id} />
                    <div class="muted mono">{g.grant_id}</div>
                  </td>
                  <td>
                    {g.email}
                    {g.user_id === member.user_id ? <span class="muted"> (you)</span> : null}
                  </td>
                  <td>
                    {g.scopes.map((s) => (
                      <>
                        <code>{s}</code>{" "}
                      </>
                    ))}
                  </td>
                  <td>{when(g.created_at)}</td>
                  <td>{when(g.last_used_at)}</td>
                  <td>
                    <PostButton
                      c={c}
                      action={`/console/connections/${g.grant_id}/revoke`}
                      kind="danger"
                      label={`Revoke ${g.client_name}`}
                    >
                      Revoke
                    </PostButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>,
    status,
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/connections", requireMember, async (c) => connectionsPage(c, takeFlash(c)));

  app.post("/connections/:grant_id/revoke", requireMember, async (c) =>
    showingRefusals(c, connectionsPage, async () => {
      const revoked = await revokeGrant(c.env, c.get("member"), c.req.param("grant_id"), actorOf(c));
      return redirectWithFlash(c, "/console/connections", {
        kind: "ok",
        text: `Revoked ${revoked.grant_id}: its tokens no longer work.`,
      });
    }),
  );
}
