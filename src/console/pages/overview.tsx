/** Overview: balance, reserved credits, the last 30 days' spend by capability, recent tasks. */
import type { Hono } from "hono";
import { dailySpend } from "../../services/accounts";
import { tenantBalance } from "../../services/balance";
import { can } from "../../services/people";
import { listTasks, tenantScope } from "../../services/tasks";
import type { ConsoleEnv } from "../context";
import { takeFlash } from "../flash";
import { Layout } from "../layout";
import { render } from "../render";
import { requireMember } from "../session";
import { SpendChart } from "../spend-chart";
import { TableHead } from "../table";
import { TaskLink } from "../task-id";

export function register(app: Hono<ConsoleEnv>) {
  app.get("/", requireMember, async (c) => {
    const member = c.get("member");
    const [balance, spend, recent] = await Promise.all([
      tenantBalance(c.env, member.tenant_id),
      dailySpend(c.env, member.tenant_id),
      can(member.role, "tasks:read") ? listTasks(c.env, tenantScope(member.tenant_id), { limit: 10 }) : null,
    ]);
    return render(
      c,
      <Layout title="Overview" member={member} active="overview" flash={takeFlash(c)}>
        <section class="cards" aria-label="Credits">
          <div class="card">
            <div class="muted">Balance</div>
            <div class="value" data-testid="balance">
              {balance?.available ?? "0"}
            </div>
            <div class="muted">credits available</div>
          </div>
          <div class="card">
            <div class="muted">Reserved</div>
            <div class="value" data-testid="reserved">
              {balance?.reserved ?? "0"}
            </div>
            <div class="muted">held by running work</div>
          </div>
        </section>
        <h2>Spend, last 30 days</h2>
        <SpendChart days={spend} title="Credits spent per day over the last 30 days, by capability" />
        {recent ? (
          <>
            <h2>Recent tasks</h2>
            {recent.data.length === 0 ? (
              <p class="muted">No tasks yet.</p>
            ) : (
              <div class="table-scroll">
                <table>
                  <TableHead columns={["Task", "Capability", "Model", "Status", "Created"]} />
                  <tbody>
                    {recent.data.map((t) => (
                      <tr>
                        <td>
                          <TaskLink id={t.task_id} />
                        </td>
                        <td>{t.capability}</td>
                        <td>{t.resolved_model ?? t.model}</td>
                        <td>
                          <span class="badge">{t.status}</span>
                        </td>
                        <td>
                          <time datetime={t.created_at}>{t.created_at.replace("T", " ").slice(0, 19)}</time>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <p>
              <a href="/console/tasks">All tasks</a>
              {can(member.role, "tasks:write") ? (
                <>
                  {" · "}
                  <a href="/console/tasks/new">New task</a>
                </>
              ) : null}
            </p>
          </>
        ) : null}
      </Layout>,
    );
  });
}
