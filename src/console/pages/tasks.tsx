/**
 * /console/tasks: the tenant's tasks, newest first, with the filters of `GET /v1/tasks` as a GET
 * form (so a filtered listing is a link) and cursor paging. The listing is the REST listing's own
 * service (src/tasks/listing.ts); a bad filter shows its message above the form.
 */
import type { Hono } from "hono";
import { raw } from "hono/html";
import { ApiError } from "../../errors/api-error";
import { CAPABILITIES, type Capability } from "../../services/catalog";
import { can } from "../../services/people";
import type { TaskListPage, TaskListQuery } from "../../services/tasks";
import { listTasks, TASK_STATUSES, type TaskStatus, tenantScope } from "../../services/tasks";
import type { ConsoleEnv } from "../context";
import { DateField, SelectField } from "../filter-fields";
import { type Flash, takeFlash } from "../flash";
import { Layout } from "../layout";
import { render } from "../render";
import { requireRole } from "../session";
import { TableHead } from "../table";
import { TaskLink } from "../task-id";
import { CONSOLE_TASK_STYLE } from "../task-style";

const PAGE_SIZES = [10, 20, 50, 100] as const;
const DEFAULT_PAGE_SIZE = 20;

/** The form's fields as the query gave them ("" for absent), for echoing back into the form. */
interface Filters {
  status: string;
  capability: string;
  created_after: string;
  created_before: string;
  limit: string;
  cursor: string;
}

function filtersOf(q: Record<string, string>): Filters {
  const f = (k: string) => (q[k] ?? "").trim();
  return {
    status: f("status"),
    capability: f("capability"),
    created_after: f("created_after"),
    created_before: f("created_before"),
    limit: f("limit"),
    cursor: f("cursor"),
  };
}

/** The service's query; an unknown status, capability or page size is refused as the API refuses it. */
function queryOf(f: Filters): TaskListQuery {
  const bad = (param: string, message: string) => new ApiError("invalid_request", message, { param: `/${param}` });
  if (f.status && !(TASK_STATUSES as readonly string[]).includes(f.status))
    throw bad("status", `status must be one of ${TASK_STATUSES.join(", ")}.`);
  if (f.capability && !(CAPABILITIES as readonly string[]).includes(f.capability))
    throw bad("capability", `capability '${f.capability}' is not a capability of this API.`);
  const limit = f.limit ? Number(f.limit) : DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw bad("limit", "The page size must be a whole number from 1 to 100.");
  return {
    limit,
    ...(f.status ? { status: f.status as TaskStatus } : {}),
    ...(f.capability ? { capability: f.capability as Capability } : {}),
    ...(f.created_after ? { created_after: f.created_after } : {}),
    ...(f.created_before ? { created_before: f.created_before } : {}),
    ...(f.cursor ? { cursor: f.cursor } : {}),
  };
}

/** The listing's address with these filters (empty ones left out). */
function listingHref(f: Filters, cursor?: string): string {
  const params = new URLSearchParams();
  for (const k of ["status", "capability", "created_after", "created_before", "limit"] as const) if (f[k]) params.set(k, f[k]);
  if (cursor) params.set("cursor", cursor);
  const qs = params.toString();
  return `/console/tasks${qs ? `?${qs}` : ""}`;
}

export const shortTime = (iso: string | null | undefined) => (iso ? `${iso.slice(0, 19).replace("T", " ")} UTC` : "—");

function FilterForm({ f }: { f: Filters }) {
  return (
    <form method="get" action="/console/tasks" class="filters" aria-label="Filter tasks">
      <SelectField label="Status" name="status" options={TASK_STATUSES} selected={f.status} any />
      <SelectField label="Capability" name="capability" options={CAPABILITIES} selected={f.capability} any />
      <DateField label="Created after" name="created_after" value={f.created_after} />
      <DateField label="Created before" name="created_before" value={f.created_before} />
      <SelectField label="Page size" name="limit" options={PAGE_SIZES} selected={f.limit || String(DEFAULT_PAGE_SIZE)} />
      <button type="submit">Filter</button>
      <a href="/console/tasks">Clear</a>
    </form>
  );
}

function TaskTable({ page }: { page: TaskListPage }) {
  if (page.data.length === 0) {
    return (
      <p class="empty">
        No tasks here. Tasks appear when a key of this tenant creates them (for example <code>POST /v1/images/generations</code>).
      </p>
    );
  }
  return (
    <div class="table-scroll">
      <table class="tasks">
        <TableHead columns={["Task", "Status", "Progress", "Capability", "Model", "Credits", "Created"]} />
        <tbody>
          {page.data.map((t) => (
            <tr>
              <td>
                <TaskLink id={t.task_id} />
              </td>
              <td>
                <span class={`status status-${t.status}`}>{t.status}</span>
              </td>
              <td>{t.progress.percent}%</td>
              <td>{t.capability}</td>
              <td>{t.resolved_model}</td>
              <td class="num">{t.billing.net_charged_credits}</td>
              <td>{shortTime(t.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/tasks", requireRole("tasks:read"), async (c) => {
    const f = filtersOf(c.req.query());
    let page: TaskListPage | null = null;
    let error: string | null = null;
    try {
      page = await listTasks(c.env, tenantScope(c.get("member").tenant_id), queryOf(f));
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      error = e.message;
    }
    const flash: Flash | undefined = error ? { kind: "error", text: error } : takeFlash(c);
    return render(
      c,
      <Layout title="Tasks" member={c.get("member")} active="tasks" {...(flash ? { flash } : {})}>
        <style>{raw(CONSOLE_TASK_STYLE)}</style>
        {can(c.get("member").role, "tasks:write") ? (
          <p>
            <a href="/console/tasks/new">New task</a> <span class="muted">run one from the console</span>
          </p>
        ) : null}
        <FilterForm f={f} />
        {page && <TaskTable page={page} />}
        <nav class="pager" aria-label="Pages">
          {f.cursor && <a href={listingHref(f)}>Newest</a>}
          {page?.next_cursor && (
            <a href={listingHref(f, page.next_cursor)} rel="next">
              Next
            </a>
          )}
        </nav>
      </Layout>,
      error ? 422 : 200,
    );
  });
}
