/** Members (owners): invite by email with a role, change a role, remove. */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { changeMemberRole, inviteMember, listMembers, ROLES, removeMember } from "../../services/people";
import { acting } from "../acting";
import type { ConsoleEnv } from "../context";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { formField } from "../form-body";
import { Layout } from "../layout";
import { refusal } from "../refusal";
import { render } from "../render";
import { PostButton } from "../row-forms";
import { requireRole } from "../session";
import { TableHead } from "../table";

async function field(c: Context<ConsoleEnv>, name: string): Promise<string> {
  const value = formField(c, name);
  return typeof value === "string" ? value : "";
}

const ROLE_HELP: Record<(typeof ROLES)[number], string> = {
  owner: "everything, members and billing included",
  developer: "API keys, signing keys, tasks, usage",
  viewer: "read only: tasks and usage",
};

async function membersPage(c: Context<ConsoleEnv>, flash?: Flash, status: ContentfulStatusCode = 200) {
  const member = c.get("member");
  const members = await listMembers(c.env, member.tenant_id, acting(c));
  return render(
    c,
    <Layout title="Members" member={member} active="members" flash={flash}>
      <div class="table-scroll">
        <table>
          <TableHead columns={["Email", "Role", "Status", "Since"]} actions />
          <tbody>
            {members.map((m) => (
              <tr data-user-id={m.user_id}>
                <td>
                  {m.email}
                  {m.user_id === member.user_id ? <span class="muted"> (you)</span> : null}
                </td>
                <td>
                  <form class="inline" method="post" action={`/console/members/${m.user_id}/role`}>
                    {csrfField(c)}
                    <label class="sr-only" for={`role-${m.user_id}`}>
                      Role of {m.email}
                    </label>
                    <select id={`role-${m.user_id}`} name="role">
                      {ROLES.map((r) => (
                        <option value={r} selected={r === m.role}>
                          {r}
                        </option>
                      ))}
                    </select>
                    <button type="submit" class="secondary">
                      Change
                    </button>
                  </form>
                </td>
                <td>
                  <span class="badge">{m.status}</span>
                </td>
                <td>{(m.joined_at ?? m.created_at).slice(0, 10)}</td>
                <td>
                  <PostButton c={c} action={`/console/members/${m.user_id}/remove`} kind="danger" label={`Remove ${m.email}`}>
                    Remove
                  </PostButton>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Invite someone</h2>
      <form class="stack" method="post" action="/console/members/invite">
        {csrfField(c)}
        <label for="invite-email">Email address</label>
        <input id="invite-email" name="email" type="email" required autocomplete="off" />
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          {ROLES.map((r) => (
            <option value={r} selected={r === "developer"}>
              {r} — {ROLE_HELP[r]}
            </option>
          ))}
        </select>
        <button type="submit">Send invitation</button>
      </form>
      <p class="muted">The invitation is emailed; the person joins when they first sign in with that address.</p>
    </Layout>,
    status,
  );
}

/**
 * Runs a members action: success redirects with a message; a refusal from the service (bad
 * input, last owner, mail failure) shows the page again with the reason and the error's status.
 */
async function act(c: Context<ConsoleEnv>, run: () => Promise<string>) {
  try {
    const text = await run();
    return redirectWithFlash(c, "/console/members", { kind: "ok", text });
  } catch (e) {
    const { flash, status, error } = refusal(c, e);
    if (error.retryAfter !== undefined) c.header("Retry-After", String(Math.ceil(error.retryAfter)));
    return membersPage(c, flash, status);
  }
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/members", requireRole("members:manage"), async (c) => membersPage(c, takeFlash(c)));

  app.post("/members/invite", requireRole("members:manage"), async (c) => {
    const email = await field(c, "email");
    const role = await field(c, "role");
    return act(c, async () => {
      const m = await inviteMember(c.env, c.get("member").tenant_id, { email, role }, acting(c));
      return `Invitation sent to ${m.email} (${m.role}).`;
    });
  });

  app.post("/members/:user_id/role", requireRole("members:manage"), async (c) => {
    const role = await field(c, "role");
    return act(c, async () => {
      const m = await changeMemberRole(c.env, c.get("member").tenant_id, c.req.param("user_id"), role, acting(c));
      return `${m.email} is now ${m.role}.`;
    });
  });

  app.post("/members/:user_id/remove", requireRole("members:manage"), async (c) =>
    act(c, async () => {
      const m = await removeMember(c.env, c.get("member").tenant_id, c.req.param("user_id"), acting(c));
      return `${m.email} was removed.`;
    }),
  );
}
