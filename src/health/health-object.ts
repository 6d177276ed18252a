/**
 * One per provider (named by the provider): the health of its routes (one per upstream model),
 * from the outcomes every task object reports in batches (src/health/reporter.ts). It keeps the
 * circuit of each route (src/health/circuit.ts), a minute-by-minute record of the last 24 hours for
 * /v1/status, and the incidents (a circuit opening until it closes). Readers get a small snapshot
 * (src/health/snapshot.ts caches it per isolate); nothing on a request path writes here.
 * Schema: docs/storage/health-object.md.
 */

import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { migratedSql } from "../storage/migrations";
import { type Attempt, afterAttempt, type Circuit, CLOSED, claimProbe, stateAt, tripped, WINDOW_MS } from "./circuit";
import { emptyHistogram, quantile } from "./durations";
import type { HealthRpc } from "./health-rpc";
import { HEALTH_MIGRATIONS } from "./health-schema";
import type { Incident, ProviderSnapshot, ProviderStatus, RouteSnapshot, RouteStatus } from "./health-views";
import { circuitAttempt, type RouteOutcome } from "./outcomes";
import { addWindow, countOutcome, emptyWindow, type MinuteRow, type WindowStats } from "./window-stats";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Incidents kept per provider (the status page shows the last few). */
const KEEP_INCIDENTS = 50;

export class HealthObject extends DurableObject<Env> implements HealthRpc {
  private readonly sql: SqlStorage;
  private readonly circuits = new Map<string, Circuit & { incident_id: number | null }>();
  private lastPrune = 0;
  /** The object's clock: tests move it to reach a retry time without waiting. */
  clock: () => number = () => Date.now();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = migratedSql(ctx, HEALTH_MIGRATIONS);
    void ctx.blockConcurrencyWhile(async () => {
      for (const r of this.sql.exec("SELECT * FROM circuits")) {
        const { upstream_model, ...c } = r as unknown as Circuit & { upstream_model: string; incident_id: number | null };
        this.circuits.set(upstream_model, c);
      }
    });
  }

  private get provider(): string {
    return this.ctx.id.name ?? "unknown";
  }

  private circuit(route: string) {
    return this.circuits.get(route) ?? { ...CLOSED, incident_id: null };
  }

  private saveCircuit(route: string, c: Circuit & { incident_id: number | null }): void {
    this.circuits.set(route, c);
    this.sql.exec(
      "INSERT OR REPLACE INTO circuits (upstream_model, state, opened_at, retry_at, probe_task, probe_until, incident_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
      route,
      c.state,
      c.opened_at,
      c.retry_at,
      c.probe_task,
      c.probe_until,
      c.incident_id,
    );
  }

  /** A batch of outcomes (any order, any routes of this provider); answers the snapshot after them. */
  report(outcomes: RouteOutcome[], now = this.clock()): ProviderSnapshot {
    this.ctx.storage.transactionSync(() => {
      const minutes = new Map<string, { route: string; minute: number; w: WindowStats }>();
      for (const o of [...outcomes].sort((a, b) => a.at - b.at)) {
        this.countInto(minutes, o);
        this.record(o, now);
      }
      // Each minute of each route read and written once per report, however many outcomes it counts.
      for (const { route, minute, w } of minutes.values()) this.saveMinute(route, minute, w);
      if (now - this.lastPrune > MINUTE) {
        this.lastPrune = now;
        this.sql.exec("DELETE FROM minutes WHERE minute < ?", Math.floor((now - DAY) / MINUTE));
        this.sql.exec(
          "DELETE FROM incidents WHERE id NOT IN (SELECT id FROM incidents ORDER BY id DESC LIMIT ?)",
          KEEP_INCIDENTS,
        );
      }
      this.sql.exec("DELETE FROM attempts WHERE at <= ?", now - 2 * WINDOW_MS);
    });
    return this.snapshot(now);
  }

  private record(o: RouteOutcome, now: number): void {
    const route = o.upstream_model;
    const counted = circuitAttempt(o);
    if (counted === null) return;
    const attempt: Attempt = {
      at: o.at,
      tenant: o.tenant_id,
      task: o.task_id,
      failed: counted === "failed",
      ...(o.code ? { code: o.code } : {}),
    };
    // An accepted job that then fails is one failed attempt: its acceptance is turned into the failure.
    const turned =
      o.kind !== "submit_accepted" && o.kind !== "submit_refused"
        ? this.sql.exec(
            "UPDATE attempts SET failed = 1, code = ?, at = ? WHERE upstream_model = ? AND task = ? AND failed = 0",
            attempt.code ?? null,
            attempt.at,
            route,
            o.task_id,
          ).rowsWritten
        : 0;
    if (turned === 0) {
      this.sql.exec(
        "INSERT INTO attempts (upstream_model, at, tenant, task, failed, code) VALUES (?, ?, ?, ?, ?, ?)",
        route,
        attempt.at,
        attempt.tenant,
        o.task_id,
        attempt.failed ? 1 : 0,
        attempt.code ?? null,
      );
    }
    const at = Math.max(now, o.at);
    const before = this.circuit(route);
    // Only a failure can open a closed circuit, and an open one is decided by the attempt alone:
    // the window's attempts are read for a failure on a closed circuit only.
    const window =
      before.state === "closed" && attempt.failed
        ? this.sql
            .exec<{ at: number; tenant: string; failed: number; code: string | null }>(
              "SELECT at, tenant, failed, code FROM attempts WHERE upstream_model = ? AND at > ?",
              route,
              at - WINDOW_MS,
            )
            .toArray()
            .map((r) => ({ at: r.at, tenant: r.tenant, failed: r.failed === 1, ...(r.code ? { code: r.code } : {}) }))
        : [];
    const { circuit, change } = afterAttempt(before, attempt, window, at);
    if (!change) return;
    let incident = before.incident_id;
    if (change === "opened") {
      const { failures, codes } = tripped(window, at);
      incident = this.sql
        .exec<{ id: number }>(
          "INSERT INTO incidents (upstream_model, started_at, ended_at, failures, codes) VALUES (?, ?, NULL, ?, ?) RETURNING id",
          route,
          at,
          failures,
          JSON.stringify(codes),
        )
        .one().id;
    } else if (change === "reopened" && incident !== null) {
      const row = this.sql
        .exec<{ failures: number; codes: string }>("SELECT failures, codes FROM incidents WHERE id = ?", incident)
        .toArray()[0];
      if (row) {
        const codes = JSON.parse(row.codes) as Record<string, number>;
        const code = attempt.code ?? "unknown";
        codes[code] = (codes[code] ?? 0) + 1;
        this.sql.exec(
          "UPDATE incidents SET failures = ?, codes = ? WHERE id = ?",
          row.failures + 1,
          JSON.stringify(codes),
          incident,
        );
      }
    } else if (change === "closed") {
      if (incident !== null) this.sql.exec("UPDATE incidents SET ended_at = ? WHERE id = ?", at, incident);
      incident = null;
      // A closed circuit starts counting afresh: the failures that opened it are the incident's.
      this.sql.exec("DELETE FROM attempts WHERE upstream_model = ? AND at <= ?", route, at);
    }
    this.saveCircuit(route, { ...circuit, incident_id: incident });
  }

  /** Adds the outcome to its route's minute. */
  /** Adds the outcome to its route's minute, read from storage the first time this report meets it. */
  private countInto(minutes: Map<string, { route: string; minute: number; w: WindowStats }>, o: RouteOutcome): void {
    const minute = Math.floor(o.at / MINUTE);
    const key = `${minute} ${o.upstream_model}`;
    let entry = minutes.get(key);
    if (!entry) {
      const row = this.sql
        .exec<MinuteRow>("SELECT * FROM minutes WHERE upstream_model = ? AND minute = ?", o.upstream_model, minute)
        .toArray()[0];
      entry = {
        route: o.upstream_model,
        minute,
        w: row ? { ...row, durations: JSON.parse(row.durations) as number[] } : emptyWindow(),
      };
      minutes.set(key, entry);
    }
    countOutcome(entry.w, o);
  }

  private saveMinute(route: string, minute: number, w: WindowStats): void {
    this.sql.exec(
      `INSERT OR REPLACE INTO minutes (upstream_model, minute, accepted, refused, request_refused, poll_errors, completed,
        failed, output_failed, submit_ms, first_progress, first_progress_ms, durations) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      route,
      minute,
      w.accepted,
      w.refused,
      w.request_refused,
      w.poll_errors,
      w.completed,
      w.failed,
      w.output_failed,
      w.submit_ms,
      w.first_progress,
      w.first_progress_ms,
      JSON.stringify(w.durations),
    );
  }

  /** A task is about to submit on `route`: whether it may (closed, or it is the half-open probe). */
  claimProbe(route: string, taskId: string, now = this.clock()): { granted: boolean; snapshot: ProviderSnapshot } {
    const before = this.circuit(route);
    const { circuit, granted } = claimProbe(before, taskId, now);
    if (circuit !== before) this.saveCircuit(route, { ...circuit, incident_id: before.incident_id });
    return { granted, snapshot: this.snapshot(now) };
  }

  /** Every route's circuit and measured durations (the last hour), for the isolates' caches. */
  snapshot(now = this.clock()): ProviderSnapshot {
    const routes: Record<string, RouteSnapshot> = {};
    const hour = this.windowsSince(now - 60 * MINUTE);
    const names = new Set([...this.circuits.keys(), ...hour.keys()]);
    for (const route of names) {
      const c = this.circuit(route);
      const state = stateAt(c, now);
      const h = hour.get(route)?.durations ?? emptyHistogram();
      routes[route] = {
        state,
        retry_at: state === "closed" ? null : c.retry_at,
        p50_ms: quantile(h, 0.5),
        p95_ms: quantile(h, 0.95),
      };
    }
    return { provider: this.provider, at: now, routes };
  }

  private windowsSince(since: number): Map<string, WindowStats> {
    const out = new Map<string, WindowStats>();
    for (const row of this.sql.exec<MinuteRow>("SELECT * FROM minutes WHERE minute >= ?", Math.floor(since / MINUTE))) {
      const w = out.get(row.upstream_model) ?? emptyWindow();
      addWindow(w, { ...row, durations: JSON.parse(row.durations) as number[] });
      out.set(row.upstream_model, w);
    }
    return out;
  }

  /** Everything /v1/status shows of this provider. */
  status(now = this.clock()): ProviderStatus {
    const rows = this.sql
      .exec<MinuteRow>("SELECT * FROM minutes WHERE minute >= ?", Math.floor((now - DAY) / MINUTE) + 1)
      .toArray();
    const byRoute = new Map<string, RouteStatus>();
    const currentHour = Math.floor(now / (60 * MINUTE));
    const route = (name: string): RouteStatus => {
      let r = byRoute.get(name);
      if (!r) {
        const c = this.circuit(name);
        const state = stateAt(c, now);
        r = {
          upstream_model: name,
          state,
          retry_at: state === "closed" ? null : c.retry_at,
          windows: { "5m": emptyWindow(), "1h": emptyWindow(), "24h": emptyWindow() },
          hourly: Array.from({ length: 24 }, () => ({ completed: 0, failed: 0 })),
        };
        byRoute.set(name, r);
      }
      return r;
    };
    for (const name of this.circuits.keys()) route(name);
    for (const row of rows) {
      const r = route(row.upstream_model);
      const w: WindowStats = { ...row, durations: JSON.parse(row.durations) as number[] };
      const age = now - row.minute * MINUTE;
      addWindow(r.windows["24h"], w);
      if (age < 60 * MINUTE) addWindow(r.windows["1h"], w);
      if (age < 5 * MINUTE) addWindow(r.windows["5m"], w);
      const slot = 23 - (currentHour - Math.floor((row.minute * MINUTE) / (60 * MINUTE)));
      const h = r.hourly[slot];
      if (h) {
        h.completed += w.completed;
        h.failed += w.failed;
      }
    }
    const incidents = this.sql
      .exec<Omit<Incident, "provider" | "codes"> & { codes: string }>("SELECT * FROM incidents ORDER BY id DESC LIMIT 10")
      .toArray()
      .map((i) => ({ ...i, provider: this.provider, codes: JSON.parse(i.codes) as Record<string, number> }));
    return { provider: this.provider, at: now, routes: [...byRoute.values()], incidents };
  }
}
