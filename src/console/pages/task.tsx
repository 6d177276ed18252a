/**
 * /console/tasks/:id — one task: its status and progress, its outputs and media inputs
 * previewed, its envelope as JSON, and a cancel button while it runs.
 *
 * Live progress: a small inline script follows `/console/tasks/:id/events`, the same event stream
 * as `GET /v1/tasks/{id}/events` (taskEventStream over the task object) authorised by the session
 * instead of a key; on `done` it swaps in this page's live section rendered anew
 * (`/console/tasks/:id/live`), outputs included. A browser without EventSource polls
 * `/console/tasks/:id/state`. Without JavaScript the page shows the state at load, with a link
 * to refresh it.
 */
import type { Context, Hono } from "hono";
import { raw } from "hono/html";
import { taskNotFound } from "../../errors/not-found";
import { can } from "../../services/people";
import { parseLastEventId, taskEventStream } from "../../services/task-events";
import {
  type Envelope,
  readTask,
  readTaskState,
  requestCancel,
  requestSignal,
  TERMINAL,
  tenantScope,
} from "../../services/tasks";
import type { ConsoleEnv } from "../context";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { Layout } from "../layout";
import { PreviewFigure } from "../preview-figure";
import { render } from "../render";
import { actorOf } from "../request-meta";
import { requireRole } from "../session";
import { DeliverySection } from "../task-delivery";
import { shortTaskId } from "../task-id";
import { inputPreviews, outputPreviews, type Preview } from "../task-media";
import { CONSOLE_TASK_STYLE } from "../task-style";
import { shortTime } from "./tasks";

type C = Context<ConsoleEnv>;

/** The member's task, as its envelope, or null (another tenant's and a malformed id alike). */
async function loadTask(c: C, taskId: string): Promise<Envelope | null> {
  const task = await readTask(c.env, taskId, tenantScope(c.get("member").tenant_id));
  return task ? task.envelope() : null;
}

function notFound(c: C, taskId: string) {
  return render(
    c,
    <Layout title="Task not found" member={c.get("member")} active="tasks">
      <p>
        There is no task <code>{taskId}</code> in {c.get("member").tenant_name}. <a href="/console/tasks">All tasks</a>
      </p>
    </Layout>,
    404,
  );
}

/**
 * The task's place in its provider's queue and its estimated time left, where it reports them
 * ("2 ahead, about 1:30 left"): an estimate, and never one already passed (under a second is not
 * shown). The script's `wait` says the same, and counts it down between events.
 */
function waitText(p: Envelope["progress"]): string {
  const parts: string[] = [];
  if (typeof p.queue_position === "number") parts.push(p.queue_position === 0 ? "next in queue" : `${p.queue_position} ahead`);
  if (typeof p.eta_seconds === "number" && p.eta_seconds >= 1) {
    parts.push(`about ${Math.floor(p.eta_seconds / 60)}:${String(p.eta_seconds % 60).padStart(2, "0")} left`);
  }
  return parts.join(", ");
}

/** The part of the page that changes while the task runs; the script swaps it whole on `done`. */
function TaskLive({ t, inputs, canCancel, csrf }: { t: Envelope; inputs: Preview[]; canCancel: boolean; csrf: unknown }) {
  const terminal = TERMINAL.has(t.status);
  const outputs = outputPreviews(t.output as Record<string, unknown> | null);
  const text = (t.output as { text?: unknown } | null)?.text;
  return (
    <section id="task-live" data-task-id={t.task_id} data-status={t.status} data-terminal={terminal ? "true" : "false"}>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class={`status status-${t.status}`} data-field="status">
            {t.status}
          </span>
        </dd>
        <dt>Progress</dt>
        <dd>
          <progress max={100} value={t.progress.percent} aria-label="Progress">
            {t.progress.percent}%
          </progress>{" "}
          <span data-field="percent">{t.progress.percent}%</span> · <span data-field="stage">{t.progress.stage}</span>
          {" · "}
          <span data-field="message">{t.progress.message}</span>{" "}
          <span data-field="wait" class="note">
            {waitText(t.progress)}
          </span>
        </dd>
        <dt>Capability</dt>
        <dd>{t.capability}</dd>
        {t.batch_id ? (
          <>
            <dt>Batch</dt>
            <dd data-field="batch">
              <code>{t.batch_id}</code> · item <code>{t.custom_id}</code> · <a href="/console/batches">Batches</a>
            </dd>
          </>
        ) : null}
        <dt>Model</dt>
        <dd>
          {t.resolved_model}
          {t.provider?.simulated ? " (sandbox: simulated output)" : ""}
        </dd>
        {t.models?.length ? (
          <>
            <dt>Fallback models</dt>
            <dd data-field="models">
              {t.models.map((m, i) => (
                <>
                  {i > 0 ? ", " : ""}
                  <code>{m}</code>
                </>
              ))}
            </dd>
          </>
        ) : null}
        {t.model_fallbacks?.length ? (
          <>
            <dt>Passed over</dt>
            <dd data-field="model-fallbacks">
              <ul class="model-fallbacks">
                {t.model_fallbacks.map((f) => (
                  <li>
                    <code>{f.model}</code> — {f.reason}
                    {f.message ? <span class="muted">: {f.message}</span> : null} <span class="muted">({shortTime(f.at)})</span>
                  </li>
                ))}
              </ul>
            </dd>
          </>
        ) : null}
        <dt>Credits</dt>
        <dd>
          {t.billing.net_charged_credits} {terminal ? "charged" : "held"}
        </dd>
        <dt>Created</dt>
        <dd>{shortTime(t.created_at)}</dd>
        <dt>Completed</dt>
        <dd>{shortTime(t.completed_at)}</dd>
      </dl>
      {!terminal && (
        <p class="live-note">
          <a href={`/console/tasks/${t.task_id}`}>Refresh</a>{" "}
          <span>(this page follows the task by itself with JavaScript on)</span>
        </p>
      )}
      {!terminal && canCancel && (
        <form method="post" action={`/console/tasks/${t.task_id}/cancel`} class="inline">
          {csrf}
          <button type="submit" class="danger">
            Cancel task
          </button>
        </form>
      )}
      {t.error && (
        <p class="error" role="alert">
          <strong>{t.error.code}</strong>: {t.error.message}
        </p>
      )}
      <h2>Outputs</h2>
      {outputs.length === 0 && typeof text !== "string" && (
        <p class="empty">{terminal ? "This task produced no stored output." : "Outputs appear here when the task ends."}</p>
      )}
      {typeof text === "string" && <pre class="text-output">{text}</pre>}
      <div class="previews">
        {outputs.map((p) => (
          <PreviewFigure p={p} />
        ))}
      </div>
      <DeliverySection t={t} canDeliver={canCancel} csrf={csrf} />
      {inputs.length > 0 && (
        <>
          <h2>Inputs</h2>
          <div class="previews">
            {inputs.map((p) => (
              <PreviewFigure p={p} />
            ))}
          </div>
        </>
      )}
      <h2>Envelope</h2>
      <pre class="envelope" data-field="envelope">
        {JSON.stringify(t, null, 2)}
      </pre>
    </section>
  );
}

/**
 * Follows the task: EventSource on the console's stream, else polling; on the end, the live
 * section rendered by the server replaces this one. Static text: it reads the page's data attributes.
 */
const LIVE_SCRIPT = `(() => {
  let root = document.getElementById("task-live");
  if (!root || root.dataset.terminal === "true") return;
  const base = "/console/tasks/" + encodeURIComponent(root.dataset.taskId);
  let finished = false;
  const set = (name, text) => {
    const el = root.querySelector('[data-field="' + name + '"]');
    if (el) el.textContent = text;
  };
  // The estimate counts down from the event that brought it, and is dropped once under a second.
  let shown = {};
  let etaAt = null;
  const wait = (p) => {
    const parts = [];
    if (typeof p.queue_position === "number") parts.push(p.queue_position === 0 ? "next in queue" : p.queue_position + " ahead");
    const left = etaAt === null ? 0 : Math.ceil((etaAt - Date.now()) / 1000);
    if (left >= 1) parts.push("about " + Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0") + " left");
    return parts.join(", ");
  };
  setInterval(() => { if (!finished) set("wait", wait(shown)); }, 1000);
  const show = (s) => {
    const p = s.progress || {};
    root.dataset.status = s.status;
    set("status", s.status);
    const status = root.querySelector('[data-field="status"]');
    if (status) status.className = "status status-" + s.status;
    if (typeof p.percent === "number") {
      const bar = root.querySelector("progress");
      if (bar) { bar.value = p.percent; bar.textContent = p.percent + "%"; }
      set("percent", p.percent + "%");
    }
    set("stage", p.stage || "");
    set("message", p.message || "");
    shown = p;
    etaAt = typeof p.eta_seconds === "number" ? Date.now() + p.eta_seconds * 1000 : null;
    set("wait", wait(p));
  };
  const finish = async () => {
    if (finished) return;
    finished = true;
    try {
      const r = await fetch(base + "/live", { credentials: "same-origin", headers: { Accept: "text/html" } });
      if (!r.ok) throw new Error(String(r.status));
      const t = document.createElement("template");
      t.innerHTML = (await r.text()).trim();
      const next = t.content.firstElementChild;
      if (!next) throw new Error("empty");
      root.replaceWith(next);
      root = next;
    } catch (e) {
      location.reload();
    }
  };
  const poll = () => {
    fetch(base + "/state", { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : Promise.reject(r.status)))
      .then((s) => { show(s); if (s.terminal) finish(); else setTimeout(poll, 1000); })
      .catch((status) => {
        // Signed out: the page itself goes to the sign-in form. Gone or forbidden: stop.
        if (status === 401) location.reload();
        else if (status !== 403 && status !== 404) setTimeout(poll, 3000);
      });
  };
  if (!("EventSource" in window)) return poll();
  const es = new EventSource(base + "/events");
  const onState = (e) => show(JSON.parse(e.data));
  es.addEventListener("status", onState);
  es.addEventListener("progress", onState);
  es.addEventListener("done", () => { es.close(); finish(); });
  es.onerror = () => { if (es.readyState === EventSource.CLOSED && !finished) poll(); };
})();`;

async function renderLive(c: C, t: Envelope) {
  const member = c.get("member");
  const inputs = await inputPreviews(c.env, member.tenant_id, t);
  return <TaskLive t={t} inputs={inputs} canCancel={can(member.role, "tasks:write")} csrf={csrfField(c)} />;
}

const CANCEL_OUTCOMES: Record<string, Flash> = {
  canceled: { kind: "ok", text: "The task was canceled; its held credits were released." },
  cancel_requested: { kind: "ok", text: "Cancel requested: the provider is stopping the task." },
  already_ended: { kind: "ok", text: "The task had already ended; nothing was canceled." },
  cancel_conflict: {
    kind: "error",
    text: "The task is already running at a provider that cannot stop it; it continues to the end.",
  },
};

export function register(app: Hono<ConsoleEnv>) {
  app.get("/tasks/:id", requireRole("tasks:read"), async (c) => {
    const taskId = c.req.param("id");
    const t = await loadTask(c, taskId);
    if (!t) return notFound(c, taskId);
    const flash = takeFlash(c);
    return render(
      c,
      <Layout title={`Task ${shortTaskId(t.task_id)}`} member={c.get("member")} active="tasks" {...(flash ? { flash } : {})}>
        <style>{raw(CONSOLE_TASK_STYLE)}</style>
        <p class="crumbs">
          <a href="/console/tasks">Tasks</a> / <code>{t.task_id}</code>
        </p>
        {await renderLive(c, t)}
        <script nonce={c.get("nonce")}>{raw(LIVE_SCRIPT)}</script>
      </Layout>,
    );
  });

  // The live section alone, for the script to swap in when the task ends.
  app.get("/tasks/:id/live", requireRole("tasks:read"), async (c) => {
    const t = await loadTask(c, c.req.param("id"));
    if (!t) throw taskNotFound(c.req.param("id"));
    return c.html(await renderLive(c, t));
  });

  // What the polling fallback reads: the task's status and progress.
  app.get("/tasks/:id/state", requireRole("tasks:read"), async (c) => {
    const taskId = c.req.param("id");
    const s = await readTaskState(c.env, taskId, tenantScope(c.get("member").tenant_id));
    if (!s) throw taskNotFound(taskId);
    return c.json({ task_id: taskId, status: s.status, progress: s.progress, terminal: TERMINAL.has(s.status) });
  });

  // The task's event stream under the session: the REST stream's own code, read as this tenant.
  app.get("/tasks/:id/events", requireRole("tasks:read"), async (c) => {
    const taskId = c.req.param("id");
    const scope = tenantScope(c.get("member").tenant_id);
    const first = await readTaskState(c.env, taskId, scope);
    if (!first) throw taskNotFound(taskId);
    const stream = taskEventStream({
      taskId,
      first,
      lastEventId: parseLastEventId(c.req.header("Last-Event-ID")),
      readState: () => readTaskState(c.env, taskId, scope),
      readFinal: () => readTask(c.env, taskId, scope),
      signal: requestSignal(c.req.raw),
    });
    return new Response(stream, {
      headers: { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache, no-transform" },
    });
  });

  app.post("/tasks/:id/cancel", requireRole("tasks:write"), async (c) => {
    const taskId = c.req.param("id");
    const member = c.get("member");
    if (!(await loadTask(c, taskId))) return notFound(c, taskId);
    const result = await requestCancel(c.env, taskId, tenantScope(member.tenant_id), "canceled in the console", actorOf(c));
    if (result.kind === "not_found") return notFound(c, taskId);
    const status = result.kind === "conflict" ? null : result.envelope.status;
    const outcome =
      status === null
        ? "cancel_conflict"
        : status === "canceled"
          ? "canceled"
          : TERMINAL.has(status)
            ? "already_ended"
            : "cancel_requested";
    return redirectWithFlash(c, `/console/tasks/${taskId}`, CANCEL_OUTCOMES[outcome] as Flash);
  });
}
