/**
 * The delivery log (on the webhooks page and an endpoint's) and one delivery's page with its attempts.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { tenantScope } from "../../services/tasks";
import { getDelivery, type LoggedStatus, listDeliveries } from "../../services/webhooks";
import type { ConsoleEnv } from "../context";
import { CopyId } from "../copy-id";
import type { Flash } from "../flash";
import { Layout } from "../layout";
import { render } from "../render";
import { PostButton } from "../row-forms";
import { when } from "../secret-once";
import { TableHead } from "../table";
import { TaskLink } from "../task-id";
import { HOME, mayManage, STATUSES, StatusBadge, scopeOf } from "./webhook-common";

/** The delivery log's rows, newest first, filtered as the query asks. */
export async function DeliveryLog(props: { c: Context<ConsoleEnv>; endpointId?: string }) {
  const { c } = props;
  const status = c.req.query("status");
  const filter = STATUSES.includes(status as LoggedStatus) ? (status as LoggedStatus) : undefined;
  const cursor = c.req.query("cursor");
  const page = await listDeliveries(c.env, scopeOf(c), {
    limit: 25,
    ...(props.endpointId ? { endpoint_id: props.endpointId } : {}),
    ...(filter ? { status: filter } : {}),
    ...(cursor ? { cursor } : {}),
  });
  const here = props.endpointId ? `${HOME}/endpoints/${props.endpointId}` : HOME;
  const link = (extra: Record<string, string>) => {
    const q = new URLSearchParams({ ...(filter ? { status: filter } : {}), ...extra });
    return q.size ? `${here}?${q}` : here;
  };
  return (
    <section aria-labelledby="log-title">
      <h2 id="log-title">Deliveries</h2>
      <p>
        Show:{" "}
        {["all", ...STATUSES].map((s) => (
          <>
            <a href={s === "all" ? here : `${here}?status=${s}`} aria-current={(filter ?? "all") === s ? "page" : undefined}>
              {s}
            </a>{" "}
          </>
        ))}
      </p>
      {page.data.length === 0 ? (
        <p class="muted">No deliveries{filter ? ` ${filter}` : ""} yet.</p>
      ) : (
        <div class="table-scroll">
          <table>
            <TableHead columns={["Delivery", "Event", "Target", "Task", "Status", "Made", "Ended"]} />
            <tbody>
              {page.data.map((d) => (
                <tr data-delivery-id={d.delivery_id} data-status={d.status}>
                  <td>
                    <CopyId value={d.delivery_id} href={`${HOME}/deliveries/${d.delivery_id}`} />
                  </td>
                  <td>
                    <code>{d.event_type}</code>
                  </td>
                  <td>
                    {d.target === "callback" ? (
                      "task callback"
                    ) : (
                      <CopyId value={d.endpoint_id as string} href={`${HOME}/endpoints/${d.endpoint_id}`} />
                    )}
                  </td>
                  <td>{d.task_id ? <TaskLink id={d.task_id} /> : "—"}</td>
                  <td>
                    <StatusBadge status={d.status} />
                  </td>
                  <td>{when(d.created_at)}</td>
                  <td>{when(d.finished_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.next_cursor ? (
        <p>
          <a href={link({ cursor: page.next_cursor })}>Older deliveries</a>
        </p>
      ) : null}
    </section>
  );
}

export async function deliveryPage(c: Context<ConsoleEnv>, flash?: Flash, status: ContentfulStatusCode = 200) {
  const member = c.get("member");
  const d = await getDelivery(c.env, tenantScope(member.tenant_id), c.req.param("id") as string);
  return render(
    c,
    <Layout title={`Delivery ${d.delivery_id}`} member={member} active="webhooks" flash={flash}>
      <p>
        <a href={HOME}>All webhooks</a>
      </p>
      <dl class="facts" data-delivery-id={d.delivery_id} data-status={d.status}>
        <dt>Event</dt>
        <dd>
          <code>{d.event_type}</code> · <code>webhook-id</code> <code>{d.event_id}</code>
        </dd>
        <dt>Target</dt>
        <dd>
          {d.target === "callback" ? (
            "the task's callback_url"
          ) : (
            <a href={`${HOME}/endpoints/${d.endpoint_id}`}>{d.endpoint_id}</a>
          )}
        </dd>
        <dt>Task</dt>
        <dd>{d.task_id ? <a href={`/console/tasks/${d.task_id}`}>{d.task_id}</a> : "—"}</dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={d.status} />
          {d.next_attempt_at ? ` · next attempt ${when(d.next_attempt_at)}` : ""}
        </dd>
        <dt>Last error</dt>
        <dd>{d.last_error ?? "—"}</dd>
      </dl>
      {mayManage(c) ? (
        <PostButton c={c} action={`${HOME}/deliveries/${d.delivery_id}/resend`} kind="secondary">
          Resend now
        </PostButton>
      ) : null}
      <h2>Attempts</h2>
      {d.attempts.length === 0 ? (
        <p class="muted">No attempt yet.</p>
      ) : (
        <div class="table-scroll">
          <table>
            <TableHead
              columns={["#", "At", { label: "HTTP", num: true }, { label: "ms", num: true }, "Error", "Answer (first KiB)"]}
            />
            <tbody>
              {d.attempts.map((a) => (
                <tr data-attempt={a.attempt}>
                  <td>{a.attempt}</td>
                  <td>{when(a.attempted_at)}</td>
                  <td class="num">{a.http_status ?? "—"}</td>
                  <td class="num">{a.duration_ms}</td>
                  <td>
                    {a.error ?? "—"}
                    {a.location ? (
                      <div class="muted">
                        Location: <code>{a.location}</code>
                      </div>
                    ) : null}
                  </td>
                  <td>{a.response_excerpt ? <pre class="excerpt">{a.response_excerpt}</pre> : "—"}</td>
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
