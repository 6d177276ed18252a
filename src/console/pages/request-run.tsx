/**
 * Run again (`tasks:write`): `POST /console/requests/:id/run` runs a logged task create again as
 * the member, in the original's mode, optionally on another model. The body is the one the REST
 * replay would send (replayPlanOf: the logged body when kept whole, else the task's stored
 * request); the task is admitted by the same service as the new-task form, and the call is logged
 * with `door: "console"` and `replay_of`. Then `/console/requests/:id/compare?task=` shows the
 * original's and the new task's outputs side by side, refreshing itself until the new task ends.
 */
import type { Hono } from "hono";
import { raw } from "hono/html";
import { requestNotFound, taskNotFound } from "../../errors/not-found";
import { OPERATIONS } from "../../services/operations";
import { getRequest, loggedRow, replayPlanOf } from "../../services/request-log";
import { type Envelope, readTask, TERMINAL, tenantScope } from "../../services/tasks";
import type { ConsoleEnv } from "../context";
import { redirectWithFlash } from "../flash";
import { formField } from "../form-body";
import { Layout } from "../layout";
import { admitForMember, consoleCaller, loggedCreate, madeAlready, postedKey } from "../member-create";
import { PreviewFigure } from "../preview-figure";
import { refusal } from "../refusal";
import { render } from "../render";
import { REQUEST_STYLE } from "../request-style";
import { requireRole } from "../session";
import { checkTask } from "../task-form";
import { TaskLink } from "../task-id";
import { outputPreviews } from "../task-media";
import { CONSOLE_TASK_STYLE } from "../task-style";
import { requestHref } from "./requests";

/** The path the log names for a run again (the request's id left as the template's). */
const RUN_PATH = "/console/requests/{request_id}/run";
/** This page's own address, for its Refresh link. */
const selfPath = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};
const isOperation = (path: string) => OPERATIONS.some((o) => o.path === path);

function TaskResult({ title, t }: { title: string; t: Envelope | null }) {
  if (!t) {
    return (
      <section>
        <h2>{title}</h2>
        <p class="muted">Its task is no longer there.</p>
      </section>
    );
  }
  const outputs = outputPreviews(t.output as Record<string, unknown> | null);
  const text = (t.output as { text?: unknown } | null)?.text;
  return (
    <section data-task-id={t.task_id} data-status={t.status}>
      <h2>{title}</h2>
      <p>
        <TaskLink id={t.task_id} /> · {t.resolved_model} · <span class={`status status-${t.status}`}>{t.status}</span>
      </p>
      {t.error && (
        <p class="error">
          <strong>{t.error.code}</strong>: {t.error.message}
        </p>
      )}
      {!TERMINAL.has(t.status) && <p class="muted">Outputs appear here when the task ends.</p>}
      {typeof text === "string" && <pre class="text-output">{text}</pre>}
      <div class="previews">
        {outputs.map((p) => (
          <PreviewFigure p={p} />
        ))}
      </div>
    </section>
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.post("/requests/:id/run", requireRole("tasks:write"), async (c) => {
    const member = c.get("member");
    const scope = tenantScope(member.tenant_id);
    const id = c.req.param("id");
    const row = await loggedRow(c.env, scope, id);
    if (!row) throw requestNotFound(id);
    try {
      const key = postedKey(c);
      const model = formField(c, "model")?.trim() || undefined;
      const caller = await consoleCaller(c, row.mode);
      const made = await loggedCreate(c, { path: RUN_PATH, caller, replayOf: row.request_id }, async (call) => {
        const seen = await madeAlready(c, key, row.mode);
        if (seen) {
          call.note.task_id = seen.task_id;
          return seen;
        }
        const plan = await replayPlanOf(c.env, scope, row, model, isOperation);
        const spec = OPERATIONS.find((o) => o.path === plan.path);
        if (!spec) throw requestNotFound(id);
        call.body = plan.body;
        return admitForMember(c, call, spec, checkTask(spec, plan.body), plan.body, key);
      });
      const query = new URLSearchParams({ task: made.task_id, request: c.get("requestId") });
      return c.redirect(`${requestHref(id)}/compare?${query}`, 303);
    } catch (e) {
      return redirectWithFlash(c, requestHref(id), refusal(c, e).flash);
    }
  });

  app.get("/requests/:id/compare", requireRole("logs:read"), async (c) => {
    const member = c.get("member");
    const scope = tenantScope(member.tenant_id);
    const r = await getRequest(c.env, scope, c.req.param("id"));
    const taskId = c.req.query("task") ?? "";
    const made = await readTask(c.env, taskId, scope);
    if (!made) throw taskNotFound(taskId);
    const after = made.envelope();
    const before = r.task_id ? ((await readTask(c.env, r.task_id, scope))?.envelope() ?? null) : null;
    const newRequest = c.req.query("request");
    const running = !TERMINAL.has(after.status);
    return render(
      c,
      <Layout title="Run again" member={member} active="requests">
        <style>{raw(CONSOLE_TASK_STYLE + REQUEST_STYLE)}</style>
        {/* No script: the page reloads itself while the new task runs. */}
        {running && <meta http-equiv="refresh" content="2" />}
        <p class="crumbs">
          <a href="/console/requests">Requests</a> · <a href={requestHref(r.request_id)}>{r.request_id}</a>
          {newRequest && (
            <>
              {" "}
              · run again as <a href={requestHref(newRequest)}>{newRequest}</a>
            </>
          )}
        </p>
        {running && (
          <p class="muted">
            The new task is {after.status}; this page refreshes until it ends. <a href={selfPath(c.req.url)}>Refresh now</a>
          </p>
        )}
        <div class="side-by-side">
          <TaskResult title="Original" t={before} />
          <TaskResult title="Run again" t={after} />
        </div>
      </Layout>,
    );
  });
}
