/**
 * /console/batches: the tenant's batches (both key modes), newest first, each with a progress bar,
 * its counts, its results file once it ended, and a cancel button while it runs. The listing and
 * the cancel are the REST API's own services (src/services/batches.ts).
 */
import type { Hono } from "hono";
import { ApiError } from "../../errors/api-error";
import type { BatchEnvelope } from "../../services/batches";
import { cancelBatch, listBatches } from "../../services/batches";
import { can } from "../../services/people";
import { tenantScope } from "../../services/tasks";
import type { ConsoleEnv } from "../context";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { Layout } from "../layout";
import { render } from "../render";
import { actorOf } from "../request-meta";
import { requireRole } from "../session";
import { TableHead } from "../table";
import { shortTime } from "./tasks";

const ENDED = new Set(["completed", "canceled"]);

function BatchRow(props: { b: BatchEnvelope; csrf: unknown; canCancel: boolean }) {
  const { b } = props;
  const c = b.counts;
  const ended = c.succeeded + c.failed + c.canceled;
  return (
    <tr data-batch-id={b.batch_id} data-status={b.status}>
      <td>
        <code>{b.batch_id.slice(0, 18)}…</code>
        <div class="muted">{b.operation}</div>
      </td>
      <td>
        <span class={`status status-${b.status}`}>{b.status}</span>
      </td>
      <td>
        <progress max={c.total} value={ended} aria-label={`${ended} of ${c.total} items ended`}>
          {ended}/{c.total}
        </progress>{" "}
        {ended}/{c.total}
      </td>
      <td data-field="counts">
        {c.succeeded} succeeded · {c.failed} failed · {c.canceled} canceled · {c.running} running · {c.queued} queued
      </td>
      <td>
        {b.billing.charged_credits}
        {b.max_credits ? <div class="muted">of at most {b.max_credits}</div> : null}
      </td>
      <td>{shortTime(b.created_at)}</td>
      <td>
        {b.output_file_url ? (
          <a href={b.output_file_url} download={`${b.batch_id}.results.jsonl`}>
            Download results
          </a>
        ) : null}
        {props.canCancel && !ENDED.has(b.status) && b.status !== "canceling" ? (
          <form class="inline" method="post" action={`/console/batches/${b.batch_id}/cancel`}>
            {props.csrf}
            <button type="submit" class="danger" aria-label={`Cancel ${b.batch_id}`}>
              Cancel
            </button>
          </form>
        ) : null}
      </td>
    </tr>
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/batches", requireRole("tasks:read"), async (c) => {
    const member = c.get("member");
    const cursor = c.req.query("cursor") || undefined;
    let page: Awaited<ReturnType<typeof listBatches>> | null = null;
    let error: string | null = null;
    try {
      page = await listBatches(c.env, tenantScope(member.tenant_id), { limit: 20, ...(cursor ? { cursor } : {}) });
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      error = e.message;
    }
    const flash: Flash | undefined = error ? { kind: "error", text: error } : takeFlash(c);
    const canCancel = can(member.role, "tasks:write");
    return render(
      c,
      <Layout title="Batches" member={member} active="batches" {...(flash ? { flash } : {})}>
        <p class="muted">
          Batches are made with <code>POST /v1/batches</code> (or <code>media-api batch run</code>); each item is a task of its
          own.
        </p>
        {page && page.data.length === 0 ? <p class="muted">No batches yet.</p> : null}
        {page && page.data.length > 0 ? (
          <div class="table-scroll">
            <table>
              <TableHead columns={["Batch", "Status", "Progress", "Items", "Credits", "Created"]} actions />
              <tbody>
                {page.data.map((b) => (
                  <BatchRow b={b} csrf={csrfField(c)} canCancel={canCancel} />
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        <nav class="pager" aria-label="Pages">
          {cursor && <a href="/console/batches">Newest</a>}
          {page?.next_cursor && (
            <a href={`/console/batches?cursor=${encodeURIComponent(page.next_cursor)}`} rel="next">
              Next
            </a>
          )}
        </nav>
      </Layout>,
      error ? 422 : 200,
    );
  });

  app.post("/batches/:id/cancel", requireRole("tasks:write"), async (c) => {
    const id = c.req.param("id");
    try {
      await cancelBatch(c.env, id, tenantScope(c.get("member").tenant_id), actorOf(c));
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return redirectWithFlash(c, "/console/batches", { kind: "error", text: e.message });
    }
    return redirectWithFlash(c, "/console/batches", {
      kind: "ok",
      text: "Batch canceled: its queued items will not start; running tasks are being stopped.",
    });
  });
}
