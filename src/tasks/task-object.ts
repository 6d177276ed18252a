import { DurableObject } from "cloudflare:workers";
import type { KeyMode } from "../accounts/api-keys";
import { accountFor } from "../accounts/service";
import { attemptDelivery, RETRY_SCHEDULE_MS } from "../callbacks/delivery";
import { usageLines } from "../catalog/pricing";
import type { Env } from "../env";
import type { ErrorCode } from "../errors/codes";
import { sha256Hex } from "../lib/crypto";
import { dec, fmt } from "../lib/decimal";
import { policyFrom } from "../lib/url-policy";
import { artifactId, artifactKey, putArtifact } from "../media/artifacts";
import { type ProbedMedia, probeMedia } from "../media/probe";
import { OutputUrlSigner } from "../media/signed-outputs";
import { configFor, providerContext } from "../providers/context";
import { DownloadError, downloadToR2, OUTPUT_CAP_BYTES } from "../providers/download";
import type { JobInput } from "../providers/jobs";
import { providerMessage } from "../providers/messages";
import { adapterFor } from "../providers/registry";
import {
  type PollResult,
  type Progress,
  type ProviderAdapter,
  type ProviderContext,
  ProviderError,
  type ProviderHandle,
  type ProviderJob,
  type ProviderOutput,
  type ProviderResult,
  SAFETY_CODES,
} from "../providers/types";
import { migratedSql } from "../storage/migrations";
import {
  type Envelope,
  emptyUsage,
  envelope,
  type TaskError,
  type TaskPlan,
  type TaskRecord,
  type TaskStatus,
  TERMINAL,
} from "./record";
import { RECORD_VERSION, upgradeRecord } from "./record-versions";
import { inScope, type TaskScope } from "./scope";
import { TASK_BASELINE, TASK_MIGRATIONS } from "./task-schema";
import { taskUsageNote } from "./usage-note";

/** How long an admission's hold on credits lasts unless the task commits (the account then keeps it). */
export const ADMISSION_LEASE_MS = 30_000;
/** Fresh holds tried when earlier ones of the same request were already given back. */
const RESERVE_GENERATIONS = 5;
const POLL_DELAYS_MS = [250, 500, 1000, 2000, 3000, 5000, 10000, 15000];
const FETCH_ATTEMPTS = 3;
const FETCH_RETRY_MS = 1000;
/** Attempts on one route before the task moves to the model's next route. */
const SUBMIT_ATTEMPTS_PER_ROUTE = 3;
/** A route that asks to wait longer than this is treated as failing now. */
const MAX_SUBMIT_WAIT_MS = 60_000;
/** Consecutive status answers in an undocumented shape before the task gives up on the job. */
const MALFORMED_POLLS = 5;
/** Clock difference allowed when looking for an earlier submission. */
const RECONCILE_SLACK_MS = 60_000;
/** The record's fields fixed at admission: stored apart (`task.plan`), read once per object. */
type PlanField = "card" | "routes" | "route_pricing" | "pricing" | "request" | "input" | "metadata" | "warnings";

/** Frozen so that a step changing a shared plan value fails loudly instead of changing it for all. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** How long a lost submission waits for the upstream's webhook to name its job. */
const ADOPT_WINDOW_MS = 30 * 60_000;

export type CreateResult =
  | { kind: "created"; envelope: Envelope }
  | { kind: "replay"; envelope: Envelope }
  | { kind: "in_progress" }
  | { kind: "conflict" }
  | { kind: "refused"; code: "insufficient_balance" | "tenant_disabled"; balance: string; required: string }
  /** Refused by content review before anything was reserved; `recorded` on the first refusal only. */
  | { kind: "rejected"; error: TaskError; recorded: boolean };

export type CancelResult = { kind: "not_found" } | { kind: "ok"; envelope: Envelope } | { kind: "conflict"; envelope: Envelope };

/** `GET /v1/tasks/{id}`'s answer, made by the object: the body as sent and its strong ETag. */
export interface TaskRead {
  body: string;
  etag: string;
  status: TaskStatus;
  change_seq: number;
  resolved_model: string;
  deprecated: boolean;
}

/** What a client following the task sees change (src/tasks/follow.ts). */
export interface TaskState {
  status: TaskStatus;
  progress: Progress;
  /** The record's `change_seq`: raised whenever `status` or `progress` changes. */
  seq: number;
}

interface Admission {
  request_hash: string;
  state: "admitting" | "committed";
  lease_until: number;
  tenant_id: string;
  /** Each admission attempt holds its own reservation (`<task_id>:<epoch>`). */
  epoch: number;
}

/** Points where a drill may crash the object (metadata `drill_crash_after`, fault injection only). */
export const CRASH_POINTS = ["reserve", "submit", "store", "capture", "callback"] as const;

/**
 * One task: addressed by name `<tenant_id>:<Idempotency-Key>`, so a repeated create lands here by
 * construction; the public task id is derived from this object's id. Stores its admission record
 * and its task record, and drives execution with its alarm. Every step is written before the
 * outside call it guards, so an alarm that runs twice or an object that restarts resumes
 * without repeating a charge, a provider submission or a callback. Schema: docs/storage/task-object.md.
 */
export class TaskObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  readonly taskId: string;
  /** The admission under way in this object's memory (a crash forgets it, which is what it means). */
  private admitting: { request_hash: string; reservation_id: string | null } | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = migratedSql(ctx, TASK_MIGRATIONS, TASK_BASELINE);
    this.taskId = `task_${ctx.id.toString()}`;
  }

  // ---------------------------------------------------------------- storage

  private admission(): Admission | null {
    return (
      this.sql.exec<Admission & Record<string, string | number>>("SELECT * FROM admission WHERE id = 1").toArray()[0] ?? null
    );
  }

  /**
   * The record's parts fixed at admission (PLAN_FIELDS), stored once in `task.plan` and kept here
   * parsed and frozen: every step reads and writes only the small rest.
   */
  private plan: Readonly<Pick<TaskRecord, PlanField>> | null = null;
  private planStored = false;

  /**
   * `task.record` as last written or read by this instance, the only writer of its storage: a
   * step reads it without a storage round trip. Dropped when a write may not have happened.
   */
  private stateJson: string | null = null;

  /** `status` and `progress` as stored, and their `change_seq`: save() raises it when they change. */
  private shown: { key: string; seq: number } | null = null;

  private load(): TaskRecord | null {
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
    return this.noteShown(upgradeRecord({ ...(JSON.parse(this.stateJson) as Record<string, unknown>), ...this.plan }));
  }

  /** Remembers what the stored record shows, when this instance does not know it yet. */
  private noteShown(rec: TaskRecord): TaskRecord {
    this.shown ??= { key: shownKey(rec), seq: rec.change_seq };
    return rec;
  }

  /**
   * A cancel asked while a step awaited an outside call: that step's copy of the record predates
   * it, and its save must not drop the request.
   */
  private cancelAsked: { at: string; reason: string | null } | null = null;

  private save(rec: TaskRecord): void {
    if (this.cancelAsked && !rec.cancel_requested_at) {
      rec.cancel_requested_at = this.cancelAsked.at;
      rec.cancel_reason = this.cancelAsked.reason;
    }
    // Never below what is stored (a step may save an older copy), and one more when what shows changed.
    const shown = shownKey(rec);
    if (this.shown) rec.change_seq = Math.max(rec.change_seq, this.shown.seq) + (this.shown.key === shown ? 0 : 1);
    const { card, routes, route_pricing, pricing, request, input, metadata, warnings, ...state } = rec;
    const json = JSON.stringify(state);
    this.stateJson = null;
    if (!this.planStored) {
      const plan = { card, routes, route_pricing, pricing, request, input, metadata, warnings };
      this.sql.exec("INSERT OR REPLACE INTO task (id, record, plan) VALUES (1, ?, ?)", json, JSON.stringify(plan));
      this.plan = deepFreeze(structuredClone(plan));
      this.planStored = true;
    } else {
      this.sql.exec("UPDATE task SET record = ? WHERE id = 1", json);
    }
    this.stateJson = json;
    this.shown = { key: shown, seq: rec.change_seq };
  }

  /** A transaction whose rollback also drops what this instance remembers of the rows. */
  private inTransaction(write: () => void): void {
    try {
      this.ctx.storage.transactionSync(write);
    } catch (e) {
      this.stateJson = null;
      this.plan = null;
      this.planStored = false;
      throw e;
    }
  }

  /** The alarm as this instance last set it (undefined: not known), so an unchanged one is not written again. */
  private alarmAt: number | null | undefined = undefined;

  private async setAlarm(at: number | null): Promise<void> {
    if (at !== null && at === this.alarmAt) return;
    this.alarmAt = at;
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }

  private event(kind: string, detail?: unknown): void {
    this.sql.exec(
      "INSERT INTO events (at, kind, detail) VALUES (?, ?, ?)",
      new Date().toISOString(),
      kind,
      detail === undefined ? null : JSON.stringify(detail),
    );
  }

  /** The execution log (provider submissions, settlements, callback attempts), oldest first. */
  events(): { kind: string; detail: unknown }[] {
    return this.sql
      .exec<{ kind: string; detail: string | null }>("SELECT kind, detail FROM events ORDER BY seq")
      .toArray()
      .map((e) => ({ kind: e.kind, detail: e.detail ? JSON.parse(e.detail) : null }));
  }

  // ---------------------------------------------------------------- admission

  /** The refusal this key answered at admission, if any (src/safety/admission.ts). */
  private refusal(): { request_hash: string; error: TaskError } | null {
    const row = this.sql
      .exec<{ request_hash: string; error: string }>("SELECT request_hash, error FROM refusal WHERE id = 1")
      .toArray()[0];
    return row ? { request_hash: row.request_hash, error: JSON.parse(row.error) as TaskError } : null;
  }

  /** The stored refusal's answer to a request: the same refusal for the same body, a conflict for another. */
  private refusalAnswer(requestHash: string): CreateResult | null {
    const refused = this.refusal();
    if (!refused) return null;
    return refused.request_hash === requestHash
      ? { kind: "rejected", error: refused.error, recorded: false }
      : { kind: "conflict" };
  }

  /**
   * Content review refused this request: kept against the key, so that the same body keeps
   * getting the same refusal (without another review) and another body a conflict. A key that
   * already holds a task answers as a create would (the task again, or a conflict).
   */
  async refuse(input: { request_hash: string; tenant_id: string; mode?: KeyMode; error: TaskError }): Promise<CreateResult> {
    const earlier = this.refusalAnswer(input.request_hash);
    if (earlier) return earlier;
    const adm = this.admission();
    if (adm?.state === "committed") return this.committedAnswer(adm, input.request_hash, input.mode ?? "live");
    if (this.admitting || (adm && adm.lease_until > Date.now())) {
      const hash = this.admitting?.request_hash ?? adm?.request_hash;
      return hash === input.request_hash ? { kind: "in_progress" } : { kind: "conflict" };
    }
    this.sql.exec(
      "INSERT INTO refusal (id, tenant_id, request_hash, error, at) VALUES (1, ?, ?, ?, ?)",
      input.tenant_id,
      input.request_hash,
      JSON.stringify(input.error),
      new Date().toISOString(),
    );
    return { kind: "rejected", error: input.error, recorded: true };
  }

  /** The committed answer for this body, if there is one (so a replay needs no more work). */
  async replay(requestHash: string, mode: KeyMode = "live"): Promise<CreateResult | null> {
    const refused = this.refusalAnswer(requestHash);
    if (refused) return refused;
    const adm = this.admission();
    if (adm?.state !== "committed") return null;
    return this.committedAnswer(adm, requestHash, mode);
  }

  /**
   * A create that finds a task committed here: the task again for the same body from the same
   * mode, else a conflict. Another mode's task is only ever here when it was made before test-mode
   * tasks had names of their own (src/tasks/scope.ts); it is never replayed to the other mode.
   */
  private async committedAnswer(adm: Admission, requestHash: string, mode: KeyMode): Promise<CreateResult> {
    const rec = this.load() as TaskRecord;
    if (adm.request_hash !== requestHash || (rec.mode ?? "live") !== mode) return { kind: "conflict" };
    return { kind: "replay", envelope: await this.present(rec) };
  }

  /**
   * Admission, in two writes: the tenant's account holds the credits (and lists the task) under a
   * short lease, then this object stores the task. A crash between the two leaves only the hold,
   * which the client's retry adopts (same reservation id) or the account's alarm gives back when
   * the lease runs out and this object says it never committed (holdsReservation).
   */
  async create(input: { request_hash: string; plan: TaskPlan }): Promise<CreateResult> {
    const refused = this.refusalAnswer(input.request_hash);
    if (refused) return refused;
    const now = Date.now();
    const adm = this.admission();
    if (adm) {
      if (adm.state === "committed") return this.committedAnswer(adm, input.request_hash, input.plan.mode);
      // An admission row written by an earlier version of this object, still within its lease.
      if (adm.lease_until > now) return adm.request_hash === input.request_hash ? { kind: "in_progress" } : { kind: "conflict" };
      await this.abandonAdmission();
    }
    if (this.admitting)
      return this.admitting.request_hash === input.request_hash ? { kind: "in_progress" } : { kind: "conflict" };
    const admitting: { request_hash: string; reservation_id: string | null } = {
      request_hash: input.request_hash,
      reservation_id: null,
    };
    this.admitting = admitting;
    try {
      return await this.admit(input, admitting, now);
    } finally {
      this.admitting = null;
    }
  }

  private async admit(
    input: { request_hash: string; plan: TaskPlan },
    admitting: { reservation_id: string | null },
    now: number,
  ): Promise<CreateResult> {
    const { plan } = input;
    const account = accountFor(this.env, plan.tenant_id);
    const index = {
      task_id: this.taskId,
      created_at: new Date(now).toISOString(),
      status: "queued",
      capability: plan.capability,
      model: plan.resolved_model,
      mode: plan.mode,
    };
    // The hold is named by this task and this body, so only a retry of the same request adopts it;
    // one the account already gave back (lease over) is followed by a fresh one.
    let reserved: Awaited<ReturnType<typeof account.reserve>> | null = null;
    for (let n = 1; n <= RESERVE_GENERATIONS; n++) {
      admitting.reservation_id = `${this.taskId}:${input.request_hash.slice(0, 16)}:${n}`;
      reserved = await account.reserve(admitting.reservation_id, plan.estimate, { lease_ms: ADMISSION_LEASE_MS, index });
      if (!reserved.ok || reserved.settlement.status === "open") break;
    }
    if (!reserved?.ok) {
      if (reserved) return { kind: "refused", code: reserved.code, balance: reserved.balance, required: reserved.required };
      throw new Error("no reservation could be held");
    }
    if (reserved.settlement.status !== "open") throw new Error("every reservation generation was already settled");
    await this.drillBeforeCommit(plan, "reserve");

    const created = new Date(now);
    const rec: TaskRecord = {
      record_version: RECORD_VERSION,
      task_id: this.taskId,
      tenant_id: plan.tenant_id,
      capability: plan.capability,
      model: plan.model,
      resolved_model: plan.resolved_model,
      route: plan.route,
      routes: plan.routes,
      mode: plan.mode,
      card: plan.card,
      request: plan.request,
      input: plan.input,
      metadata: plan.metadata,
      warnings: plan.warnings,
      status: "queued",
      step: "submit",
      progress: { percent: 0, stage: "queued", message: "Waiting to start" },
      change_seq: 1,
      output: null,
      error: null,
      usage: emptyUsage(),
      pricing: plan.pricing,
      billing: { reserved: reserved.settlement.reserved, captured: "0", refunded: "0", settled: false },
      reservation_id: reserved.settlement.task_id,
      pending_outcome: null,
      callback: plan.callback
        ? {
            url: plan.callback.url,
            signing_key_id: plan.callback.signing_key_id,
            status: "pending",
            attempt_count: 0,
            delivered_at: null,
            last_error: null,
            next_attempt_at: null,
            message_id: `msg_${this.ctx.id.toString()}`,
          }
        : null,
      provider_handle: null,
      route_pricing: plan.route_pricing,
      route_index: 0,
      submit_attempts: 0,
      submitting: null,
      route_uncertain: false,
      route_failures: [],
      malformed_polls: 0,
      poll_attempts: 0,
      fetch_attempts: 0,
      next_poll_at: null,
      created_at: created.toISOString(),
      started_at: null,
      deadline_at: new Date(now + plan.deadline_seconds * 1000).toISOString(),
      completed_at: null,
      cancel_requested_at: null,
      cancel_reason: null,
      origin: plan.origin,
      request_id: plan.request_id,
      safety: plan.safety ?? null,
    };
    this.inTransaction(() => {
      this.save(rec);
      this.sql.exec(
        "INSERT OR REPLACE INTO admission (id, tenant_id, request_hash, state, lease_until, epoch) VALUES (1, ?, ?, 'committed', 0, 1)",
        plan.tenant_id,
        input.request_hash,
      );
      this.event("reserve", { amount: plan.estimate, reservation_id: reserved.settlement.task_id });
    });
    await this.setAlarm(Date.now());
    return { kind: "created", envelope: await this.present(rec) };
  }

  /**
   * The account asks, when an admission hold's lease runs out: `yes` when the committed task holds
   * it, `admitting` while an admission with it is still under way here, else `no` (and whether a
   * task was committed at all, under another hold).
   */
  holdsReservation(reservationId: string): { holds: "yes" | "admitting" | "no"; committed: boolean } {
    if (this.admitting?.reservation_id === reservationId) return { holds: "admitting", committed: false };
    const rec = this.load();
    if (!rec) return { holds: "no", committed: false };
    return { holds: rec.reservation_id === reservationId ? "yes" : "no", committed: true };
  }

  private async abandonAdmission(): Promise<void> {
    const adm = this.admission();
    if (adm?.state !== "admitting") return;
    await accountFor(this.env, adm.tenant_id).release(`${this.taskId}:${adm.epoch}`);
    this.event("admission_abandoned", { epoch: adm.epoch });
    // Keep the epoch so that the next admission holds a new reservation.
    this.sql.exec("UPDATE admission SET request_hash = '', lease_until = 0 WHERE id = 1");
  }

  private faultsEnabled(): boolean {
    return this.env.SANDBOX_FAULT_INJECTION === "true";
  }

  /** A drill: crash this object once at `point` (persisting everything first), as a real failure would. */
  private async drill(rec: TaskRecord, point: (typeof CRASH_POINTS)[number]): Promise<void> {
    if (!this.faultsEnabled() || rec.metadata.drill_crash_after !== point) return;
    if (this.sql.exec("SELECT point FROM drills WHERE point = ?", point).toArray().length > 0) return;
    this.sql.exec("INSERT INTO drills (point, at) VALUES (?, ?)", point, new Date().toISOString());
    await this.ctx.storage.sync();
    this.ctx.abort(`drill: crash after ${point}`);
  }

  private async drillBeforeCommit(plan: TaskPlan, point: "reserve"): Promise<void> {
    await this.drill({ metadata: plan.metadata } as TaskRecord, point);
  }

  private async index(rec: TaskRecord): Promise<void> {
    await accountFor(this.env, rec.tenant_id).indexTask({
      task_id: rec.task_id,
      created_at: rec.created_at,
      status: rec.status,
      capability: rec.capability,
      model: rec.resolved_model,
      mode: rec.mode ?? "live",
    });
  }

  // ---------------------------------------------------------------- reads

  /** Signs the output URLs of this task's envelopes, keeping them for the current expiry bucket. */
  private readonly outputUrls = new OutputUrlSigner(this.env);

  /** The envelope as clients get it (reads, creates, cancel, callbacks): output artifacts carry signed URLs. */
  private async present(rec: TaskRecord): Promise<Envelope> {
    const env = envelope(rec);
    return env.output ? { ...env, output: await this.outputUrls.sign(env.output, rec.origin) } : env;
  }

  /** The task as `scope` may see it: null when it is another tenant's or another key mode's. */
  private loadIn(scope: TaskScope): TaskRecord | null {
    const rec = this.load();
    return rec && inScope(rec, scope) ? rec : null;
  }

  async read(scope: TaskScope): Promise<Envelope | null> {
    const rec = this.loadIn(scope);
    return rec ? this.present(rec) : null;
  }

  /**
   * The last answer of readJson, and what it was made from: the stored record (this instance's
   * copy of its text and of its plan) and the output URLs' expiry. The same while none changes.
   */
  private lastRead: (TaskRead & { state: string; plan: object | null; expires: number }) | null = null;

  /** The envelope as the response body, its ETag, and whether its model carries a deprecation warning. */
  async readJson(scope: TaskScope): Promise<TaskRead | null> {
    const rec = this.loadIn(scope);
    if (!rec) return null;
    const state = this.stateJson as string;
    const expires = this.outputUrls.currentExpiry();
    const last = this.lastRead;
    if (last && last.state === state && last.plan === this.plan && last.expires === expires) {
      const { state: _s, plan: _p, expires: _e, ...read } = last;
      return read;
    }
    const env = await this.present(rec);
    const body = JSON.stringify(env);
    const read: TaskRead = {
      body,
      etag: `"${(await sha256Hex(body)).slice(0, 32)}"`,
      status: env.status,
      change_seq: rec.change_seq,
      resolved_model: env.resolved_model,
      deprecated: env.warnings.some((w) => w.code === "model_deprecated"),
    };
    this.lastRead = { ...read, state, plan: this.plan, expires };
    return read;
  }

  /** What following a task needs, cheaply: its status, progress and change counter (owner only). */
  readState(scope: TaskScope): TaskState | null {
    const rec = this.loadIn(scope);
    return rec ? { status: rec.status, progress: rec.progress, seq: rec.change_seq } : null;
  }

  /**
   * Marks the owner's output `artifactId` deleted in the envelope (before its bytes go): it shows
   * `deleted: true` and no URL from then on. False when it is not one of this task's outputs.
   */
  forgetArtifact(tenantId: string, artifactId: string): boolean {
    const rec = this.load();
    if (!rec || rec.tenant_id !== tenantId || !rec.output) return false;
    const output = rec.output;
    let found = false;
    for (const list of ["images", "artifacts"] as const) {
      const entries = output[list];
      if (!Array.isArray(entries)) continue;
      output[list] = entries.map((a: Record<string, unknown>) => {
        if (a.artifact_id !== artifactId) return a;
        found = true;
        const { url: _url, ...kept } = a;
        return { ...kept, deleted: true };
      });
    }
    if (found) this.save(rec);
    return found;
  }

  /** Whose task this is: its tenant and its key's mode (null: no task here). */
  owner(): { tenant_id: string; mode: KeyMode } | null {
    const rec = this.load();
    return rec ? { tenant_id: rec.tenant_id, mode: rec.mode ?? "live" } : null;
  }

  // ---------------------------------------------------------------- cancel

  async cancel(scope: TaskScope, reason: string | null): Promise<CancelResult> {
    let rec = this.loadIn(scope);
    if (!rec) return { kind: "not_found" };
    if (TERMINAL.has(rec.status)) return { kind: "ok", envelope: await this.present(rec) };
    if (!rec.cancel_requested_at) {
      this.cancelAsked = { at: new Date().toISOString(), reason };
      this.save(rec);
    }
    if (rec.pending_outcome) {
      // Already decided and settling: the outcome stands; report the state as it is.
      return { kind: "conflict", envelope: await this.present(rec) };
    }
    if (rec.provider_handle) {
      const adapter = adapterFor(rec.route.provider);
      const config = adapter ? configFor(this.env, adapter) : null;
      const answer =
        adapter && config
          ? await adapter
              .cancel(rec.provider_handle, this.job(rec), providerContext(this.env, adapter, config, rec))
              .catch(() => "not_cancelable" as const)
          : "not_cancelable";
      rec = this.load() as TaskRecord;
      if (TERMINAL.has(rec.status)) return { kind: "ok", envelope: await this.present(rec) };
      if (answer !== "canceled" || rec.pending_outcome) return { kind: "conflict", envelope: await this.present(rec) };
    }
    this.decide(rec, { status: "canceled" });
    await this.settle(rec);
    await this.scheduleNext();
    return { kind: "ok", envelope: await this.present(this.load() as TaskRecord) };
  }

  // ---------------------------------------------------------------- execution

  override async alarm(): Promise<void> {
    // The alarm that woke this run is spent: whatever comes next is set again.
    this.alarmAt = undefined;
    const rec = this.load();
    if (!rec) {
      const adm = this.admission();
      if (adm && adm.state === "admitting" && adm.lease_until > 0 && adm.lease_until <= Date.now()) await this.abandonAdmission();
      return;
    }
    await this.advance();
    await this.scheduleNext();
  }

  /**
   * A provider's webhook said the job moved: poll now rather than at the next scheduled time.
   * It decides nothing itself, so a forged or stale one costs one early poll at most.
   */
  async wake(provider: string, jobId: string): Promise<boolean> {
    const rec = this.load();
    if (rec && (await this.adopt(rec, provider, jobId))) return true;
    if (rec?.step !== "poll" || rec.route.provider !== provider || rec.provider_handle?.job_id !== jobId) return false;
    this.event("provider_webhook", { provider, job_id: jobId });
    rec.next_poll_at = Date.now();
    this.save(rec);
    await this.setAlarm(Date.now());
    return true;
  }

  /** A webhook names the job of a submission whose answer was lost (awaitLostSubmission). */
  private async adopt(rec: TaskRecord, provider: string, jobId: string): Promise<boolean> {
    const adapter = adapterFor(provider);
    if (rec.step !== "submit" || rec.route.provider !== provider || !rec.submitting?.webhook || !adapter?.adopt) return false;
    const config = configFor(this.env, adapter);
    if (!config) return false;
    const now = Date.now();
    const ctx = providerContext(this.env, adapter, config, rec);
    this.event("provider_adopted", { provider, job_id: jobId });
    this.accept(rec, adapter.adopt(jobId, this.job(rec), ctx, rec.submitting.at), now);
    await this.setAlarm(now);
    return true;
  }

  private job(rec: TaskRecord): ProviderJob {
    const { inputs = [], ...request } = rec.request as { inputs?: JobInput[] } & Record<string, unknown>;
    return {
      task_id: rec.task_id,
      tenant_id: rec.tenant_id,
      capability: rec.capability,
      model: rec.resolved_model,
      upstream_model: rec.route.upstream_model,
      card: rec.card,
      // Built by the capability's operation at admission (src/operations), so it has that capability's shape.
      request,
      inputs,
      metadata: rec.metadata,
    } as unknown as ProviderJob;
  }

  /**
   * Other requests (a cancel) may run while a step awaits an outside call: a step only writes
   * its result if the stored task is still where it left it.
   */
  private stillCurrent(rec: TaskRecord): boolean {
    const fresh = this.load();
    return !!fresh && fresh.step === rec.step && fresh.status === rec.status && !fresh.pending_outcome;
  }

  /** Records the outcome; `settle` then makes the ledger agree before the status shows it. */
  private decide(rec: TaskRecord, outcome: NonNullable<TaskRecord["pending_outcome"]>): void {
    rec.pending_outcome = outcome;
    rec.step = "settle";
    rec.progress = { ...rec.progress, stage: "finalizing", message: "Settling" };
    this.save(rec);
  }

  private fail(rec: TaskRecord, code: ErrorCode, message: string): void {
    this.decide(rec, { status: "failed", error: { code, message: message.slice(0, 2000) } });
  }

  /** Runs steps until one has to wait. Each step persists before its outside call. */
  private async advance(): Promise<void> {
    for (let guard = 0; guard < 16; guard++) {
      const rec = this.load();
      if (!rec) return;
      const now = Date.now();
      if (TERMINAL.has(rec.status)) {
        await this.deliverCallbackIfDue(rec, now);
        return;
      }
      if (rec.step !== "settle" && now >= Date.parse(rec.deadline_at)) {
        this.fail(rec, "model_timeout", `The task did not finish before its deadline (${rec.deadline_at}).`);
        continue;
      }
      if (rec.step === "settle") {
        await this.settle(rec);
        continue;
      }
      if (rec.step === "done") return;
      const adapter = adapterFor(rec.route.provider);
      const config = adapter ? configFor(this.env, adapter) : null;
      if (!adapter || !config) {
        // The provider's credential was removed after admission: another route may still serve.
        if (
          rec.step === "submit" &&
          this.moveToNextRoute(rec, "model_unavailable", `${rec.route.provider} is not configured.`, now)
        )
          continue;
        this.fail(rec, "model_unavailable", `Provider ${rec.route.provider} is not available on this deployment.`);
        continue;
      }
      const ctx = providerContext(this.env, adapter, config, rec);
      const wait =
        rec.step === "submit"
          ? await this.submitStep(rec, adapter, ctx)
          : rec.step === "poll"
            ? await this.pollStep(rec, adapter, ctx)
            : await this.fetchStep(rec, adapter, ctx);
      if (wait) return;
    }
  }

  /** Returns true when the task now waits (a backoff); false to run the next step at once. */
  private async submitStep(rec: TaskRecord, adapter: ProviderAdapter, ctx: ProviderContext): Promise<boolean> {
    if (rec.next_poll_at && rec.next_poll_at > ctx.now) return true;
    const job = this.job(rec);
    if (rec.submitting && !adapter.reconcile) return this.awaitLostSubmission(rec, ctx);
    if (rec.submitting && adapter.reconcile) {
      // An earlier attempt went out and its answer was never stored (a crash, or no answer at all):
      // find that job by its tag rather than submit a second one.
      let found: ProviderHandle | null;
      try {
        found = await adapter.reconcile(job, ctx, rec.submitting.at - RECONCILE_SLACK_MS);
      } catch (e) {
        if (!this.stillCurrent(rec)) return false;
        rec.next_poll_at = ctx.now + backoff(++rec.poll_attempts);
        rec.progress = {
          ...rec.progress,
          message: `Checking ${rec.route.provider} for an earlier submission: ${providerMessage(e)}`,
        };
        this.save(rec);
        return true;
      }
      if (!this.stillCurrent(rec)) return false;
      if (found) {
        this.event("provider_reconciled", { provider: rec.route.provider, job_id: found.job_id });
        this.accept(rec, found, ctx.now);
        await this.drill(rec, "submit");
        return false;
      }
    }
    rec.submit_attempts++;
    rec.submitting = { route_index: rec.route_index, at: ctx.now, webhook: !!ctx.webhookUrl && !!adapter.adopt };
    rec.progress = { percent: 0, stage: "submitting", message: `Submitting to ${rec.route.provider}` };
    this.save(rec);
    this.event("provider_submit", { provider: rec.route.provider, attempt: rec.submit_attempts });
    let handle: ProviderHandle;
    try {
      handle = await adapter.submit(job, ctx);
    } catch (e) {
      // A wait the upstream asks for counts from its answer, not from before the call.
      if (this.stillCurrent(rec)) this.submitFailed(rec, asProviderError(e), Date.now());
      return false;
    }
    if (!this.stillCurrent(rec)) {
      // Canceled while submitting: stop the job we just started rather than orphan it.
      await adapter.cancel(handle, job, ctx).catch(() => "not_cancelable");
      return false;
    }
    this.accept(rec, handle, ctx.now);
    await this.drill(rec, "submit");
    return false;
  }

  /**
   * A submission whose answer never arrived (a crash, a timeout) on an upstream that cannot be asked
   * for it: submitting again could run the job twice. Where the submission carried the task's
   * webhook URL, the upstream's signed webhook names the job (`wake` adopts it) within
   * ADOPT_WINDOW_MS; otherwise, or after that, the task fails, refunded, and may be resubmitted.
   */
  private awaitLostSubmission(rec: TaskRecord, ctx: ProviderContext): boolean {
    const submitting = rec.submitting!;
    const until = submitting.webhook ? Math.min(submitting.at + ADOPT_WINDOW_MS, Date.parse(rec.deadline_at)) : ctx.now;
    if (ctx.now < until) {
      if (rec.next_poll_at !== until) {
        rec.next_poll_at = until;
        rec.progress = {
          ...rec.progress,
          message: `Waiting for ${rec.route.provider} to report an interrupted submission`,
        };
        this.save(rec);
      }
      return true;
    }
    this.fail(
      rec,
      "model_request_failed",
      `The submission to ${rec.route.provider} was interrupted and ${rec.route.provider} cannot be asked whether it ` +
        "took it; rather than risk running it twice, the task ends and nothing is charged. Submit it again with a new Idempotency-Key.",
    );
    return false;
  }

  /** The upstream holds the job: its id is written before anything else happens. */
  private accept(rec: TaskRecord, handle: ProviderHandle, now: number): void {
    rec.provider_handle = handle;
    rec.submitting = null;
    rec.step = "poll";
    rec.progress = { percent: 1, stage: "submitted", message: `Accepted by ${rec.route.provider}` };
    rec.next_poll_at = now;
    rec.poll_attempts = 0;
    this.save(rec);
  }

  /**
   * A submission failed. Safety refusals and permanent refusals end the task. Retryable ones are
   * tried again on the same route with backoff (Retry-After honoured); when a route keeps refusing
   * (never having accepted the job), the task moves to the model's next route. A route that may
   * have accepted the job (no answer) is never left for another: that could run it twice.
   */
  private submitFailed(rec: TaskRecord, e: ProviderError, now: number): void {
    const message = providerMessage(e);
    rec.route_failures.push({ provider: rec.route.provider, code: e.code, message, at: new Date(now).toISOString() });
    if (e.accepted === "no") rec.submitting = null;
    else rec.route_uncertain = true;
    if (SAFETY_CODES.has(e.code) || !e.retryable) {
      this.fail(rec, e.code, message);
      return;
    }
    const wait = Math.max(e.retryAfterMs ?? 0, backoff(rec.submit_attempts));
    const routeExhausted = rec.submit_attempts >= SUBMIT_ATTEMPTS_PER_ROUTE || wait > MAX_SUBMIT_WAIT_MS;
    if (!routeExhausted) {
      rec.next_poll_at = now + wait;
      rec.progress = { ...rec.progress, stage: "queued", message: `Retrying ${rec.route.provider} after: ${message}` };
      this.save(rec);
      return;
    }
    if (!rec.route_uncertain && this.moveToNextRoute(rec, e.code, message, now)) return;
    this.fail(rec, e.code, message);
  }

  /** Moves to the next configured route of the same model, if there is one. */
  private moveToNextRoute(rec: TaskRecord, code: string, message: string, now: number): boolean {
    const next = rec.routes[rec.route_index + 1];
    if (!next) return false;
    this.event("provider_failover", { from: rec.route.provider, to: next.provider, code, message });
    rec.route_index++;
    rec.route = next;
    rec.submit_attempts = 0;
    rec.submitting = null;
    rec.route_uncertain = false;
    rec.next_poll_at = now;
    rec.progress = { ...rec.progress, stage: "queued", message: `Moving to ${next.provider} after: ${message}` };
    this.save(rec);
    return true;
  }

  private async pollStep(rec: TaskRecord, adapter: ProviderAdapter, ctx: ProviderContext): Promise<boolean> {
    if (rec.next_poll_at && rec.next_poll_at > ctx.now) return true;
    let result: PollResult;
    try {
      result = await adapter.poll(rec.provider_handle!, this.job(rec), ctx);
    } catch (e) {
      if (!this.stillCurrent(rec)) return false;
      const pe = asProviderError(e);
      // A failed poll is not a failed job: ask again later, within the deadline. Only an upstream
      // that keeps answering in a shape it does not document is given up on.
      rec.malformed_polls = pe.malformed ? rec.malformed_polls + 1 : 0;
      if (rec.malformed_polls >= MALFORMED_POLLS) {
        this.fail(
          rec,
          "model_request_failed",
          `${rec.route.provider} kept sending malformed status answers: ${providerMessage(pe)}`,
        );
        return false;
      }
      rec.poll_attempts++;
      rec.next_poll_at = Date.now() + Math.max(pe.retryAfterMs ?? 0, backoff(rec.poll_attempts));
      rec.progress = { ...rec.progress, message: `Provider status unavailable: ${providerMessage(pe)}` };
      this.save(rec);
      return true;
    }
    if (!this.stillCurrent(rec)) return false;
    rec.malformed_polls = 0;
    if (result.state !== "failed" && result.state !== "queued" && rec.status === "queued") {
      // The provider has started: the task is running from now.
      rec.status = "running";
      rec.started_at = new Date(ctx.now).toISOString();
      this.save(rec);
      await this.index(rec);
    }
    if (result.state === "queued" || result.state === "running") {
      rec.poll_attempts++;
      rec.progress = { ...result.progress, percent: Math.max(rec.progress.percent, Math.min(95, result.progress.percent)) };
      rec.next_poll_at = Date.now() + (result.poll_after_ms ?? backoff(rec.poll_attempts));
      this.save(rec);
      return true;
    }
    if (result.state === "failed") {
      this.fail(rec, result.error.code, providerMessage(result.error.message));
      return false;
    }
    rec.step = "fetch";
    rec.progress = { percent: 96, stage: "storing_outputs", message: "Storing outputs" };
    rec.next_poll_at = null;
    this.save(rec);
    return false;
  }

  private async fetchStep(rec: TaskRecord, adapter: ProviderAdapter, ctx: ProviderContext): Promise<boolean> {
    if (rec.next_poll_at && rec.next_poll_at > ctx.now) return true;
    rec.fetch_attempts++;
    this.save(rec);
    try {
      const result = await adapter.fetchResult(rec.provider_handle!, this.job(rec), ctx);
      await this.storeOutputs(rec, result);
    } catch (e) {
      if (!this.stillCurrent(rec)) return false;
      const pe = e instanceof ProviderError ? e : null;
      if (pe && SAFETY_CODES.has(pe.code)) {
        // A filtered output is an answer, not a failed download: refund now, never try elsewhere.
        this.fail(rec, pe.code, providerMessage(pe));
        return false;
      }
      if (rec.fetch_attempts >= FETCH_ATTEMPTS) {
        this.fail(
          rec,
          "model_output_invalid",
          `The output could not be downloaded after ${FETCH_ATTEMPTS} attempts: ${providerMessage(e)}`,
        );
        return false;
      }
      rec.next_poll_at = Date.now() + Math.max(pe?.retryAfterMs ?? 0, FETCH_RETRY_MS * rec.fetch_attempts);
      this.save(rec);
      return true;
    }
    return false;
  }

  /** Copies every output into R2 (downloading URLs under a cap), measures it, then decides success. */
  private async storeOutputs(rec: TaskRecord, result: ProviderResult): Promise<void> {
    const files: StoredOutput[] = [];
    for (const out of result.outputs) files.push(await this.storeOutput(rec, out));
    const measured = measureUsage(files, result.usage, rec.request);
    const usage = emptyUsage();
    for (const [k, v] of Object.entries(measured)) if (k in usage && k !== "lines" && k !== "credits") (usage as any)[k] = v;
    // Priced as the route that served the task prices it.
    usage.lines = usageLines(rec.route_pricing?.[rec.route_index] ?? rec.pricing, measured);
    usage.credits = fmt(usage.lines.reduce((acc, l) => acc.plus(l.billed_amount_credits), dec(0)));
    rec.usage = usage;
    const views = files.map(({ kind: _k, ...f }) => f);
    rec.output = {
      ...(files.some((f) => f.kind === "image") ? { images: views.filter((_, i) => files[i]?.kind === "image") } : {}),
      artifacts: views,
      ...(result.text !== undefined ? { text: result.text } : {}),
      provider: { name: rec.route.provider, model: rec.route.upstream_model, ...(result.metadata ?? {}) },
    };
    this.event("outputs_stored", { count: files.length });
    if (this.stillCurrent(rec)) {
      this.decide(rec, { status: "succeeded" });
      await this.drill(rec, "store");
    }
  }

  private async storeOutput(rec: TaskRecord, out: ProviderOutput): Promise<StoredOutput> {
    const id = await artifactId(rec.task_id, out.index, out.kind);
    // Provenance: an extension of this output can name the upstream job that made it.
    const meta = {
      tenant_id: rec.tenant_id,
      task_id: rec.task_id,
      // The task's key mode: a key of the other mode finds no such artifact (src/tasks/scope.ts).
      mode: rec.mode ?? "live",
      provider: rec.route.provider,
      ...(rec.provider_handle ? { upstream_job_id: rec.provider_handle.job_id } : {}),
    };
    let contentType = out.content_type ?? "application/octet-stream";
    let bytes: number;
    let facts: ProbedMedia | null = null;
    if ("bytes" in out) {
      await putArtifact(this.env.ARTIFACTS, id, out.bytes, { ...meta, content_type: contentType });
      bytes = out.bytes.byteLength;
      if (out.kind !== "text" && (out.width === undefined || out.duration_seconds === undefined)) facts = probeOrNull(out.bytes);
    } else {
      // What the bytes are decides, not what the upstream declared.
      const inspect = (data: Uint8Array): string | undefined => {
        if (out.kind === "text") return undefined;
        const probed = probeOrNull(data);
        if (!probed) throw new DownloadError(`output ${out.index} is not a readable ${out.kind} file`);
        if (probed.kind !== out.kind) throw new DownloadError(`output ${out.index} is ${probed.mime}, not ${out.kind}`);
        return probed.mime;
      };
      const got = await downloadToR2(this.env.ARTIFACTS, artifactKey(id), out, {
        policy: policyFrom(this.env),
        maxBytes: OUTPUT_CAP_BYTES[out.kind],
        contentType: out.content_type,
        customMetadata: meta,
        inspect,
      });
      bytes = got.bytes;
      facts = out.kind === "text" ? null : probeOrNull(got.probeBytes);
      contentType = facts?.mime ?? out.content_type ?? got.declaredType ?? contentType;
    }
    const width = facts?.width ?? out.width;
    const height = facts?.height ?? out.height;
    const duration = facts?.duration_seconds ?? out.duration_seconds;
    return {
      kind: out.kind,
      artifact_id: id,
      url: `${rec.origin}/v1/artifacts/${id}`,
      content_type: contentType,
      bytes,
      index: out.index,
      ...(width !== undefined && height !== undefined ? { width, height } : {}),
      ...(duration !== undefined ? { duration_seconds: duration } : {}),
    };
  }

  /** Captures (success) or releases (anything else) at the account, then shows the outcome. */
  private async settle(rec: TaskRecord): Promise<void> {
    const outcome = rec.pending_outcome;
    if (!outcome) return;
    const account = accountFor(this.env, rec.tenant_id);
    const settlement =
      outcome.status === "succeeded"
        ? await account.capture(rec.reservation_id, rec.usage.credits, taskUsageNote(rec, outcome.status))
        : await account.release(rec.reservation_id, taskUsageNote(rec, outcome.status));
    this.event(outcome.status === "succeeded" ? "capture" : "release", settlement);
    await this.drill(rec, "capture");
    const now = new Date().toISOString();
    rec.billing = {
      reserved: settlement?.reserved ?? rec.billing.reserved,
      captured: settlement?.captured ?? "0",
      refunded: settlement?.refunded ?? rec.billing.reserved,
      settled: true,
    };
    if (outcome.status !== "succeeded")
      rec.usage = { ...rec.usage, credits: "0", lines: rec.usage.lines.map((l) => ({ ...l, billed_amount_credits: "0" })) };
    else if (dec(rec.billing.captured).lt(rec.usage.credits)) rec.usage.credits = fmt(dec(rec.billing.captured));
    rec.status = outcome.status;
    rec.error = outcome.error ?? null;
    rec.step = "done";
    rec.completed_at = now;
    rec.pending_outcome = null;
    rec.progress =
      outcome.status === "succeeded"
        ? { percent: 100, stage: "completed", message: "Completed" }
        : {
            percent: rec.progress.percent,
            stage: outcome.status,
            message: outcome.status === "canceled" ? "Canceled" : (outcome.error?.message ?? "Failed"),
          };
    if (rec.callback) rec.callback.next_attempt_at = Date.now();
    this.save(rec);
    await this.index(rec);
    await this.dropStaging(rec);
  }

  /** Raw upstream answers an adapter staged (src/providers/openai/staging.ts) are not needed once settled. */
  private async dropStaging(rec: TaskRecord): Promise<void> {
    // Only a task whose handle names a kept answer has any (an orphan of a crash is the lifecycle rule's).
    if (!rec.provider_handle?.data?.staging_key) return;
    try {
      const listed = await this.env.ARTIFACTS.list({ prefix: `staging/${rec.task_id}/` });
      if (listed.objects.length > 0) await this.env.ARTIFACTS.delete(listed.objects.map((o) => o.key));
    } catch {
      // Best effort: a leftover is only storage, and the bucket's lifecycle rule removes it.
    }
  }

  private async deliverCallbackIfDue(rec: TaskRecord, now: number): Promise<void> {
    const cb = rec.callback;
    if (!cb || cb.status === "delivered" || cb.status === "failed") return;
    if (cb.next_attempt_at !== null && cb.next_attempt_at > now) return;
    let secrets: string[] | undefined;
    if (cb.signing_key_id) {
      // Two secrets while the key's rotation overlap runs: both signatures are sent.
      const key = await accountFor(this.env, rec.tenant_id).signingKey(cb.signing_key_id);
      secrets = key?.secrets;
    }
    // Count the attempt before making it: a crash mid-attempt still shows it was tried.
    cb.attempt_count++;
    cb.status = "delivering";
    cb.next_attempt_at = null;
    this.save(rec);
    await this.drill(rec, "callback");
    // The final envelope, as a read shows it (signed output URLs included); its callback state shows the attempt.
    const body = JSON.stringify(await this.present(rec));
    this.event("callback_attempt", { attempt: cb.attempt_count, message_id: cb.message_id });
    const outcome = await attemptDelivery({
      url: cb.url,
      messageId: cb.message_id,
      body,
      secrets,
      policy: policyFrom(this.env),
      nowMs: Date.now(),
    });
    const fresh = this.load() as TaskRecord;
    const c = fresh.callback as NonNullable<TaskRecord["callback"]>;
    if (outcome.kind === "delivered") {
      c.status = "delivered";
      c.delivered_at = new Date().toISOString();
      c.last_error = null;
    } else if (outcome.kind === "stop" || c.attempt_count >= RETRY_SCHEDULE_MS.length) {
      c.status = "failed";
      c.last_error = outcome.kind === "stop" ? outcome.error : `${outcome.error}; gave up after ${c.attempt_count} attempts`;
    } else {
      c.status = "pending";
      c.last_error = outcome.error;
      const scheduled = RETRY_SCHEDULE_MS[c.attempt_count] as number;
      c.next_attempt_at = Date.now() + Math.max(scheduled, outcome.retryAfterMs ?? 0);
    }
    this.save(fresh);
  }

  /** Re-arms the alarm for the next thing this task waits on, if any. */
  private async scheduleNext(): Promise<void> {
    const rec = this.load();
    if (!rec) return;
    let at: number | null = null;
    if (!TERMINAL.has(rec.status)) {
      at = rec.step === "settle" ? Date.now() : (rec.next_poll_at ?? Date.now());
      at = Math.min(at, Date.parse(rec.deadline_at));
    } else if (rec.callback && (rec.callback.status === "pending" || rec.callback.status === "delivering")) {
      at = rec.callback.next_attempt_at ?? Date.now();
    }
    await this.setAlarm(at);
  }
}

/** What a client sees change: events of GET /v1/tasks/{id}/events are counted by it (`change_seq`). */
function shownKey(rec: TaskRecord): string {
  return JSON.stringify([rec.status, rec.progress]);
}

function backoff(attempt: number): number {
  return POLL_DELAYS_MS[Math.min(Math.max(attempt, 1) - 1, POLL_DELAYS_MS.length - 1)] as number;
}

/** Anything an adapter throws, in the provider vocabulary: an unexpected error may pass, and may have reached the upstream. */
function asProviderError(e: unknown): ProviderError {
  return e instanceof ProviderError
    ? e
    : new ProviderError("model_request_failed", providerMessage(e), { retryable: true, accepted: "unknown" });
}

function probeOrNull(bytes: Uint8Array): ProbedMedia | null {
  try {
    return probeMedia(bytes, "/output");
  } catch {
    return null;
  }
}

/** An output as stored and listed in `output.artifacts`. */
export interface StoredOutput {
  kind: ProviderOutput["kind"];
  artifact_id: string;
  url: string;
  content_type: string;
  bytes: number;
  index: number;
  width?: number;
  height?: number;
  duration_seconds?: number;
}

/**
 * Usage as billed: what the upstream reported, completed by what the stored outputs measure
 * (images and their pixels, seconds of video and audio), so a price never rests on the request alone.
 */
export function measureUsage(files: StoredOutput[], reported: Record<string, number>, request: Record<string, unknown>) {
  const usage: Record<string, number> = { ...reported };
  const images = files.filter((f) => f.kind === "image");
  if (images.length > 0) {
    usage.image_count ??= images.length;
    usage.image_pixels ??= images.reduce((n, f) => n + (f.width ?? 0) * (f.height ?? 0), 0);
  }
  const seconds = (kind: StoredOutput["kind"]) =>
    files.filter((f) => f.kind === kind).reduce((n, f) => n + (f.duration_seconds ?? 0), 0);
  const video = files.filter((f) => f.kind === "video");
  if (video.length > 0 && usage.output_video_seconds === undefined) {
    const measured = Math.round(seconds("video"));
    // A clip too large to probe whole is billed at the requested duration.
    usage.output_video_seconds = measured > 0 ? measured : Number(request.duration ?? 0);
  }
  if (video.length > 0) usage.video_seconds ??= usage.output_video_seconds as number;
  if (files.some((f) => f.kind === "audio")) usage.audio_seconds ??= Math.round(seconds("audio"));
  return usage;
}
