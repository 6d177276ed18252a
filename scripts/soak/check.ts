/**
 * The soak's checker: judges a recorded history (history.ts) and nothing else. Run alone:
 *   npx tsx scripts/soak/check.ts <history.jsonl>
 * It prints its figures, then every failed property, and exits 1 when one failed. Properties:
 *   terminal     every task that got a 202 (or was listed) ended succeeded, failed or canceled,
 *                and a terminal status never changed afterwards in any read
 *   idempotency  one Idempotency-Key, one task: every 202 for a key carries the same task id; a
 *                key reused with another body got 409 idempotency_conflict
 *   upstream     no task was accepted twice by an upstream (fal submissions answered 2xx, per task;
 *                a submission refused with 429/5xx and retried is one run), and none ran for a task
 *                that does not exist
 *   ledger       per tenant: totals equal the figures recomputed from the rows, balance = granted −
 *                captured − reserved ≥ 0, granted = what the soak granted, captured = the tasks'
 *                net charges (plus chat, for tenants that chat), no open reservation of any task
 *                (all are terminal), chat holds open only for calls cut by a crash
 *   log          the request log agrees with the bill: every settled ledger row names its request,
 *                every request the ledger charged is logged with exactly that charge, and no
 *                logged charge is missing from the ledger (check-log.ts)
 *   events       every terminal task of a tenant with a webhook endpoint: its event arrived, signed, one webhook-id
 *   callbacks    every callback that was due (terminal task, receiver that answers 2xx on a retry
 *                within the run) was delivered; every delivery of a task had one webhook-id (and no
 *                two tasks shared one), carried the final status, and verified when signed; 410 stopped delivery
 *   errors       no 5xx but those the spec's error table lists (an unexplained 500 internal_error is
 *                a failure), every error's status is its code's status, no connection failure
 *                outside the crash windows, streams end with [DONE]
 *   isolation    another tenant's task reads 404; a listing shows only the caller's tasks
 *   health       fal's outage shows on GET /v1/status as an incident that started during it and
 *                ended after it, and while fal's circuit was open only probes went to it
 *   coverage     the run did what it is meant to: two crashes with restarts, 402s, replays, provider
 *                faults, every receiver kind
 */
import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import Big from "big.js";
import { ERROR_CODES } from "../../src/errors/codes.ts";
import { checkLogAgainstLedger } from "./check-log.ts";
import type {
  BatchRecord,
  CallbackRecord,
  EventRecord,
  FileBatchRecord,
  HistoryRecord,
  LedgerRecord,
  LedgerRowsRecord,
  MetaRecord,
  OutageRecord,
  RequestLogRecord,
  RequestRecord,
  ServerRecord,
  StateRecord,
  StatusRecord,
  TaskRecord,
  UpstreamRecord,
} from "./history.ts";
import { readHistory } from "./history.ts";

const TERMINAL = new Set(["succeeded", "failed", "canceled"]);
const specPath = new URL("../../../shared/spec/interface-spec.md", import.meta.url).pathname;

/** The spec's error table (code → HTTP status); the code's own table when the spec is not beside the checkout. */
export function errorTable(): { source: string; status: Map<string, number> } {
  if (existsSync(specPath)) {
    const rows = [...readFileSync(specPath, "utf8").matchAll(/^\| ([a-z_]+) \| (\d{3}) \| (yes|no) \|/gm)];
    if (rows.length > 0) return { source: "spec error table", status: new Map(rows.map((m) => [m[1] as string, Number(m[2])])) };
  }
  return {
    source: "src/errors/codes.ts",
    status: new Map(Object.entries(ERROR_CODES).map(([code, info]) => [code, info.status])),
  };
}

export interface CheckResult {
  ok: boolean;
  failures: string[];
  lines: string[];
  summary: string[];
}

const pct = (n: number, d: number) => (d === 0 ? "0%" : `${((100 * n) / d).toFixed(1)}%`);
const count = <T>(xs: T[], key: (x: T) => string) => {
  const m = new Map<string, number>();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => b[1] - a[1]);
};
const fmtCounts = (entries: [string, number][]) => entries.map(([k, v]) => `${k} ${v}`).join(", ");
const big = (s: string | null | undefined) => new Big(s ?? "0");

export function check(history: HistoryRecord[]): CheckResult {
  const failures: string[] = [];
  const lines: string[] = [];
  const fail = (area: string, message: string) => failures.push(`[${area}] ${message}`);
  /** At most `n` examples per kind of failure, then a count. */
  const failSome = (area: string, what: string, items: string[], n = 5) => {
    if (items.length === 0) return;
    fail(area, `${what}: ${items.length}${items.length > n ? ` (first ${n})` : ""}: ${items.slice(0, n).join("; ")}`);
  };

  const meta = history.find((r): r is MetaRecord => r.type === "meta");
  if (!meta) return { ok: false, failures: ["[history] no meta record: not a soak history"], lines, summary: [] };
  const requests = history.filter((r): r is RequestRecord => r.type === "request");
  const servers = history.filter((r): r is ServerRecord => r.type === "server");
  const callbacks = history.filter((r): r is CallbackRecord => r.type === "callback");
  const events = history.filter((r): r is EventRecord => r.type === "event");
  const upstream = history.filter((r): r is UpstreamRecord => r.type === "upstream");
  const tasks = history.filter((r): r is TaskRecord => r.type === "task");
  const ledgers = history.filter((r): r is LedgerRecord => r.type === "ledger");
  const states = history.filter((r): r is StateRecord => r.type === "state");
  const traffic = requests.filter((r) => !r.op.startsWith("drain_"));
  const taskById = new Map(tasks.map((t) => [t.task_id, t]));
  const tenantOfTask = new Map(tasks.map((t) => [t.task_id, t.tenant]));

  // ------------------------------------------------------------------ the run
  const kills = servers.filter((s) => s.event === "kill");
  const ups = servers.filter((s) => s.event === "up");
  /** [kill, the next up]: the server was down (and requests in flight at the kill died). */
  const outages = kills.map((k) => ({ from: k.at, to: ups.find((u) => u.at > k.at)?.at ?? Number.POSITIVE_INFINITY }));
  const first = Math.min(...traffic.map((r) => r.at));
  const lastEnd = Math.max(...traffic.map((r) => r.end));
  const span = (lastEnd - first) / 1000;
  lines.push(
    `run: ${meta.traffic_seconds} s of traffic asked, ${span.toFixed(0)} s of client requests; ${meta.tenants.length} tenants; ${kills.length} crashes (SIGKILL of wrangler + workerd), ${ups.length - 1} restarts; downtime ${outages
      .map((o) => `${((o.to - o.from) / 1000).toFixed(1)} s`)
      .join(", ")}`,
  );
  lines.push(
    `requests: ${requests.length} (${traffic.length} during traffic, ${(traffic.length / Math.max(1, span)).toFixed(1)}/s); by op: ${fmtCounts(count(traffic, (r) => r.op))}`,
  );
  lines.push(`answers: ${fmtCounts(count(requests, (r) => (r.status === null ? "no answer" : String(r.status))))}`);

  // ------------------------------------------------------------------ errors
  const table = errorTable();
  const allowed5xx = new Map([...table.status].filter(([code, status]) => status >= 500 && code !== "internal_error"));
  const fiveXX = requests.filter((r) => r.status !== null && r.status >= 500);
  // The one injected 500: `drill_crash_after: reserve` crashes the task object mid-admission on
  // purpose, and the crash tests pin its answer (500 internal_error, retryable; the retry with the
  // same key is admitted). Explained only as that: once per key, and the key then got its 202.
  const drilled = fiveXX.filter(
    (r) =>
      r.status === 500 &&
      r.code === "internal_error" &&
      r.recipe === "sbx_drill_reserve" &&
      r.op === "create" &&
      fiveXX.filter((x) => x.idem_key === r.idem_key && x.tenant === r.tenant && x.code === "internal_error").length === 1 &&
      requests.some((x) => x.idem_key === r.idem_key && x.tenant === r.tenant && x.status === 202 && x.at > r.at),
  );
  const unexplained = fiveXX.filter((r) => !drilled.includes(r) && (!r.code || allowed5xx.get(r.code) !== r.status));
  lines.push(
    `5xx: ${fiveXX.length} (${fmtCounts(count(fiveXX, (r) => `${r.status} ${r.code ?? "no code"}`)) || "none"}); allowed by the ${table.source}: ${[
      ...allowed5xx,
    ]
      .map(([c, s]) => `${s} ${c}`)
      .join(", ")}; ${drilled.length} injected by drill_crash_after=reserve (then admitted on retry)`,
  );
  failSome(
    "errors",
    "5xx the spec does not allow",
    unexplained.map(
      (r) => `${r.method} ${r.path} → ${r.status} ${r.code ?? "(no error code)"} at ${new Date(r.at).toISOString()}`,
    ),
  );
  const mismatched = requests.filter(
    (r) => r.status !== null && r.status >= 400 && r.code && table.status.has(r.code) && table.status.get(r.code) !== r.status,
  );
  failSome(
    "errors",
    "errors whose HTTP status is not their code's",
    mismatched.map((r) => `${r.method} ${r.path} → ${r.status} ${r.code}`),
  );
  const unknownCodes = requests.filter((r) => r.status !== null && r.status >= 400 && r.status !== 416 && !r.code);
  failSome(
    "errors",
    "error answers without an error envelope",
    unknownCodes.map((r) => `${r.method} ${r.path} → ${r.status}`),
  );
  const netErrors = requests.filter((r) => r.status === null);
  const inOutage = (r: RequestRecord) => outages.some((o) => r.at <= o.to && r.end >= o.from);
  const strayNet = netErrors.filter((r) => !inOutage(r));
  lines.push(
    `connection failures: ${netErrors.length} (${netErrors.length - strayNet.length} within the crash windows, ${strayNet.length} outside)`,
  );
  failSome(
    "errors",
    "connection failures outside the crash windows",
    strayNet.map((r) => `${r.method} ${r.path} at ${new Date(r.at).toISOString()}: ${r.net_error}`),
  );
  const streams = requests.filter((r) => r.op === "chat_stream" && r.status === 200);
  const unfinished = streams.filter((r) => r.stream_done === false);
  lines.push(
    `chat: ${requests.filter((r) => r.op === "chat").length} whole, ${requests.filter((r) => r.op === "chat_stream").length} streamed (${streams.length} streams answered 200, ${unfinished.length} without [DONE])`,
  );
  failSome(
    "errors",
    "streams answered 200 that did not end with data: [DONE]",
    unfinished.map((r) => `${r.path} at ${new Date(r.at).toISOString()}`),
  );

  // ------------------------------------------------------------------ idempotency
  const creates = requests.filter((r) => r.op === "create" || r.op === "replay");
  const byKey = new Map<string, RequestRecord[]>();
  for (const r of creates) {
    if (!r.idem_key) continue;
    const k = `${r.tenant}/${r.idem_key}`;
    byKey.set(k, [...(byKey.get(k) ?? []), r]);
  }
  const splitKeys: string[] = [];
  for (const [k, rs] of byKey) {
    const ids = new Set(rs.filter((r) => r.status === 202).map((r) => r.task_id));
    if (ids.size > 1) splitKeys.push(`${k} → ${[...ids].join(", ")}`);
  }
  failSome("idempotency", "Idempotency-Keys that answered more than one task", splitKeys);
  const keyOfTask = new Map<string, string>();
  const sharedTasks: string[] = [];
  for (const [k, rs] of byKey)
    for (const r of rs.filter((x) => x.status === 202 && x.task_id)) {
      const seen = keyOfTask.get(r.task_id as string);
      if (seen && seen !== k) sharedTasks.push(`${r.task_id} for ${seen} and ${k}`);
      keyOfTask.set(r.task_id as string, k);
    }
  failSome("idempotency", "tasks answered for two different keys", [...new Set(sharedTasks)]);
  const replays = requests.filter((r) => r.op === "replay");
  const replayed = replays.filter((r) => r.status === 202);
  const createRetries = requests.filter((r) => r.op === "create").length - byKey.size;
  const keysAfterNetError = [...byKey.values()].filter(
    (rs) => rs.some((r) => r.status === null) && rs.some((r) => r.status === 202),
  );
  lines.push(
    `idempotency: ${byKey.size} keys, ${createRetries} create retries (${keysAfterNetError.length} keys answered 202 after a connection failure), ${replays.length} replays (${replayed.length} answered 202 with the original task), ${splitKeys.length} keys with two tasks`,
  );
  const conflicts = requests.filter((r) => r.op === "conflict" && r.status !== null && r.status !== 429);
  const badConflicts = conflicts.filter((r) => r.status !== 409 || r.code !== "idempotency_conflict");
  failSome(
    "idempotency",
    "a key reused with another body not answered 409 idempotency_conflict",
    badConflicts.map((r) => `${r.idem_key} → ${r.status} ${r.code ?? ""}`),
  );
  lines.push(
    `idempotency conflicts: ${conflicts.length} sent, ${conflicts.length - badConflicts.length} answered 409 idempotency_conflict`,
  );

  // ------------------------------------------------------------------ terminal
  const accepted = new Set(requests.filter((r) => r.status === 202 && r.task_id).map((r) => r.task_id as string));
  const lastDrainRead = new Map<string, RequestRecord>();
  for (const r of requests.filter((x) => x.op === "drain_read" && x.status === 200 && x.task_id))
    lastDrainRead.set(r.task_id as string, r);
  const finalStatus = (id: string) => taskById.get(id)?.status ?? lastDrainRead.get(id)?.task_status ?? null;
  const notTerminal = [...new Set([...accepted, ...taskById.keys()])].filter((id) => !TERMINAL.has(finalStatus(id) ?? ""));
  // A submission whose answer a crash took may have been accepted: the task waits (30 min) for
  // the upstream's webhook to name the job rather than submit again and risk running it twice.
  // When the upstream in fact refused it (a 4xx/5xx the service never read), the task is still
  // waiting at the end of the run: correct, and explained here rather than failed.
  const submitsOf = new Map<string, UpstreamRecord[]>();
  for (const u of upstream.filter((x) => x.kind === "submit" && x.task_id))
    submitsOf.set(u.task_id as string, [...(submitsOf.get(u.task_id as string) ?? []), u]);
  // The same when the answer reached the service's socket but a SIGKILL came before it was
  // written down (within a second of it): the service never learned it either. The proxy stamps
  // a request when the soak's own event loop gets to it, which may be after the kill (listing the
  // processes to kill blocks that loop): one stamped between the kill and the next start was
  // sent by the killed process, as no other was running to send it.
  const unreadWindows = kills.map((k) => ({
    from: k.at - 1000,
    to: servers.find((x) => x.event === "start" && x.at > k.at)?.at ?? Number.POSITIVE_INFINITY,
  }));
  // And when the crash came after the service wrote down that it was submitting (the task says
  // it waits for the upstream to report an interrupted submission) but before the upstream read
  // the request: no upstream record at all, and a kill after the task was created.
  const createdAt = new Map<string, number>();
  for (const r of requests.filter((x) => x.status === 202 && x.task_id))
    if (!createdAt.has(r.task_id as string)) createdAt.set(r.task_id as string, r.at);
  const interrupted = (id: string) =>
    /interrupted submission/.test(taskById.get(id)?.progress_message ?? "") &&
    kills.some((k) => k.at >= (createdAt.get(id) ?? Number.POSITIVE_INFINITY));
  const inDoubt = new Set(
    notTerminal.filter((id) => {
      const subs = submitsOf.get(id) ?? [];
      const last = subs[subs.length - 1];
      if (!last) return interrupted(id);
      const unread = !!last.answer_lost || unreadWindows.some((w) => last.at >= w.from && last.at < w.to);
      return unread && subs.every((u) => u.status === null || u.status >= 300);
    }),
  );
  failSome(
    "terminal",
    "tasks not terminal after the drain",
    notTerminal
      .filter((id) => !inDoubt.has(id))
      .map((id) => `${id} (${finalStatus(id) ?? "never read"}, ${taskById.get(id)?.recipe ?? "?"})`),
  );
  if (inDoubt.size > 0)
    lines.push(
      `  waiting for the upstream's webhook after a crash took a submission (refused, or never read) or its answer: ${[...inDoubt].join(", ")}`,
    );
  const unlisted = [...accepted].filter((id) => !taskById.has(id));
  failSome("terminal", "tasks answered 202 but missing from the final listing", unlisted);
  lines.push(
    `tasks: ${accepted.size} answered 202, ${tasks.length} in the final listings; ${pct(accepted.size - notTerminal.filter((id) => accepted.has(id)).length, accepted.size)} terminal; ${fmtCounts(count(tasks, (t) => t.status))}`,
  );
  lines.push(`  by provider: ${fmtCounts(count(tasks, (t) => `${t.provider ?? "?"}${t.mode === "test" ? " (test key)" : ""}`))}`);
  lines.push(
    `  failures by code: ${
      fmtCounts(
        count(
          tasks.filter((t) => t.status === "failed"),
          (t) => t.error_code ?? "?",
        ),
      ) || "none"
    }`,
  );
  const recipes = new Map<string, Map<string, number>>();
  for (const t of tasks) {
    const m = recipes.get(t.recipe ?? "?") ?? new Map<string, number>();
    const k = t.status === "failed" ? `failed:${t.error_code}` : t.status;
    m.set(k, (m.get(k) ?? 0) + 1);
    recipes.set(t.recipe ?? "?", m);
  }
  lines.push(
    `  by recipe: ${[...recipes]
      .sort()
      .map(([r, m]) => `${r} {${[...m].map(([k, v]) => `${k} ${v}`).join(", ")}}`)
      .join("; ")}`,
  );
  // A terminal status is final: no read after a terminal read shows another status.
  const readsOf = new Map<string, RequestRecord[]>();
  for (const r of requests.filter((x) => x.status === 200 && x.task_id && x.task_status))
    readsOf.set(r.task_id as string, [...(readsOf.get(r.task_id as string) ?? []), r]);
  const regressions: string[] = [];
  for (const [id, rs] of readsOf) {
    const firstTerminal = rs.filter((r) => TERMINAL.has(r.task_status as string)).sort((a, b) => a.end - b.end)[0];
    if (!firstTerminal) continue;
    const later = rs.filter((r) => r.at > firstTerminal.end && r.task_status !== firstTerminal.task_status);
    const final = finalStatus(id);
    if (later.length > 0 || (final && final !== firstTerminal.task_status))
      regressions.push(`${id}: ${firstTerminal.task_status} then ${later[0]?.task_status ?? final}`);
  }
  failSome("terminal", "tasks whose terminal status changed", regressions);

  // ------------------------------------------------------------------ upstream
  const submits = upstream.filter((u) => u.kind === "submit");
  const acceptedSubmits = new Map<string, UpstreamRecord[]>();
  for (const u of submits) {
    if (!u.task_id || u.status === null || u.status >= 300) continue;
    acceptedSubmits.set(u.task_id, [...(acceptedSubmits.get(u.task_id) ?? []), u]);
  }
  const twice = [...acceptedSubmits].filter(([, us]) => us.length > 1);
  /** Where a second acceptance came from: a crash between the first acceptance and its record. */
  const why = (us: UpstreamRecord[]) => {
    const [a, b] = us as [UpstreamRecord, UpstreamRecord];
    const kill = kills.find((k) => k.at <= b.at && k.at >= a.at - 1000);
    return kill
      ? `first accepted ${a.at - kill.at >= 0 ? `${a.at - kill.at} ms after` : `${kill.at - a.at} ms before`} the SIGKILL at ${new Date(kill.at).toISOString()}, submitted again ${b.at - kill.at} ms after it, once the server was back`
      : `no crash between the submissions (${new Date(a.at).toISOString()}, ${new Date(b.at).toISOString()})`;
  };
  failSome(
    "upstream",
    "tasks accepted more than once by fal (run twice)",
    twice.map(([id, us]) => `${id} (${taskById.get(id)?.recipe ?? "?"}): jobs ${us.map((u) => u.job_id).join(", ")}; ${why(us)}`),
  );
  const strangers = submits.filter((u) => !u.task_id || (tasks.length > 0 && !taskById.has(u.task_id)));
  failSome(
    "upstream",
    "fal submissions for no known task",
    strangers.map((u) => `${u.path.slice(0, 80)} → ${u.status}`),
  );
  const refused = submits.filter((u) => u.status === null || u.status >= 300);
  const falTasks = tasks.filter((t) => t.provider === "fal");
  // fal took these jobs but a crash took the answer: the task must find the job (fal's webhook), not submit again.
  const lostAnswers = submits.filter((u) => u.answer_lost && u.task_id && u.status !== null && u.status < 300);
  const lostOutcomes = count(lostAnswers, (u) => {
    const t = taskById.get(u.task_id as string);
    return t ? (t.status === "failed" ? `failed:${t.error_code}` : t.status) : "unknown";
  });
  const retriedTasks = new Set(refused.map((u) => u.task_id)).size;
  lines.push(
    `upstream (fal): ${submits.length} submissions for ${new Set(submits.map((u) => u.task_id)).size} tasks: ${[...acceptedSubmits.values()].reduce((n, us) => n + us.length, 0)} accepted, ${refused.length} refused (${fmtCounts(count(refused, (u) => String(u.status ?? "no answer"))) || "none"}) and retried on ${retriedTasks} tasks; ${twice.length} tasks run twice; ${upstream.length - submits.length} status/result/cancel/download calls; ${falTasks.length} tasks on fal`,
  );
  lines.push(
    `  accepted submissions whose answer a crash took: ${lostAnswers.length}${lostAnswers.length ? ` (tasks then ${fmtCounts(lostOutcomes)}; found again through fal's webhook, never resubmitted)` : ""}`,
  );
  const falSucceeded = falTasks.filter((t) => t.status === "succeeded" && (acceptedSubmits.get(t.task_id)?.length ?? 0) === 0);
  failSome(
    "upstream",
    "fal tasks that succeeded with no accepted submission on record",
    falSucceeded.map((t) => `${t.task_id} (${acceptedSubmits.get(t.task_id)?.length ?? 0})`),
  );

  // ------------------------------------------------------------------ ledger
  const chatCutByCrash = new Map<string, number>();
  for (const r of requests.filter((x) => (x.op === "chat" || x.op === "chat_stream") && x.status === null && inOutage(x)))
    chatCutByCrash.set(r.tenant, (chatCutByCrash.get(r.tenant) ?? 0) + 1);
  const ledgerLines: string[] = [];
  for (const tenant of meta.tenants) {
    const rec = ledgers.find((l) => l.tenant === tenant.name);
    const l = rec?.ledger;
    if (!rec || !l) {
      fail("ledger", `${tenant.name}: no ledger read after the drain`);
      continue;
    }
    for (const k of ["granted", "captured", "reserved"] as const) {
      if (!big(l.totals[k]).eq(big(l.recomputed[k])))
        fail("ledger", `${tenant.name}: running ${k} ${l.totals[k]} ≠ recomputed from the rows ${l.recomputed[k]}`);
    }
    const expect = big(l.totals.granted).minus(big(l.totals.captured)).minus(big(l.totals.reserved));
    if (!big(l.balance).eq(expect))
      fail("ledger", `${tenant.name}: balance ${l.balance} ≠ granted − captured − reserved = ${expect.toString()}`);
    if (big(l.balance).lt(0)) fail("ledger", `${tenant.name}: balance ${l.balance} is negative`);
    if (rec.tenant_balance !== null && !big(rec.tenant_balance).eq(big(l.balance)))
      fail("ledger", `${tenant.name}: the tenant reads balance ${rec.tenant_balance}, the ledger ${l.balance}`);
    if (!big(l.totals.granted).eq(big(rec.granted_by_soak)))
      fail("ledger", `${tenant.name}: granted ${l.totals.granted}, the soak granted ${rec.granted_by_soak}`);
    const own = tasks.filter((t) => t.tenant === tenant.name && !inDoubt.has(t.task_id));
    const taskNet = own.reduce((n, t) => n.plus(big(t.billing?.net_charged_credits)), new Big(0));
    const chat = big(l.totals.captured).minus(taskNet);
    if (!tenant.chat && !chat.eq(0))
      fail(
        "ledger",
        `${tenant.name}: captured ${l.totals.captured} ≠ the tasks' net charges ${taskNet.toString()} (this tenant never chats)`,
      );
    if (tenant.chat && chat.lt(0))
      fail("ledger", `${tenant.name}: captured ${l.totals.captured} is less than the tasks' net charges ${taskNet.toString()}`);
    const testCharged = own.filter((t) => t.mode === "test" && !big(t.billing?.net_charged_credits).eq(0));
    failSome(
      "ledger",
      `${tenant.name}: test-key tasks charged`,
      testCharged.map((t) => `${t.task_id} ${t.billing?.net_charged_credits}`),
    );
    // Open reservations: every task is terminal, so none of a task may be open; a chat hold may
    // stay open (until its lease ends) only when a crash cut its call.
    const state = states.find((s) => s.tenant === tenant.name);
    const cut = chatCutByCrash.get(tenant.name) ?? 0;
    let openNote = `${l.open_reservations} open`;
    if (state) {
      const taskRows = state.open_rows.filter((r) => r.id.startsWith("task_") && !inDoubt.has(r.id.split(":")[0] as string));
      const chatRows = state.open_rows.filter((r) => r.id.startsWith("chat_"));
      const otherRows = state.open_rows.filter((r) => !r.id.startsWith("task_") && !r.id.startsWith("chat_"));
      failSome(
        "ledger",
        `${tenant.name}: reservations of terminal tasks still open`,
        taskRows.map((r) => {
          const id = r.id.split(":")[0] as string;
          return `${r.id} (${r.amount} credits; task ${taskById.get(id)?.status ?? "not listed"}, ${taskById.get(id)?.recipe ?? "?"})`;
        }),
      );
      failSome(
        "ledger",
        `${tenant.name}: open reservations of unknown kind`,
        otherRows.map((r) => `${r.id} ${r.amount}`),
      );
      if (chatRows.length > cut)
        fail(
          "ledger",
          `${tenant.name}: ${chatRows.length} chat holds open but only ${cut} chat calls were cut by a crash: ${chatRows.map((r) => r.id).join(", ")}`,
        );
      const unleased = chatRows.filter((r) => r.lease_until === null);
      failSome(
        "ledger",
        `${tenant.name}: open chat holds with no lease (never given back)`,
        unleased.map((r) => r.id),
      );
      if (state.open_rows.length !== l.open_reservations)
        fail(
          "ledger",
          `${tenant.name}: the ledger counts ${l.open_reservations} open reservations, the stored rows ${state.open_rows.length}`,
        );
      openNote = `${l.open_reservations} open (${taskRows.length} of tasks, ${chatRows.length} chat holds of calls cut by a crash)`;
    } else if (l.open_reservations > cut) {
      fail(
        "ledger",
        `${tenant.name}: ${l.open_reservations} reservations open after the drain, reserved ${l.totals.reserved}; at most ${cut} could be chat holds cut by a crash (rows not readable here to say whose)`,
      );
    }
    ledgerLines.push(
      `  ${tenant.name.padEnd(7)} granted ${l.totals.granted.padStart(9)}  captured ${l.totals.captured.padStart(11)}  reserved ${l.totals.reserved.padStart(7)}  balance ${l.balance.padStart(11)}  rows ${String(l.reservations).padStart(4)}, ${openNote}; tasks' net ${taskNet.toString()}${tenant.chat ? `, chat ${chat.toString()}` : ""}; totals = recomputed: ${["granted", "captured", "reserved"].every((k) => big(l.totals[k as "granted"]).eq(big(l.recomputed[k as "granted"]))) ? "yes" : "NO"}`,
    );
  }
  lines.push("ledgers:", ...ledgerLines);

  // ------------------------------------------------------------------ the request log against the bill
  const logCheck = checkLogAgainstLedger(
    history.filter((r): r is RequestLogRecord => r.type === "request_log"),
    history.filter((r): r is LedgerRowsRecord => r.type === "ledger_rows"),
    ledgers.map((l) => l.tenant),
  );
  for (const f of logCheck.failures) failSome("log", f.what, f.items);
  lines.push("request log against the ledger:", ...logCheck.lines);

  // ------------------------------------------------------------------ callbacks
  const byTask = new Map<string, CallbackRecord[]>();
  for (const c of callbacks) byTask.set(c.task_id ?? "?", [...(byTask.get(c.task_id ?? "?") ?? []), c]);
  const withCallback = tasks.filter((t) => t.callback && !inDoubt.has(t.task_id));
  const due = withCallback.filter((t) => {
    const p = meta.receivers[t.receiver ?? /\/hook\/([^/]+)\//.exec(t.callback?.url ?? "")?.[1] ?? ""];
    return p && p.mode !== "gone";
  });
  const receiverOf = (t: TaskRecord) => t.receiver ?? /\/hook\/([^/]+)\//.exec(t.callback?.url ?? "")?.[1] ?? "";
  const got2xx = (t: TaskRecord) =>
    (byTask.get(t.task_id) ?? []).some((c) => c.answered >= 200 && c.answered < 300 && !c.aborted);
  // Delivery attempts come now, 5 s, 5 min, … after the task ends: a callback still pending after
  // two attempts that its receiver refused (or a crash spent) is next tried five minutes later,
  // past the run. Deferred, not due: but only when the receiver never accepted a delivery of it.
  const deferred = due.filter(
    (t) =>
      t.callback?.status === "pending" &&
      t.callback.attempt_count >= 2 &&
      !got2xx(t) &&
      (byTask.get(t.task_id) ?? []).length <= t.callback.attempt_count,
  );
  const undelivered = due.filter((t) => !deferred.includes(t) && (!got2xx(t) || t.callback?.status !== "delivered"));
  failSome(
    "callbacks",
    "due callbacks not delivered",
    undelivered.map(
      (t) =>
        `${t.task_id} (${receiverOf(t)}, ${t.status}, callback ${t.callback?.status} after ${t.callback?.attempt_count} attempts: ${t.callback?.last_error ?? ""})`,
    ),
  );
  const splitIds = [...byTask].filter(([, cs]) => new Set(cs.map((c) => c.webhook_id)).size > 1);
  failSome(
    "callbacks",
    "tasks delivered under more than one webhook-id",
    splitIds.map(([id, cs]) => `${id}: ${[...new Set(cs.map((c) => c.webhook_id))].join(", ")}`),
  );
  const idOwners = new Map<string, Set<string>>();
  for (const c of callbacks) {
    if (!c.webhook_id) continue;
    idOwners.set(c.webhook_id, (idOwners.get(c.webhook_id) ?? new Set()).add(c.task_id ?? "?"));
  }
  failSome(
    "callbacks",
    "webhook-ids shared by different tasks",
    [...idOwners].filter(([, ids]) => ids.size > 1).map(([w, ids]) => `${w}: ${[...ids].join(", ")}`),
  );
  failSome(
    "callbacks",
    "deliveries without a webhook-id",
    callbacks.filter((c) => !c.webhook_id).map((c) => `${c.task_id} at ${c.receiver}`),
  );
  const wrongStatus = callbacks.filter(
    (c) => c.task_id && taskById.has(c.task_id) && c.task_status !== taskById.get(c.task_id)?.status,
  );
  failSome(
    "callbacks",
    "deliveries whose envelope is not the task's final state",
    wrongStatus.map((c) => `${c.task_id}: delivered ${c.task_status}, final ${taskById.get(c.task_id as string)?.status}`),
  );
  const strayCallbacks = callbacks.filter((c) => !c.task_id || !taskById.get(c.task_id)?.callback);
  failSome(
    "callbacks",
    "deliveries for tasks that asked for none (or unknown tasks)",
    strayCallbacks.map((c) => `${c.task_id}`),
  );
  const wrongTenant = callbacks.filter(
    (c) => c.task_id && tenantOfTask.has(c.task_id) && tenantOfTask.get(c.task_id) !== c.tenant,
  );
  failSome(
    "callbacks",
    "deliveries to another tenant's receiver",
    wrongTenant.map((c) => `${c.task_id}`),
  );
  const badSignatures = callbacks.filter((c) => c.signature === "invalid");
  failSome(
    "callbacks",
    "signed deliveries that do not verify",
    badSignatures.map((c) => `${c.task_id} (${c.webhook_id})`),
  );
  const mixedSigning = [...byTask].filter(([, cs]) => new Set(cs.map((c) => c.signature)).size > 1);
  failSome(
    "callbacks",
    "tasks delivered both signed and unsigned",
    mixedSigning.map(([id]) => id),
  );
  const gone = withCallback.filter((t) => meta.receivers[receiverOf(t)]?.mode === "gone");
  const goneWrong = gone.filter(
    (t) =>
      t.callback?.status !== "failed" ||
      (byTask.get(t.task_id) ?? []).some((c) => c.answered < 300) ||
      (byTask.get(t.task_id) ?? []).length > 1 + kills.length,
  );
  failSome(
    "callbacks",
    "deliveries to a 410 receiver that did not stop",
    goneWrong.map((t) => `${t.task_id}: ${(byTask.get(t.task_id) ?? []).length} deliveries, callback ${t.callback?.status}`),
  );
  // At least once: a delivery answered 2xx is sent again only when a crash took the service
  // before it wrote down the success.
  const afterSuccess = [...byTask].filter(([, cs]) => {
    const ok = cs.findIndex((c) => c.answered < 300 && !c.aborted);
    return ok >= 0 && ok < cs.length - 1;
  });
  const unexplainedRedelivery = afterSuccess.filter(([, cs]) => {
    const ok = cs.find((c) => c.answered < 300 && !c.aborted) as CallbackRecord;
    const next = cs[cs.indexOf(ok) + 1] as CallbackRecord;
    return !kills.some((k) => k.at >= ok.at - 1000 && k.at <= next.at);
  });
  failSome(
    "callbacks",
    "deliveries repeated after a 2xx with no crash between",
    unexplainedRedelivery.map(([id, cs]) => `${id} (${cs.length} deliveries)`),
  );
  const signed = callbacks.filter((c) => c.signature === "valid").length;
  const dueNow = due.length - deferred.length;
  lines.push(
    `callbacks: ${withCallback.length} terminal tasks with a callback_url (${fmtCounts(count(withCallback, receiverOf))}); ${dueNow} due within the run, ${dueNow - undelivered.length} delivered (${pct(dueNow - undelivered.length, dueNow)}), ${deferred.length} deferred to the 5-minute retry after two refused attempts; ${callbacks.length} deliveries (${fmtCounts(count(callbacks, (c) => `${c.answered}${c.aborted ? " abandoned" : ""}`))}), ${signed} signed and verified, ${badSignatures.length} bad signatures; ${afterSuccess.length} tasks redelivered after a 2xx (a crash before the success was written: ${afterSuccess.length - unexplainedRedelivery.length}); ${gone.length} to the 410 receiver, stopped: ${gone.length - goneWrong.length}`,
  );

  // ------------------------------------------------------------------ endpoint events
  // Every terminal live task of a tenant with a (live) webhook endpoint: its event arrived (accepted), typed
  // by its final status, signed with the endpoint's secret, under one webhook-id across retries
  // and crashes; no event reached a tenant for a task of another.
  const withEndpoint = new Set(meta.endpoint_tenants ?? []);
  const eventsByTask = new Map<string, EventRecord[]>();
  for (const e of events) eventsByTask.set(e.task_id ?? "?", [...(eventsByTask.get(e.task_id ?? "?") ?? []), e]);
  // The endpoints are made with live keys: a test-mode task's event goes to test-mode endpoints only.
  const eventDue = tasks.filter(
    (t) => withEndpoint.has(t.tenant) && t.mode !== "test" && ["succeeded", "failed", "canceled"].includes(t.status),
  );
  const eventMissing = eventDue.filter((t) => !(eventsByTask.get(t.task_id) ?? []).some((e) => e.answered < 300 && !e.aborted));
  failSome(
    "events",
    "terminal tasks whose endpoint event never arrived",
    eventMissing.map((t) => `${t.task_id} (${t.tenant}, ${t.status})`),
  );
  failSome(
    "events",
    "events typed otherwise than the task's final status",
    events
      .filter((e) => e.task_id && taskById.has(e.task_id) && e.event_type !== `task.${taskById.get(e.task_id)?.status}`)
      .map((e) => `${e.task_id}: ${e.event_type}, final ${taskById.get(e.task_id as string)?.status}`),
  );
  failSome(
    "events",
    "tasks whose event came under more than one webhook-id",
    [...eventsByTask].filter(([, es]) => new Set(es.map((e) => e.webhook_id)).size > 1).map(([id]) => id),
  );
  failSome(
    "events",
    "events that do not verify with the endpoint's secret",
    events.filter((e) => e.signature !== "valid").map((e) => `${e.task_id} (${e.webhook_id}, ${e.signature})`),
  );
  failSome(
    "events",
    "events for another tenant's task, or a tenant without an endpoint",
    events
      .filter(
        (e) =>
          !withEndpoint.has(e.tenant) || (e.task_id && tenantOfTask.has(e.task_id) && tenantOfTask.get(e.task_id) !== e.tenant),
      )
      .map((e) => `${e.task_id} at ${e.tenant}`),
  );
  failSome(
    "events",
    "events of a test-mode task at a live endpoint (key modes never cross)",
    events.filter((e) => e.task_id && taskById.get(e.task_id)?.mode === "test").map((e) => `${e.task_id} at ${e.tenant}`),
  );
  if (withEndpoint.size > 0 && eventDue.length === 0) fail("coverage", "no terminal task of a tenant with a webhook endpoint");
  const eventsRetried = [...eventsByTask].filter(([, es]) => es.some((e) => e.answered >= 300)).length;
  lines.push(
    `endpoint events: ${eventDue.length} terminal tasks of ${[...withEndpoint].join(", ")}, ${eventDue.length - eventMissing.length} events accepted (${pct(eventDue.length - eventMissing.length, eventDue.length)}); ${events.length} deliveries (${fmtCounts(count(events, (e) => `${e.answered}${e.aborted ? " abandoned" : ""}`))}), ${eventsRetried} accepted on a retry after a 503`,
  );

  // ------------------------------------------------------------------ the batch from an uploaded file
  // Every item of the file run to success, never more than the batch's concurrency at once, and an
  // exact output file: one line per item in item order, naming the item's task, with its text.
  if (meta.file_batch_items) {
    const n = meta.file_batch_items;
    const b = history.find((r): r is FileBatchRecord => r.type === "file_batch");
    if (!b) fail("file batch", "no record: the run ended before it");
    else if (b.error) fail("file batch", b.error);
    else if (!b.batch_id) fail("file batch", "the batch was never created");
    else {
      if (b.status !== "completed") fail("file batch", `the batch ended ${b.status ?? "unread"}, not completed`);
      const want = { total: n, queued: 0, running: 0, succeeded: n, failed: 0, canceled: 0 };
      if (JSON.stringify(b.counts) !== JSON.stringify(want))
        fail("file batch", `counts ${JSON.stringify(b.counts)}, not ${JSON.stringify(want)}`);
      if (b.most_running > b.concurrency)
        fail("file batch", `${b.most_running} items seen running at once, more than its concurrency ${b.concurrency}`);
      if (b.items.length !== n) fail("file batch", `${b.items.length} items listed, ${n} in the file`);
      const out = b.output_lines;
      if (!out) fail("file batch", "the output file could not be read");
      else {
        if (out.length !== n) fail("file batch", `the output file has ${out.length} lines, the upload ${n}`);
        failSome(
          "file batch",
          "output lines not the item of their place, with its task, succeeded with a text",
          out
            .map((l, i) => ({ l, i }))
            .filter(
              ({ l, i }) =>
                l.custom_id !== `row-${i}` || l.task_id !== b.items[i]?.task_id || l.status !== "succeeded" || !l.text || l.error,
            )
            .map(({ l, i }) => `line ${i + 1}: ${l.custom_id} ${l.status}`),
        );
        if (new Set(out.map((l) => l.task_id)).size !== n)
          fail("file batch", "the output file does not name a task of its own per item");
      }
    }
    lines.push(
      `file batch: ${b?.batch_id ?? "none"} ${b?.status ?? "unread"}, ${b?.counts ? `${b.counts.succeeded} succeeded of ${b.counts.total}` : "no counts"}, at most ${b?.most_running ?? 0} running (concurrency ${b?.concurrency ?? "?"}); output file ${b?.output_lines ? `${b.output_lines.length} lines` : "unread"}`,
    );
  }

  // ------------------------------------------------------------------ the batch
  // Created once whatever the crashes, every item run as exactly one task, the batch completed,
  // its output file holding one line per item in item order, naming the item's task.
  if (meta.batch_items) {
    const b = history.find((r): r is BatchRecord => r.type === "batch");
    if (!b?.batch_id) fail("batch", "the batch was never created");
    else {
      if (b.status !== "completed") fail("batch", `the batch ended ${b.status ?? "unread"}, not completed`);
      const c = b.counts;
      if (!c || c.total !== meta.batch_items || c.succeeded + c.failed + c.canceled !== c.total)
        fail("batch", `counts ${JSON.stringify(c)} do not account for ${meta.batch_items} items`);
      const itemTasks = b.items.map((i) => i.task_id);
      if (b.items.length !== meta.batch_items) fail("batch", `${b.items.length} items listed, ${meta.batch_items} sent`);
      if (new Set(b.items.map((i) => i.custom_id)).size !== b.items.length) fail("batch", "items listed twice");
      failSome(
        "batch",
        "items without a task or not terminal",
        b.items.filter((i) => !i.task_id || !TERMINAL.has(i.status)).map((i) => `${i.custom_id} (${i.status})`),
      );
      if (new Set(itemTasks).size !== itemTasks.length) fail("batch", "two items name the same task");
      const batchTasks = tasks.filter((t) => t.batch_id === b.batch_id);
      const byItem = new Map<string, string[]>();
      for (const t of batchTasks) byItem.set(t.custom_id ?? "?", [...(byItem.get(t.custom_id ?? "?") ?? []), t.task_id]);
      failSome(
        "batch",
        "items run as more than one task",
        [...byItem].filter(([, ids]) => ids.length > 1).map(([id, ids]) => `${id}: ${ids.join(", ")}`),
      );
      if (batchTasks.length !== meta.batch_items)
        fail("batch", `${batchTasks.length} tasks carry the batch's id, ${meta.batch_items} items were sent`);
      const outLines = b.output_lines;
      if (!outLines) fail("batch", "the output file could not be read");
      else {
        const inOrder =
          outLines.length === b.items.length &&
          outLines.every((l, i) => l.custom_id === b.items[i]?.custom_id && l.task_id === b.items[i]?.task_id);
        if (!inOrder) fail("batch", `the output file's ${outLines.length} lines are not the ${b.items.length} items in order`);
      }
      lines.push(
        `batch: ${b.batch_id} ${b.status}, ${c ? `${c.succeeded} succeeded, ${c.failed} failed, ${c.canceled} canceled of ${c.total}` : "no counts"}; ${batchTasks.length} tasks carry its id, ${byItem.size} distinct items; output file ${outLines ? `${outLines.length} lines` : "unread"}`,
      );
    }
  }

  // ------------------------------------------------------------------ isolation
  const foreign = requests.filter((r) => r.op === "read_foreign" && r.status !== null && r.status !== 429);
  const leaked = foreign.filter((r) => r.status !== 404 || r.code !== "task_not_found");
  failSome(
    "isolation",
    "another tenant's task read without 404 task_not_found",
    leaked.map((r) => `${r.path} → ${r.status}`),
  );
  const foreignListed: string[] = [];
  for (const r of requests.filter((x) => x.listed)) {
    for (const id of r.listed ?? []) {
      const owner = tenantOfTask.get(id);
      if (owner && owner !== r.tenant) foreignListed.push(`${id} (of ${owner}) listed for ${r.tenant}`);
    }
  }
  failSome("isolation", "listings showing another tenant's task", foreignListed);
  const lists = requests.filter((r) => r.op === "list" && r.status === 200);
  lines.push(
    `isolation: ${foreign.length} reads of another tenant's task (${foreign.length - leaked.length} answered 404), ${lists.length} listings (${lists.reduce((n, r) => n + (r.listed?.length ?? 0), 0)} rows), ${foreignListed.length} foreign rows`,
  );

  // ------------------------------------------------------------------ route health
  const marks = history.filter((r): r is OutageRecord => r.type === "outage");
  const oStart = marks.find((m) => m.phase === "start")?.at;
  const oEnd = marks.find((m) => m.phase === "end")?.at;
  const statusRead = history.find((r): r is StatusRecord => r.type === "status");
  if (oStart === undefined || oEnd === undefined) fail("health", "no provider outage was made");
  else {
    const falSubmits = upstream.filter((u) => u.provider === "fal" && u.kind === "submit");
    const refusedInOutage = falSubmits.filter((u) => u.status === 503 && u.at >= oStart && u.at <= oEnd);
    const incident = (statusRead?.body?.incidents ?? []).find(
      (i: { provider: string; started_at: string }) =>
        i.provider === "fal" && Date.parse(i.started_at) >= oStart && Date.parse(i.started_at) <= oEnd,
    ) as { started_at: string; ended_at: string | null; what_failed: string } | undefined;
    if (statusRead?.status !== 200) fail("health", `GET /v1/status answered ${statusRead?.status ?? "nothing"}`);
    else if (!incident) fail("health", "the status page shows no fal incident that started during the outage");
    else if (!incident.ended_at) fail("health", "fal's incident never ended: no probe closed its circuit after the outage");
    const opened = incident ? Date.parse(incident.started_at) : null;
    // Isolates see an opened circuit within a couple of seconds (their snapshots); after that only probes go.
    const whileOpen = opened === null ? [] : falSubmits.filter((u) => u.at > opened + 3000 && u.at <= oEnd);
    const bound = opened === null ? 0 : Math.ceil((oEnd - opened) / 30_000) * 3 + 3;
    if (whileOpen.length > bound)
      fail("health", `${whileOpen.length} submissions went to fal while its circuit was open (at most ${bound})`);
    const unhealthy = requests.filter(
      (r) => r.op === "create" && r.status === 503 && r.code === "model_unavailable" && r.at >= oStart,
    );
    lines.push(
      `fal outage: ${((oEnd - oStart) / 1000).toFixed(0)} s, ${refusedInOutage.length} submissions refused; circuit opened ${opened === null ? "never" : `${((opened - oStart) / 1000).toFixed(1)} s in`}, closed ${incident?.ended_at ? `${((Date.parse(incident.ended_at) - oEnd) / 1000).toFixed(1)} s after the outage` : "never"}; ${whileOpen.length} submissions to fal while open (probes); ${unhealthy.length} creates answered 503 model_unavailable; ${incident?.what_failed ?? "no incident"}`,
    );
  }

  // ------------------------------------------------------------------ coverage
  const insufficient = requests.filter((r) => r.status === 402 && r.code === "insufficient_balance");
  const rateLimited = requests.filter((r) => r.status === 429);
  lines.push(
    `402 insufficient_balance: ${insufficient.length} (${fmtCounts(count(insufficient, (r) => r.tenant))}); 429: ${rateLimited.length} (${fmtCounts(count(rateLimited, (r) => `${r.tenant} ${r.code}`))})`,
  );
  if (kills.length < 2) fail("coverage", `${kills.length} crashes; the soak kills the server twice`);
  if (ups.length < kills.length + 1)
    fail("coverage", `${ups.length} starts for ${kills.length} crashes: a restart did not come up`);
  if (insufficient.length === 0) fail("coverage", "no 402 insufficient_balance: the low-credit tenant never ran out");
  if (replayed.length === 0) fail("coverage", "no replay answered 202");
  if (refused.length === 0) fail("coverage", "no fal submission was refused (submit_429 / submit_5xx never ran)");
  if (lostAnswers.length === 0)
    fail("coverage", "no crash landed between fal accepting a submission and the service hearing of it");
  for (const [name, p] of Object.entries(meta.receivers)) {
    if (!callbacks.some((c) => c.receiver === name)) fail("coverage", `no delivery reached the ${name} receiver (${p.mode})`);
  }

  const ok = failures.length === 0;
  const summary = [
    `soak: ${span.toFixed(0)} s of traffic, ${traffic.length} requests (${(traffic.length / Math.max(1, span)).toFixed(1)}/s) from ${new Set(traffic.map((r) => `${r.tenant}/${r.client}`)).size} clients of ${meta.tenants.length} tenants, 2 × SIGKILL + restart (down ${outages.map((o) => `${((o.to - o.from) / 1000).toFixed(1)} s`).join(", ")})`,
    `request log: ${failures.some((f) => f.startsWith("[log]")) ? "NO" : "yes"}, every request the ledger charged logged with exactly its charge`,
    `tasks: ${accepted.size} created (${replayed.length} replays, ${createRetries} create retries), ${pct(accepted.size - notTerminal.length, accepted.size)} terminal: ${fmtCounts(count(tasks, (t) => t.status))}`,
    `fal: ${submits.length} submissions, ${refused.length} refused and retried, ${lostAnswers.length} accepted with the answer lost in a crash, ${twice.length} tasks run twice; callbacks: ${dueNow - undelivered.length}/${dueNow} due delivered${deferred.length ? ` (${deferred.length} deferred to the 5-minute retry)` : ""}, one webhook-id each: ${splitIds.length === 0 ? "yes" : "NO"}; endpoint events: ${eventDue.length - eventMissing.length}/${eventDue.length} arrived`,
    ...(meta.batch_items
      ? [
          `batch: ${failures.some((f) => f.startsWith("[batch]")) ? "NO" : "yes"}, ${meta.batch_items} items through both crashes, each run once, output file in item order`,
        ]
      : []),
    ...(meta.file_batch_items
      ? [
          `file batch: ${failures.some((f) => f.startsWith("[file batch]")) ? "NO" : "yes"}, ${meta.file_batch_items} items from an upload, all succeeded, within its concurrency, output file exact`,
        ]
      : []),
    `ledgers exact (totals = recomputed, balance = granted − captured − reserved ≥ 0, no task reservation open): ${failures.some((f) => f.startsWith("[ledger]")) ? "NO" : "yes"} for ${ledgers.length} tenants; 402s: ${insufficient.length}`,
    `5xx: ${fiveXX.length} (${fmtCounts(count(fiveXX, (r) => `${r.status} ${r.code ?? "?"}`)) || "none"}), unexplained: ${unexplained.length}; connection failures: ${netErrors.length}, all in crash windows: ${strayNet.length === 0 ? "yes" : "NO"}`,
    `result: ${ok ? "PASS" : `FAIL (${failures.length} properties)`}`,
  ];
  return { ok, failures, lines, summary };
}

export function report(result: CheckResult): void {
  console.log(result.lines.join("\n"));
  console.log("");
  if (result.failures.length > 0) {
    console.log("FAILED:");
    for (const f of result.failures) console.log(`  ${f}`);
    console.log("");
  }
  console.log(result.summary.join("\n"));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.argv[2];
  if (!file) {
    console.error("usage: npx tsx scripts/soak/check.ts <history.jsonl>");
    process.exit(2);
  }
  const result = check(readHistory(file));
  report(result);
  process.exit(result.ok ? 0 : 1);
}
