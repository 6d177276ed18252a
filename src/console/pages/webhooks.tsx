/**
 * Webhooks: the tenant's endpoints and every delivery made to its systems (endpoints and task
 * callbacks). Every member sees them (never a secret); developers and owners (`webhooks:manage`)
 * add an endpoint (its secret shown once), edit its URL and events, send it a test event,
 * disable and enable it, rotate its secret with an overlap, recover what it missed and delete it,
 * and resend any delivery. Each action calls src/services/webhooks.ts, as the REST routes do.
 */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { GRACE_PERIODS } from "../../services/accounts";
import { tenantScope } from "../../services/tasks";
import {
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  recoverEndpoint,
  resendDelivery,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
} from "../../services/webhooks";
import type { ConsoleEnv } from "../context";
import { CopyId } from "../copy-id";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { formField } from "../form-body";
import { claimForm, FormOnce } from "../form-once";
import { Layout } from "../layout";
import { showingRefusals } from "../refusal";
import { render } from "../render";
import { postedGrace } from "../row-forms";
import { stashSecret, takeSecret, when } from "../secret-once";
import { requireMember, requireRole } from "../session";
import { TableHead } from "../table";
import { by, EventBoxes, HOME, mayManage, postedEvents, postedSince, SECRET_PATH, StatusBadge, scopeOf } from "./webhook-common";
import { DeliveryLog, deliveryPage } from "./webhook-deliveries";
import { endpointPage } from "./webhook-endpoint";
import { type NewSecret, SecretPage } from "./webhook-secret";

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
                    <CopyId value={e.endpoint_id} href={`${HOME}/endpoints/${e.endpoint_id}`} />
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
