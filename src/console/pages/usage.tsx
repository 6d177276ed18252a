/**
 * /console/usage: what the tenant's settled work used, per UTC day and model, over a window of
 * days (the last 30 by default), with totals; /console/usage.csv gives the same rows as a file.
 * Live and test keys' usage are apart, as in `GET /v1/usage`.
 */
import type { Hono } from "hono";
import { raw } from "hono/html";
import { ApiError } from "../../errors/api-error";
import {
  KEY_MODES,
  USAGE_COUNTERS,
  type UsageCounter,
  type UsageFigures,
  type UsageRow,
  usageTotals,
} from "../../services/accounts";
import type { ConsoleEnv } from "../context";
import { DateField, SelectField } from "../filter-fields";
import { type Flash, takeFlash } from "../flash";
import { Layout } from "../layout";
import { render } from "../render";
import { requireRole } from "../session";
import { TableHead } from "../table";
import { CONSOLE_TASK_STYLE } from "../task-style";
import { usageByDayAndModel, usageCsv, usageWindow } from "../usage-report";

const COUNTER_LABELS: Record<UsageCounter, string> = {
  input_tokens: "Input tokens",
  output_tokens: "Output tokens",
  cache_read_tokens: "Cache read tokens",
  cache_creation_tokens: "Cache write tokens",
  reasoning_tokens: "Reasoning tokens",
  image_count: "Images",
  image_pixels: "Image pixels",
  video_seconds: "Video s",
  input_video_seconds: "Input video s",
  output_video_seconds: "Output video s",
  audio_seconds: "Audio s",
  characters: "Characters",
};

const fmtNumber = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 3 });

/** A row's figures (a day and model's, or the totals'): credits, counts, then the counters shown. */
function FigureCells({ figures, counters }: { figures: UsageFigures; counters: readonly UsageCounter[] }) {
  return (
    <>
      <td class="num">{figures.credits}</td>
      <td class="num">{figures.tasks}</td>
      <td class="num">{figures.completions}</td>
      <td class="num">{figures.failed}</td>
      <td class="num">{figures.canceled}</td>
      {counters.map((k) => (
        <td class="num">{fmtNumber(figures[k])}</td>
      ))}
    </>
  );
}

function UsageTable({ rows }: { rows: UsageRow[] }) {
  // Only the counters something in the window used: a table of zeros says nothing.
  const counters = USAGE_COUNTERS.filter((k) => rows.some((r) => r[k] > 0));
  const totals = usageTotals(rows);
  return (
    <div class="table-scroll">
      <table class="usage">
        <TableHead
          columns={[
            "Day (UTC)",
            "Model",
            "Credits",
            "Tasks",
            "Completions",
            "Failed",
            "Canceled",
            ...counters.map((k) => COUNTER_LABELS[k]),
          ]}
        />
        <tbody>
          {rows.map((r) => (
            <tr>
              <td>{r.key}</td>
              <td>{r.subkey}</td>
              <FigureCells figures={r} counters={counters} />
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colspan={2}>
              Total
            </th>
            <FigureCells figures={totals} counters={counters} />
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/usage", requireRole("usage:read"), async (c) => {
    const member = c.get("member");
    const q = c.req.query();
    let window: ReturnType<typeof usageWindow>;
    let error: string | null = null;
    try {
      window = usageWindow(q, Date.now());
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      error = e.message;
      window = usageWindow({ mode: q.mode }, Date.now());
    }
    const rows = error ? [] : await usageByDayAndModel(c.env, member.tenant_id, window);
    const csv = `/console/usage.csv?${new URLSearchParams({ from: window.from, to: window.to, mode: window.mode })}`;
    const flash: Flash | undefined = error ? { kind: "error", text: error } : takeFlash(c);
    return render(
      c,
      <Layout title="Usage" member={member} active="usage" {...(flash ? { flash } : {})}>
        <style>{raw(CONSOLE_TASK_STYLE)}</style>
        <p>
          Credits and counters of the tasks and chat completions settled each day (UTC), per model: a task counts on the day it
          ended, a completion when it was charged.
        </p>
        <form method="get" action="/console/usage" class="filters" aria-label="Usage window">
          <DateField label="From" name="from" value={error ? (q.from ?? "") : window.from} required />
          <DateField label="To (included)" name="to" value={error ? (q.to ?? "") : window.to} required />
          <SelectField label="Keys" name="mode" options={KEY_MODES} selected={window.mode} />
          <button type="submit">Show</button>
          {!error && (
            <a href={csv} download class="button">
              Download CSV
            </a>
          )}
        </form>
        {!error && rows.length === 0 && (
          <p class="empty">
            Nothing was settled with {window.mode} keys from {window.from} to {window.to}.
          </p>
        )}
        {rows.length > 0 && <UsageTable rows={rows} />}
      </Layout>,
      error ? 422 : 200,
    );
  });

  // The same rows as a file: RFC 4180, a header row, one record per day and model.
  app.get("/usage.csv", requireRole("usage:read"), async (c) => {
    const window = usageWindow(c.req.query(), Date.now());
    const rows = await usageByDayAndModel(c.env, c.get("member").tenant_id, window);
    return c.body(usageCsv(rows), 200, {
      "Content-Type": "text/csv; charset=utf-8; header=present",
      "Content-Disposition": `attachment; filename="usage-${window.mode}-${window.from}-to-${window.to}.csv"`,
      "Cache-Control": "no-store",
    });
  });
}
