/**
 * /console/requests/:id (`logs:read`): one logged request — its fields, its provider attempts on a
 * time line (a task's as it goes on), what it cost, and its bodies when the tenant keeps them
 * (escaped, in `<pre>`). Owners and developers (`tasks:write`) get the Run again buttons of a task
 * create (src/console/run-again.tsx). An id the tenant has not logged is the console's 404 page.
 */
import type { Hono } from "hono";
import { raw } from "hono/html";
import { can } from "../../services/people";
import { getRequest, type RequestDetail } from "../../services/request-log";
import { tenantScope } from "../../services/tasks";
import type { ConsoleEnv } from "../context";
import { type Flash, takeFlash } from "../flash";
import { Layout } from "../layout";
import { render } from "../render";
import { REQUEST_STYLE } from "../request-style";
import { Timeline } from "../request-timeline";
import { createdCapability, otherModels, RunAgain } from "../run-again";
import { requireRole } from "../session";
import { TaskLink } from "../task-id";
import { CONSOLE_TASK_STYLE } from "../task-style";
import { requestHref, statusClass } from "./requests";

/** A body as logged: indented when it is JSON, as it is otherwise. */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function Facts({ r }: { r: RequestDetail }) {
  return (
    <dl class="facts">
      <dt>Route</dt>
      <dd>
        <code>{r.route}</code>
      </dd>
      <dt>Status</dt>
      <dd class={statusClass(r.status)} data-field="status">
        {r.status}
        {r.error_code ? ` · ${r.error_code}` : ""}
      </dd>
      <dt>Time</dt>
      <dd>
        <time datetime={r.created_at}>{r.created_at}</time> · {r.duration_ms} ms
      </dd>
      <dt>Key</dt>
      <dd>
        <code>{r.key_id}</code> · {r.mode} · {r.door}
      </dd>
      <dt>Model</dt>
      <dd>{r.model ?? "—"}</dd>
      <dt>Task</dt>
      <dd>{r.task_id ? <TaskLink id={r.task_id} /> : "—"}</dd>
      {r.batch_id && (
        <>
          <dt>Batch</dt>
          <dd>
            <code>{r.batch_id}</code>
          </dd>
        </>
      )}
      <dt>Credits</dt>
      <dd data-field="credits">
        {r.credits ? `${r.credits.charged} ${r.credits.settled ? "(final)" : "(held until the task settles)"}` : "none charged"}
      </dd>
      <dt>User agent</dt>
      <dd>{r.user_agent ?? "—"}</dd>
      {r.replay_of && (
        <>
          <dt>Runs again</dt>
          <dd>
            <a class="mono" href={requestHref(r.replay_of)}>
              {r.replay_of}
            </a>
          </dd>
        </>
      )}
    </dl>
  );
}

function Bodies({ r }: { r: RequestDetail }) {
  if (r.request_body === undefined && r.response_body === undefined) {
    return <p class="muted">Bodies are not kept: the tenant's request body logging is off.</p>;
  }
  return (
    <>
      <h3>Request body</h3>
      {r.request_body ? <pre class="body">{pretty(r.request_body)}</pre> : <p class="muted">None.</p>}
      <h3>Response body</h3>
      {r.response_body ? <pre class="body">{pretty(r.response_body)}</pre> : <p class="muted">None.</p>}
    </>
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/requests/:id", requireRole("logs:read"), async (c) => {
    const member = c.get("member");
    const r = await getRequest(c.env, tenantScope(member.tenant_id), c.req.param("id"));
    const runs = can(member.role, "tasks:write");
    const capability = runs ? await createdCapability(c.env, member.tenant_id, r) : null;
    const models = capability ? await otherModels(c.env, capability, r) : [];
    const flash: Flash | undefined = takeFlash(c);
    return render(
      c,
      <Layout title={`Request ${r.request_id}`} member={member} active="requests" {...(flash ? { flash } : {})}>
        <style>{raw(CONSOLE_TASK_STYLE + REQUEST_STYLE)}</style>
        <p class="crumbs">
          <a href="/console/requests">Requests</a>
        </p>
        <Facts r={r} />
        {runs && <RunAgain r={r} csrf={member.csrf ?? ""} capability={capability} models={models} />}
        <h2>Time line</h2>
        {r.attempts.length === 0 && <p class="muted">No provider was called for this request.</p>}
        <Timeline request={r} attempts={r.attempts} stages={r.stages} />
        <h2>Bodies</h2>
        <Bodies r={r} />
      </Layout>,
    );
  });
}
