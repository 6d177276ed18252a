/**
 * Webhooks: the tenant's endpoints and every delivery made to its systems (endpoints and task
 * callbacks). Every member sees them (never a secret); developers and owners (`webhooks:manage`)
 * add an endpoint (its secret shown once), edit its URL and events, send it a test event,
 * disable and enable it, rotate its secret with an overlap, recover what it missed and delete it,
 * and resend any delivery. Each action calls src/services/webhooks.ts, as the REST routes do.
 */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "../../errors/api-error";
import { GRACE_LABELS, GRACE_PERIODS, type Grace } from "../../services/accounts";
import { auditFields, can } from "../../services/people";
import { tenantScope } from "../../services/tasks";
import type { LoggedStatus } from "../../services/webhooks";
import {
  createEndpoint,
  deleteEndpoint,
  getDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  recoverEndpoint,
  resendDelivery,
  rotateEndpointSecret,
  SUBSCRIPTIONS,
  sendTestEvent,
  updateEndpoint,
} from "../../services/webhooks";
import { acting } from "../acting";
import type { ConsoleEnv } from "../context";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { formField, formFields } from "../form-body";
import { claimForm, FormOnce } from "../form-once";
import { Layout } from "../layout";
import { showingRefusals } from "../refusal";
import { render } from "../render";
import { PostButton, postedGrace, RotateForm } from "../row-forms";
import { CopyScript, SecretOnce, stashSecret, takeSecret, when } from "../secret-once";
import { requireMember, requireRole } from "../session";
import { TableHead } from "../table";

const HOME = "/console/webhooks";
const SECRET_PATH = "/console/webhooks/created";
const STATUSES: readonly LoggedStatus[] = ["pending", "succeeded", "failed"];
const OVERLAP_LABELS: Record<Grace, string> = { ...GRACE_LABELS, none: "none (old secret stops now)" };

const by = (c: Context<ConsoleEnv>) => auditFields(acting(c));
// Members act for the tenant as a whole: they see both modes' endpoints and deliveries, and make live endpoints.
const scopeOf = (c: Context<ConsoleEnv>) => tenantScope(c.get("member").tenant_id);
const mayManage = (c: Context<ConsoleEnv>) => can(c.get("member").role, "webhooks:manage");

/** The event types ticked in a form; none is refused naming the field. */
function postedEvents(c: Context<ConsoleEnv>): string[] {
  const events = formFields(c, "events").filter((e) => (SUBSCRIPTIONS as readonly string[]).includes(e));
  if (events.length === 0) {
    const reason = "choose at least one event type";
    throw new ApiError("invalid_request", `events: ${reason}.`, {
      param: "events",
      details: { errors: [{ loc: ["body", "events"], reason }] },
    });
  }
  return events;
}

function EventBoxes(props: { idPrefix: string; checked: readonly string[] }) {
  return (
    <fieldset>
      <legend>Events</legend>
      {SUBSCRIPTIONS.map((e) => (
        <label class="inline-check" for={`${props.idPrefix}-${e}`}>
          <input id={`${props.idPrefix}-${e}`} type="checkbox" name="events" value={e} checked={props.checked.includes(e)} />{" "}
          <code>{e === "*" ? "* (every type)" : e}</code>
        </label>
      ))}
    </fieldset>
  );
}

function StatusBadge(props: { status: string }) {
  return (
    <span class="badge" data-status={props.status}>
      {props.status}
    </span>
  );
}

/** The delivery log's rows, newest first, filtered as the query asks. */
async function DeliveryLog(props: { c: Context<ConsoleEnv>; endpointId?: string }) {
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
                    <a href={`${HOME}/deliveries/${d.delivery_id}`}>
                      <code>{d.delivery_id}</code>
                    </a>
                  </td>
                  <td>
                    <code>{d.event_type}</code>
                  </td>
                  <td>
                    {d.target === "callback" ? (
                      "task callback"
                    ) : (
                      <a href={`${HOME}/endpoints/${d.endpoint_id}`}>{d.endpoint_id}</a>
                    )}
                  </td>
                  <td>{d.task_id ? <a href={`/console/tasks/${d.task_id}`}>{d.task_id}</a> : "—"}</td>
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

async function webhooksPage(c: Context<ConsoleEnv>, flash?: Flash, status: ContentfulStatusCode = 200) {
  const member = c.get("member");
  const endpoints = (await listEndpoints(c.env, tenantScope(member.tenant_id))).data;
  const manage = mayManage(c);
  return render(
    c,
    <Layout title="Webhooks" member={member} active="webhooks" flash={flash}>
      <p class="muted">
        Endpoints receive the tenant's events, signed per Standard Webhooks with the endpoint's secret (<code>webhook-id</code>,{" "}
        <code>webhook-timestamp</code>, <code>webhook-signature</code>). A failed delivery is retried after 5 s, 5 min, 30 min, 2
        h, 5 h, 10 h and 10 h; an endpoint that fails for 5 days is disabled. An endpoint receives the events of its mode's tasks
        only: those added here are live; test-mode keys add test ones.
      </p>
      {endpoints.length === 0 ? (
        <p class="muted">No endpoints yet.</p>
      ) : (
        <div class="table-scroll">
          <table>
            <TableHead columns={["Endpoint", "Mode", "URL", "Events", "State", "Created"]} />
            <tbody>
              {endpoints.map((e) => (
                <tr data-endpoint-id={e.endpoint_id} data-enabled={String(e.enabled)}>
                  <td>
                    <a href={`${HOME}/endpoints/${e.endpoint_id}`}>
                      <code>{e.endpoint_id}</code>
                    </a>
                    {e.description ? <div class="muted">{e.description}</div> : null}
                  </td>
                  <td>{e.mode}</td>
                  <td>
                    <code>{e.url}</code>
                  </td>
                  <td>{e.events.join(", ")}</td>
                  <td>
                    <StatusBadge status={e.enabled ? "enabled" : "disabled"} />
                    {e.disabled_reason === "failing" ? <div class="muted">after 5 days of failures</div> : null}
                    {e.enabled && e.failing_since ? <div class="muted">failing since {when(e.failing_since)}</div> : null}
                  </td>
                  <td>{when(e.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {manage ? (
        <details open={endpoints.length === 0}>
          <summary>Add an endpoint</summary>
          <form class="stack" method="post" action={HOME}>
            {csrfField(c)}
            <FormOnce />
            <label for="new-url">URL (HTTPS)</label>
            <input id="new-url" name="url" type="url" required placeholder="https://example.com/webhooks" />
            <label for="new-description">Description (optional)</label>
            <input id="new-description" name="description" maxlength={200} />
            <EventBoxes idPrefix="new-event" checked={["task.succeeded", "task.failed", "task.canceled"]} />
            <button type="submit">Add endpoint</button>
          </form>
        </details>
      ) : (
        <p class="muted">Your role ({member.role}) can see the webhooks; developers and owners manage them.</p>
      )}
      <DeliveryLog c={c} />
    </Layout>,
    status,
  );
}

async function endpointPage(c: Context<ConsoleEnv>, flash?: Flash, status: ContentfulStatusCode = 200) {
  const member = c.get("member");
  const e = await getEndpoint(c.env, tenantScope(member.tenant_id), c.req.param("id") as string);
  const manage = mayManage(c);
  const base = `${HOME}/endpoints/${e.endpoint_id}`;
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 16);
  return render(
    c,
    <Layout title={`Webhook endpoint ${e.endpoint_id}`} member={member} active="webhooks" flash={flash}>
      <p>
        <a href={HOME}>All webhooks</a>
      </p>
      <dl class="facts" data-endpoint-id={e.endpoint_id} data-enabled={String(e.enabled)}>
        <dt>URL</dt>
        <dd>
          <code>{e.url}</code>
        </dd>
        <dt>Events</dt>
        <dd>{e.events.join(", ")}</dd>
        <dt>State</dt>
        <dd>
          <StatusBadge status={e.enabled ? "enabled" : "disabled"} />
          {e.disabled_reason === "failing" ? " (every delivery failed for 5 days)" : ""}
          {e.failing_since ? ` · failing since ${when(e.failing_since)}` : ""}
        </dd>
        <dt>Secret last rotated</dt>
        <dd>{when(e.secret_rotated_at)}</dd>
        <dt>Previous secret signs until</dt>
        <dd>{when(e.previous_secret_valid_until)}</dd>
        <dt>Created</dt>
        <dd>{when(e.created_at)}</dd>
      </dl>
      {manage ? (
        <>
          <h2>Actions</h2>
          <div class="actions">
            {e.enabled ? (
              <>
                <PostButton c={c} action={`${base}/test`} kind="secondary">
                  Send test event
                </PostButton>
                <PostButton c={c} action={`${base}/disable`} kind="secondary">
                  Disable
                </PostButton>
              </>
            ) : (
              <PostButton c={c} action={`${base}/enable`} kind="secondary">
                Enable
              </PostButton>
            )}
            <RotateForm
              c={c}
              action={`${base}/rotate`}
              name="overlap"
              rowId={e.endpoint_id}
              label="Previous secret keeps signing for"
              title="How long the previous secret keeps signing"
              labels={OVERLAP_LABELS}
              selected="24h"
            />
            <PostButton c={c} action={`${base}/delete`} kind="danger" label={`Delete ${e.endpoint_id}`}>
              Delete
            </PostButton>
          </div>
          <form class="stack" method="post" action={`${base}/recover`}>
            {csrfField(c)}
            <label for="recover-since">Send again every delivery that did not succeed since (UTC, at most 7 days back)</label>
            <input id="recover-since" name="since" type="datetime-local" required value={yesterday} />
            <button type="submit" class="secondary" disabled={!e.enabled}>
              Recover
            </button>
          </form>
          <details>
            <summary>Edit</summary>
            <form class="stack" method="post" action={base}>
              {csrfField(c)}
              <label for="edit-url">URL</label>
              <input id="edit-url" name="url" type="url" required value={e.url} />
              <label for="edit-description">Description</label>
              <input id="edit-description" name="description" maxlength={200} value={e.description ?? ""} />
              <EventBoxes idPrefix="edit-event" checked={e.events} />
              <button type="submit">Save</button>
            </form>
          </details>
        </>
      ) : null}
      <DeliveryLog c={c} endpointId={e.endpoint_id} />
    </Layout>,
    status,
  );
}

async function deliveryPage(c: Context<ConsoleEnv>, flash?: Flash, status: ContentfulStatusCode = 200) {
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

interface NewSecret {
  kind: "created" | "rotated";
  endpoint_id: string;
  url: string;
  secret: string;
  previous_valid_until: string | null;
}

function SecretPage(props: { c: Context<ConsoleEnv>; shown: NewSecret | undefined }) {
  const { c, shown } = props;
  const member = c.get("member");
  if (!shown) {
    return (
      <Layout title="No new secret to show" member={member} active="webhooks">
        <p>
          An endpoint's secret is shown once, on the page that follows its form, and this one was shown already. If you did not
          keep it, rotate the endpoint's secret on <a href={HOME}>webhooks</a>.
        </p>
      </Layout>
    );
  }
  return (
    <Layout title={shown.kind === "created" ? "Endpoint added" : "Endpoint secret rotated"} member={member} active="webhooks">
      <SecretOnce id="new-webhook-secret" label={`Signing secret of ${shown.endpoint_id} (${shown.url})`} value={shown.secret} />
      {shown.kind === "rotated" ? (
        <p>
          {shown.previous_valid_until ? (
            <>
              Until <strong>{when(shown.previous_valid_until)}</strong> every message carries two signatures, so receivers holding
              either secret accept it.
            </>
          ) : (
            <>The previous secret stopped signing now.</>
          )}
        </p>
      ) : null}
      <p>
        Verify deliveries with any Standard Webhooks library, e.g. <code>new Webhook(secret).verify(body, headers)</code>.{" "}
        <a href={`${HOME}/endpoints/${shown.endpoint_id}`}>Back to the endpoint</a>
      </p>
      <CopyScript nonce={c.get("nonce")} />
    </Layout>
  );
}

/** `datetime-local` gives minutes without a zone: read as UTC. */
function postedSince(c: Context<ConsoleEnv>): string {
  const raw = formField(c, "since") ?? "";
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(raw) ? `${raw}:00Z` : raw;
}

export function register(app: Hono<ConsoleEnv>) {
  const manage = requireRole("webhooks:manage");
  const endpointPath = (c: Context<ConsoleEnv>) => `${HOME}/endpoints/${c.req.param("id")}`;

  app.get("/webhooks", requireMember, async (c) => webhooksPage(c, takeFlash(c)));
  app.get("/webhooks/created", requireMember, async (c) =>
    render(c, <SecretPage c={c} shown={await takeSecret<NewSecret>(c, SECRET_PATH)} />),
  );
  app.get("/webhooks/endpoints/:id", requireMember, async (c) => endpointPage(c, takeFlash(c)));
  app.get("/webhooks/deliveries/:id", requireMember, async (c) => deliveryPage(c, takeFlash(c)));

  app.post("/webhooks", manage, async (c) =>
    showingRefusals(c, webhooksPage, async () => {
      const events = postedEvents(c);
      if (!(await claimForm(c))) return c.redirect(SECRET_PATH, 303);
      const description = formField(c, "description")?.trim();
      const e = await createEndpoint(
        c.env,
        scopeOf(c),
        { url: formField(c, "url") ?? "", events, ...(description ? { description } : {}) },
        by(c),
      );
      await stashSecret(c, SECRET_PATH, {
        kind: "created",
        endpoint_id: e.endpoint_id,
        url: e.url,
        secret: e.secret,
        previous_valid_until: null,
      } satisfies NewSecret);
      return c.redirect(SECRET_PATH, 303);
    }),
  );

  app.post("/webhooks/endpoints/:id", manage, async (c) =>
    showingRefusals(c, endpointPage, async () => {
      const description = formField(c, "description")?.trim();
      await updateEndpoint(
        c.env,
        scopeOf(c),
        c.req.param("id"),
        { url: formField(c, "url") ?? "", events: postedEvents(c), description: description || null },
        by(c),
      );
      return redirectWithFlash(c, endpointPath(c), { kind: "ok", text: "Endpoint saved." });
    }),
  );

  for (const enabled of [true, false]) {
    app.post(`/webhooks/endpoints/:id/${enabled ? "enable" : "disable"}`, manage, async (c) =>
      showingRefusals(c, endpointPage, async () => {
        await updateEndpoint(c.env, scopeOf(c), c.req.param("id"), { enabled }, by(c));
        const text = enabled
          ? "Endpoint enabled: new events are delivered to it. Recover what it missed while disabled below."
          : "Endpoint disabled: nothing is delivered to it until it is enabled again.";
        return redirectWithFlash(c, endpointPath(c), { kind: "ok", text });
      }),
    );
  }

  app.post("/webhooks/endpoints/:id/test", manage, async (c) =>
    showingRefusals(c, endpointPage, async () => {
      const d = await sendTestEvent(c.env, scopeOf(c), c.req.param("id"), by(c));
      const a = d.attempts[d.attempts.length - 1];
      const outcome = d.status === "succeeded" ? "succeeded" : `failed (${a?.error ?? d.last_error ?? "no answer"})`;
      return redirectWithFlash(c, `${HOME}/deliveries/${d.delivery_id}`, {
        kind: d.status === "succeeded" ? "ok" : "error",
        text: `Test event sent: the attempt ${outcome}.`,
      });
    }),
  );

  app.post("/webhooks/endpoints/:id/rotate", manage, async (c) =>
    showingRefusals(c, endpointPage, async () => {
      const overlap = postedGrace(c, "overlap", "24h");
      if (!(await claimForm(c))) return c.redirect(SECRET_PATH, 303);
      const e = await rotateEndpointSecret(c.env, scopeOf(c), c.req.param("id"), GRACE_PERIODS[overlap] / 1000, by(c));
      await stashSecret(c, SECRET_PATH, {
        kind: "rotated",
        endpoint_id: e.endpoint_id,
        url: e.url,
        secret: e.secret,
        previous_valid_until: e.previous_secret_valid_until,
      } satisfies NewSecret);
      return c.redirect(SECRET_PATH, 303);
    }),
  );

  app.post("/webhooks/endpoints/:id/recover", manage, async (c) =>
    showingRefusals(c, endpointPage, async () => {
      const r = await recoverEndpoint(c.env, scopeOf(c), c.req.param("id"), postedSince(c), by(c));
      return redirectWithFlash(c, endpointPath(c), {
        kind: "ok",
        text:
          `${r.deliveries} deliveries since ${when(r.since)} are being sent again` +
          (r.skipped_pending > 0 ? `; ${r.skipped_pending} already waiting for a retry were left as they are` : "") +
          (r.has_more
            ? `; ${r.left_out} more ${r.limited_by === "per_call" ? "(recover again for them)" : "once the hour's budget allows"}`
            : "") +
          ".",
      });
    }),
  );

  app.post("/webhooks/endpoints/:id/delete", manage, async (c) =>
    showingRefusals(c, endpointPage, async () => {
      await deleteEndpoint(c.env, scopeOf(c), c.req.param("id"), by(c));
      return redirectWithFlash(c, HOME, { kind: "ok", text: `Endpoint ${c.req.param("id")} was deleted.` });
    }),
  );

  app.post("/webhooks/deliveries/:id/resend", manage, async (c) =>
    showingRefusals(c, deliveryPage, async () => {
      const d = await resendDelivery(c.env, scopeOf(c), c.req.param("id"), by(c));
      return redirectWithFlash(c, `${HOME}/deliveries/${d.delivery_id}`, {
        kind: d.status === "failed" || d.status === "pending" ? "error" : "ok",
        text: `Sent again: the delivery is ${d.status}.`,
      });
    }),
  );
}
