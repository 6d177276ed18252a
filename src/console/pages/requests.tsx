/**
 * /console/requests (`logs:read`): the tenant's request log, newest first, both modes (a console
 * session sees the whole tenant), with the filters of `GET /v1/requests` as a GET form (so a
 * filtered listing is a link) and the log's cursor. Each row leads to the request's page
 * (src/console/pages/request-detail.tsx). A bad filter shows its message above the form.
 */
import type { Hono } from "hono";
import { raw } from "hono/html";
import { ApiError } from "../../errors/api-error";
import { listRequests, type RequestEntry } from "../../services/request-log";
import { tenantScope } from "../../services/tasks";
import type { ConsoleEnv } from "../context";
import { DateTimeField, SelectField, TextField } from "../filter-fields";
import { Layout } from "../layout";
import { render } from "../render";
import {
  PAGE_SIZES,
  type RequestFilters,
  requestFiltersOf,
  requestQueryOf,
  requestsHref,
  STATUS_CLASSES,
} from "../request-filters";
import { REQUEST_STYLE } from "../request-style";
import { requireRole } from "../session";
import { TableHead } from "../table";
import { TaskLink } from "../task-id";
import { CONSOLE_TASK_STYLE } from "../task-style";
import { shortTime } from "./tasks";

type Page = Awaited<ReturnType<typeof listRequests>>;

/** The class a status is coloured by (`code-4xx`). */
export const statusClass = (status: number) => `code-${Math.floor(status / 100)}xx`;

export function requestHref(id: string): string {
  return `/console/requests/${encodeURIComponent(id)}`;
}

function FilterForm({ f }: { f: RequestFilters }) {
  return (
    <form method="get" action="/console/requests" class="filters" aria-label="Filter requests">
      <SelectField label="Status" name="status" options={STATUS_CLASSES} selected={f.status} any />
      <TextField label="Route" name="route" value={f.route} placeholder="POST /v1/images/generations" />
      <TextField label="Key" name="key_id" value={f.key_id} />
      <TextField label="Model" name="model" value={f.model} />
      <TextField label="Task" name="task_id" value={f.task_id} />
      <TextField label="Error code" name="error_code" value={f.error_code} />
      <DateTimeField label="Since (UTC)" name="since" value={f.since} />
      <DateTimeField label="Until (UTC)" name="until" value={f.until} />
      <SelectField label="Page size" name="limit" options={PAGE_SIZES} selected={f.limit || String(PAGE_SIZES[0])} />
      <button type="submit">Filter</button>
      <a href="/console/requests">Clear</a>
    </form>
  );
}

function RequestRow({ r }: { r: RequestEntry }) {
  return (
    <tr data-request-id={r.request_id}>
      <td>
        <a class="mono" href={requestHref(r.request_id)}>
          {r.request_id}
        </a>
      </td>
      <td>{shortTime(r.created_at)}</td>
      <td>
        <code>{r.route}</code>
      </td>
      <td class={statusClass(r.status)}>{r.status}</td>
      <td>{r.error_code ? <code>{r.error_code}</code> : ""}</td>
      <td>{r.model ?? ""}</td>
      <td>{r.task_id ? <TaskLink id={r.task_id} /> : ""}</td>
      <td>
        <code>{r.key_id}</code>
      </td>
      <td>
        {r.mode} · {r.door}
        {r.replay_of ? " · run again" : ""}
      </td>
      <td class="num">{r.duration_ms} ms</td>
      <td class="num">{r.credits?.charged ?? ""}</td>
    </tr>
  );
}

function RequestTable({ page }: { page: Page }) {
  if (page.data.length === 0) {
    return <p class="empty">No requests match. Every call a key of this tenant makes, and every task made here, appears.</p>;
  }
  return (
    <div class="table-scroll">
      <table class="requests">
        <TableHead
          columns={[
            "Request",
            "Time",
            "Route",
            "Status",
            "Error",
            "Model",
            "Task",
            "Key",
            "Mode · door",
            { label: "Duration", num: true },
            { label: "Credits", num: true },
          ]}
        />
        <tbody>
          {page.data.map((r) => (
            <RequestRow r={r} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/requests", requireRole("logs:read"), async (c) => {
    const f = requestFiltersOf(c.req.query());
    let page: Page | null = null;
    let error: string | null = null;
    try {
      page = await listRequests(c.env, tenantScope(c.get("member").tenant_id), requestQueryOf(f));
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      error = e.message;
    }
    return render(
      c,
      <Layout
        title="Requests"
        member={c.get("member")}
        active="requests"
        {...(error ? { flash: { kind: "error", text: error } } : {})}
      >
        <style>{raw(CONSOLE_TASK_STYLE + REQUEST_STYLE)}</style>
        <FilterForm f={f} />
        {page && <RequestTable page={page} />}
        <nav class="pager" aria-label="Pages">
          {f.cursor && <a href={requestsHref(f)}>Newest</a>}
          {page?.next_cursor && (
            <a href={requestsHref(f, page.next_cursor)} rel="next">
              Next page
            </a>
          )}
        </nav>
      </Layout>,
      error ? 422 : 200,
    );
  });
}
