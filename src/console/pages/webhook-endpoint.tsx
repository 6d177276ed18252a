/**
 * One webhook endpoint's page: its settings, its forms (edit, test, rotate, recover, delete) and its deliveries.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { tenantScope } from "../../services/tasks";
import { getEndpoint } from "../../services/webhooks";
import type { ConsoleEnv } from "../context";
import { csrfField } from "../csrf";
import type { Flash } from "../flash";
import { Layout } from "../layout";
import { render } from "../render";
import { PostButton, RotateForm } from "../row-forms";
import { when } from "../secret-once";
import { EventBoxes, HOME, mayManage, OVERLAP_LABELS, StatusBadge } from "./webhook-common";
import { DeliveryLog } from "./webhook-deliveries";

export async function endpointPage(c: Context<ConsoleEnv>, flash?: Flash, status: ContentfulStatusCode = 200) {
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
