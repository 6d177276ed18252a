/**
 * The task object's storage (schema: docs/storage/task-object.md): its admission row, its refusal,
 * its record (the plan fixed at admission kept apart) and its execution log. This instance is the
 * only writer, so it keeps what it last wrote and reads storage only for what it does not hold.
 */
import { migratedSql } from "../storage/migrations";
import { type TaskError, type TaskRecord, TERMINAL } from "../task-record/record";
import { recordEventOnce } from "../webhooks/delivery-rows";
import type { EventType } from "../webhooks/event-types";
import { upgradeRecord } from "./record-versions";
import { TASK_BASELINE, TASK_MIGRATIONS } from "./task-schema";

/** The record's fields fixed at admission: stored apart (`task.plan`), read once per object. */
type PlanField = "card" | "routes" | "route_pricing" | "pricing" | "request" | "input" | "metadata" | "warnings" | "alternates";

export interface Admission {
  request_hash: string;
  state: "admitting" | "committed";
  lease_until: number;
  tenant_id: string;
  /** Each admission attempt holds its own reservation (`<task_id>:<epoch>`). */
  epoch: number;
}

/** Frozen so that a step changing a shared plan value fails loudly instead of changing it for all. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** What a client sees change: events of GET /v1/tasks/{id}/events are counted by it (`change_seq`). */
function shownKey(rec: TaskRecord): string {
  return JSON.stringify([rec.status, rec.progress]);
}

/** A task moved to a later listed model runs on that model's card, request, routes and prices. */
function onCurrentModel(rec: TaskRecord): TaskRecord {
  const index = rec.model_index ?? 0;
  const alt = index > 0 ? rec.alternates?.[index - 1] : undefined;
  if (!alt || alt.failure) return rec;
  return {
    ...rec,
    card: alt.card,
    request: alt.request,
    routes: alt.routes,
    pricing: alt.pricing,
    route_pricing: alt.route_pricing,
  };
}

export class TaskStorage {
  readonly sql: SqlStorage;

  constructor(private readonly ctx: DurableObjectState) {
    this.sql = migratedSql(ctx, TASK_MIGRATIONS, TASK_BASELINE);
  }

  admission(): Admission | null {
    return (
      this.sql.exec<Admission & Record<string, string | number>>("SELECT * FROM admission WHERE id = 1").toArray()[0] ?? null
    );
  }

  /** The refusal this key answered at admission, if any (src/tasks/admit/safety.ts). */
  refusal(): { request_hash: string; error: TaskError } | null {
    const row = this.sql
      .exec<{ request_hash: string; error: string }>("SELECT request_hash, error FROM refusal WHERE id = 1")
      .toArray()[0];
    return row ? { request_hash: row.request_hash, error: JSON.parse(row.error) as TaskError } : null;
  }

  /**
   * The record's parts fixed at admission (PlanField), stored once in `task.plan` and kept here
   * parsed and frozen: every step reads and writes only the small rest.
   */
  plan: Readonly<Pick<TaskRecord, PlanField>> | null = null;
  private planStored = false;

  /**
   * `task.record` as last written or read by this instance: a step reads it without a storage
   * round trip. Dropped when a write may not have happened.
   */
  stateJson: string | null = null;

  /** `status` and `progress` as stored, and their `change_seq`: save() raises it when they change. */
  private shown: { key: string; seq: number } | null = null;

  /**
   * A cancel asked while a step awaited an outside call: that step's copy of the record predates
   * it, and its save must not drop the request.
   */
  cancelAsked: { at: string; reason: string | null } | null = null;

  load(): TaskRecord | null {
    if (this.stateJson === null || !this.plan) {
      // One read brings what this instance does not hold yet: the record, and the plan once.
      const row = this.sql
        .exec<{ record: string; plan: string | null }>(
          this.plan ? "SELECT record, NULL AS plan FROM task WHERE id = 1" : "SELECT record, plan FROM task WHERE id = 1",
        )
        .toArray()[0];
      if (!row) return null;
      this.stateJson = row.record;
      this.shown = null;
      // A record saved before the plan had its own column holds everything itself.
      if (row.plan === null && !this.plan) return this.noteShown(upgradeRecord(JSON.parse(row.record)));
      if (!this.plan) {
        this.plan = deepFreeze(JSON.parse(row.plan as string));
        this.planStored = true;
      }
    }
    return this.noteShown(
      onCurrentModel(upgradeRecord({ ...(JSON.parse(this.stateJson) as Record<string, unknown>), ...this.plan })),
    );
  }

  /** Remembers what the stored record shows, when this instance does not know it yet. */
  private noteShown(rec: TaskRecord): TaskRecord {
    this.shown ??= { key: shownKey(rec), seq: rec.change_seq };
    return rec;
  }

  save(rec: TaskRecord): void {
    if (this.cancelAsked && !rec.cancel_requested_at) {
      rec.cancel_requested_at = this.cancelAsked.at;
      rec.cancel_reason = this.cancelAsked.reason;
    }
    // Never below what is stored (a step may save an older copy), and one more when what shows changed.
    const shown = shownKey(rec);
    if (this.shown) rec.change_seq = Math.max(rec.change_seq, this.shown.seq) + (this.shown.key === shown ? 0 : 1);
    const { card, routes, route_pricing, pricing, request, input, metadata, warnings, alternates, ...state } = rec;
    const json = JSON.stringify(state);
    this.stateJson = null;
    if (!this.planStored) {
      // The plan is the admitted model's: a record on a later model never writes it (its overlay comes from `alternates`).
      if ((rec.model_index ?? 0) > 0) throw new Error("a task's plan is written once, on its admitted model");
      const planJson = JSON.stringify({ card, routes, route_pricing, pricing, request, input, metadata, warnings, alternates });
      this.sql.exec("INSERT OR REPLACE INTO task (id, record, plan) VALUES (1, ?, ?)", json, planJson);
      // A copy of its own (parsed back: cheaper than a structured clone), which steps cannot change.
      this.plan = deepFreeze(JSON.parse(planJson));
      this.planStored = true;
    } else {
      this.sql.exec("UPDATE task SET record = ? WHERE id = 1", json);
    }
    // The event of the terminal status is written with it: no restart can lose it.
    if (TERMINAL.has(rec.status) && !this.eventRecorded) {
      recordEventOnce(this.sql, `task.${rec.status}` as EventType, new Date().toISOString());
      this.eventRecorded = true;
    }
    this.stateJson = json;
    this.shown = { key: shown, seq: rec.change_seq };
  }

  /** Whether this instance already wrote (or found) the terminal event: later saves skip the check. */
  private eventRecorded = false;

  /** A transaction whose rollback also drops what this instance remembers of the rows. */
  inTransaction(write: () => void): void {
    try {
      this.ctx.storage.transactionSync(write);
    } catch (e) {
      this.stateJson = null;
      this.plan = null;
      this.planStored = false;
      this.eventRecorded = false;
      throw e;
    }
  }

  event(kind: string, detail?: unknown): void {
    this.sql.exec(
      "INSERT INTO events (at, kind, detail) VALUES (?, ?, ?)",
      new Date().toISOString(),
      kind,
      detail === undefined ? null : JSON.stringify(detail),
    );
  }

  /** The execution log with each event's time, oldest first. */
  timedEvents(): { at: string; kind: string; detail: unknown }[] {
    return this.sql
      .exec<{ at: string; kind: string; detail: string | null }>("SELECT at, kind, detail FROM events ORDER BY seq")
      .toArray()
      .map((e) => ({ at: e.at, kind: e.kind, detail: e.detail ? JSON.parse(e.detail) : null }));
  }

  events(): { kind: string; detail: unknown }[] {
    return this.sql
      .exec<{ kind: string; detail: string | null }>("SELECT kind, detail FROM events ORDER BY seq")
      .toArray()
      .map((e) => ({ kind: e.kind, detail: e.detail ? JSON.parse(e.detail) : null }));
  }

  /** Whether a crash drill already crashed this object at `point`; marks it done otherwise. */
  firstDrillAt(point: string): boolean {
    if (this.sql.exec("SELECT point FROM drills WHERE point = ?", point).toArray().length > 0) return false;
    this.sql.exec("INSERT INTO drills (point, at) VALUES (?, ?)", point, new Date().toISOString());
    return true;
  }

  /** The alarm as this instance last set it (undefined: not known), so an unchanged one is not written again. */
  alarmAt: number | null | undefined = undefined;

  async setAlarm(at: number | null): Promise<void> {
    if (at !== null && at === this.alarmAt) return;
    this.alarmAt = at;
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }
}
