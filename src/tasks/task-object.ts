import { DurableObject } from "cloudflare:workers";
import { accountFor } from "../accounts/account-stub";
import { redeliverOutputs } from "../destinations/redeliver";
import type { Env } from "../env";
import type { KeyMode } from "../keys/api-keys";
import { inScope, type TaskScope } from "../keys/scope";
import { sha256Hex } from "../lib/crypto";
import { configForTask } from "../provider-keys/credential";
import { providerContext } from "../providers/context";
import { adapterFor } from "../providers/registry";
import { outputsExpired } from "../retention/outputs";
import { type Envelope, type TaskError, type TaskPlan, type TaskRecord, TERMINAL } from "../task-record/record";
import type { RequeueOutcome } from "../webhooks/delivery-rows";
import { type TaskLogView, taskLogView } from "./attempts";
import { reserveAndCommit } from "./steps/commit";
import { decide } from "./steps/outcome";
import { woken } from "./steps/poll";
import { deleteOutputs } from "./steps/stored-outputs";
import { adopted } from "./steps/submit";
import type { CancelResult, CreateResult, RedeliverAnswer, TaskRead, TaskState } from "./task-answers";
import type { TaskRpc } from "./task-rpc";
import { TaskRunner } from "./task-runner";
import { type Admission, TaskStorage } from "./task-storage";
import {
  type DeliveryHolder,
  type DeliveryWithAttempts,
  deliveryWithAttempts,
  requeueDelivery,
  resendTaskDelivery,
} from "./webhook-redelivery";

export type { StoredOutput } from "./steps/store";

export type { CancelResult, CreateResult, RedeliverAnswer, TaskRead, TaskState };

/**
 * One task: addressed by name `<tenant_id>:<Idempotency-Key>`, so a repeated create lands here by
 * construction; the public task id is derived from this object's id. Stores its admission record
 * and its task record, and drives execution with its alarm. The steps (src/tasks/steps) decide;
 * this object makes their outside calls and carries out their effects. Every step is written
 * before the outside call it guards, so an alarm that runs twice or an object that restarts
 * resumes without repeating a charge, a provider submission or a callback.
 * Schema: docs/storage/task-object.md.
 */
export class TaskObject extends DurableObject<Env> implements TaskRpc {
  private readonly store: TaskStorage;
  private readonly runner: TaskRunner;
  readonly taskId: string;
  /** The admission under way in this object's memory (a crash forgets it, which is what it means). */
  private admitting: { request_hash: string; reservation_id: string | null } | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new TaskStorage(ctx);
    this.runner = new TaskRunner(env, ctx, this.store);
    this.taskId = `task_${ctx.id.toString()}`;
  }

  /** One of the task's webhook deliveries (to an endpoint, or its callback) with every attempt. */
  webhookDelivery(deliveryId: string): DeliveryWithAttempts | null {
    return deliveryWithAttempts(this.store.sql, deliveryId);
  }

  /** Sends a delivery again (same `webhook-id`): with `wait` now, else from the alarm (src/tasks/webhook-redelivery.ts). */
  resendWebhookDelivery(deliveryId: string, wait: boolean): Promise<DeliveryWithAttempts | null> {
    return resendTaskDelivery(this.store, this.deliveries, deliveryId, wait);
  }

  /** A recover: a failed delivery to an endpoint is due at `atMs`; one still pending is left alone. */
  requeueWebhookDelivery(deliveryId: string, atMs: number): Promise<RequeueOutcome | null> {
    const owner = () => {
      const rec = this.store.load();
      return rec ? { id: this.taskId, tenant_id: rec.tenant_id, mode: rec.mode } : null;
    };
    return requeueDelivery(this.env, this.deliveries, owner, deliveryId, atMs);
  }

  /** What redelivery runs here: the task's own steps (its attempts among them) and its alarm. */
  private get deliveries(): DeliveryHolder {
    return { sql: this.store.sql, deliver: () => this.runner.advance(), schedule: () => this.runner.scheduleNext() };
  }

  /** The execution log (provider submissions, settlements, callback attempts), oldest first. */
  events(): { kind: string; detail: unknown }[] {
    return this.store.events();
  }

  // ---------------------------------------------------------------- admission

  /** The stored refusal's answer to a request: the same refusal for the same body, a conflict for another. */
  private refusalAnswer(requestHash: string): CreateResult | null {
    const refused = this.store.refusal();
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
    const adm = this.store.admission();
    if (adm?.state === "committed") return this.committedAnswer(adm, input.request_hash, input.mode ?? "live");
    if (this.admitting || (adm && adm.lease_until > Date.now())) {
      const hash = this.admitting?.request_hash ?? adm?.request_hash;
      return hash === input.request_hash ? { kind: "in_progress" } : { kind: "conflict" };
    }
    this.store.sql.exec(
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
    const adm = this.store.admission();
    if (adm?.state !== "committed") return null;
    return this.committedAnswer(adm, requestHash, mode);
  }

  /**
   * A create that finds a task committed here: the task again for the same body from the same
   * mode, else a conflict. Another mode's task is only ever here when it was made before test-mode
   * tasks had names of their own (src/keys/scope.ts); it is never replayed to the other mode.
   */
  private async committedAnswer(adm: Admission, requestHash: string, mode: KeyMode): Promise<CreateResult> {
    const rec = this.store.load() as TaskRecord;
    if (adm.request_hash !== requestHash || (rec.mode ?? "live") !== mode) return { kind: "conflict" };
    return { kind: "replay", envelope: await this.runner.present(rec) };
  }

  /**
   * Admission, in two writes: the tenant's account holds the credits (and lists the task) under a
   * short lease, then this object stores the task. A crash between the two leaves only the hold,
   * which the client's retry adopts (same reservation id) or the account's alarm gives back when
   * the lease runs out and this object says it never committed (holdsReservation).
   */
  async create({ request_hash, plan_json }: { request_hash: string; plan_json: string }): Promise<CreateResult> {
    const input = { request_hash, plan: JSON.parse(plan_json) as TaskPlan };
    const refused = this.refusalAnswer(input.request_hash);
    if (refused) return refused;
    const now = Date.now();
    const adm = this.store.admission();
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
      return await reserveAndCommit(
        this.runner,
        { task_id: this.taskId, message_id: `msg_${this.ctx.id.toString()}` },
        input,
        admitting,
        now,
      );
    } finally {
      this.admitting = null;
    }
  }

  /**
   * The account asks, when an admission hold's lease runs out: `yes` when the committed task holds
   * it, `admitting` while an admission with it is still under way here, else `no` (and whether a
   * task was committed at all, under another hold).
   */
  holdsReservation(reservationId: string): { holds: "yes" | "admitting" | "no"; committed: boolean } {
    if (this.admitting?.reservation_id === reservationId) return { holds: "admitting", committed: false };
    const rec = this.store.load();
    if (!rec) return { holds: "no", committed: false };
    return { holds: rec.reservation_id === reservationId ? "yes" : "no", committed: true };
  }

  private async abandonAdmission(): Promise<void> {
    const adm = this.store.admission();
    if (adm?.state !== "admitting") return;
    await accountFor(this.env, adm.tenant_id).release(`${this.taskId}:${adm.epoch}`);
    this.store.event("admission_abandoned", { epoch: adm.epoch });
    // Keep the epoch so that the next admission holds a new reservation.
    this.store.sql.exec("UPDATE admission SET request_hash = '', lease_until = 0 WHERE id = 1");
  }

  // ---------------------------------------------------------------- reads

  /** The task as `scope` may see it: null when it is another tenant's or another key mode's. */
  private loadIn(scope: TaskScope): TaskRecord | null {
    const rec = this.store.load();
    return rec && inScope(rec, scope) ? rec : null;
  }

  async read(scope: TaskScope): Promise<Envelope | null> {
    const rec = this.loadIn(scope);
    return rec ? this.runner.present(rec) : null;
  }

  /**
   * The last answer of readJson, and what it was made from: the stored record (this instance's
   * copy of its text and of its plan) and the output URLs' expiry. The same while none changes.
   */
  private lastRead: (TaskRead & { state: string; plan: object | null; expires: string }) | null = null;

  /** The envelope as the response body, its ETag, and whether its model carries a deprecation warning. */
  async readJson(scope: TaskScope): Promise<TaskRead | null> {
    const rec = this.loadIn(scope);
    if (!rec) return null;
    const state = this.store.stateJson as string;
    // The URLs' expiry bucket, and whether the outputs have reached their end meanwhile.
    const expires = `${this.runner.outputUrls.currentExpiry()}:${outputsExpired(rec.retention, Date.now())}`;
    const last = this.lastRead;
    if (last && last.state === state && last.plan === this.store.plan && last.expires === expires) {
      const { state: _s, plan: _p, expires: _e, ...read } = last;
      return read;
    }
    const env = await this.runner.present(rec);
    const body = JSON.stringify(env);
    const read: TaskRead = {
      body,
      etag: `"${(await sha256Hex(body)).slice(0, 32)}"`,
      status: env.status,
      change_seq: rec.change_seq,
      resolved_model: env.resolved_model,
      deprecated: env.warnings.some((w) => w.code === "model_deprecated"),
    };
    this.lastRead = { ...read, state, plan: this.store.plan, expires };
    return read;
  }

  /** What following a task needs, cheaply: its status, progress and change counter (owner only). */
  readState(scope: TaskScope): TaskState | null {
    const rec = this.loadIn(scope);
    return rec ? { status: rec.status, progress: rec.progress, seq: rec.change_seq } : null;
  }

  attempts(scope: TaskScope): TaskLogView | null {
    const rec = this.loadIn(scope);
    return rec ? taskLogView(rec, this.store.timedEvents()) : null;
  }

  /**
   * Marks the owner's output `artifactId` deleted in the envelope (before its bytes go): it shows
   * `deleted: true` and no URL from then on. False when it is not one of this task's outputs.
   */
  forgetArtifact(tenantId: string, artifactId: string): boolean {
    const rec = this.store.load();
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
    if (found) this.store.save(rec);
    return found;
  }

  /**
   * `DELETE /v1/tasks/{id}/outputs`: a terminal task's outputs deleted now (src/retention), the
   * envelope kept with them shown expired; again, the same envelope. Not yet terminal: a conflict.
   */
  async deleteOutputs(scope: TaskScope): Promise<CancelResult> {
    const rec = this.loadIn(scope);
    if (!rec) return { kind: "not_found" };
    if (!TERMINAL.has(rec.status)) return { kind: "conflict", envelope: await this.runner.present(rec) };
    if (rec.retention?.expired_at) return { kind: "ok", envelope: await this.runner.present(rec) };
    const deleted = await deleteOutputs(this.env, this.store);
    await this.runner.scheduleNext();
    return { kind: "ok", envelope: await this.runner.present(deleted) };
  }

  /** Whose task this is: its tenant and its key's mode (null: no task here). */
  owner(): { tenant_id: string; mode: KeyMode } | null {
    const rec = this.store.load();
    return rec ? { tenant_id: rec.tenant_id, mode: rec.mode ?? "live" } : null;
  }

  // ---------------------------------------------------------------- cancel

  async cancel(scope: TaskScope, reason: string | null): Promise<CancelResult> {
    let rec = this.loadIn(scope);
    if (!rec) return { kind: "not_found" };
    if (TERMINAL.has(rec.status)) return { kind: "ok", envelope: await this.runner.present(rec) };
    if (!rec.cancel_requested_at) {
      this.store.cancelAsked = { at: new Date().toISOString(), reason };
      this.store.save(rec);
    }
    if (rec.pending_outcome) {
      // Already decided and settling: the outcome stands; report the state as it is.
      return { kind: "conflict", envelope: await this.runner.present(rec) };
    }
    if (rec.provider_handle) {
      const adapter = adapterFor(rec.route.provider);
      const config = adapter ? await configForTask(this.env, adapter, rec) : null;
      const answer =
        adapter && config
          ? await adapter
              .cancel(rec.provider_handle, this.runner.job(rec), providerContext(this.env, adapter, config, rec))
              .catch(() => "not_cancelable" as const)
          : "not_cancelable";
      rec = this.store.load() as TaskRecord;
      if (TERMINAL.has(rec.status)) return { kind: "ok", envelope: await this.runner.present(rec) };
      if (answer !== "canceled" || rec.pending_outcome) return { kind: "conflict", envelope: await this.runner.present(rec) };
    }
    const decided = decide(rec, { status: "canceled" });
    this.store.save(decided);
    await this.runner.settle(decided);
    await this.runner.scheduleNext();
    return { kind: "ok", envelope: await this.runner.present(this.store.load() as TaskRecord) };
  }

  // ---------------------------------------------------------------- deliver again

  /** The succeeded task's outputs written again to its storage destination (or another): one attempt now. */
  async redeliver(scope: TaskScope, destinationId: string | null): Promise<RedeliverAnswer> {
    const rec = this.loadIn(scope);
    if (!rec) return { kind: "not_found" };
    const result = await redeliverOutputs(this.env, rec, destinationId);
    if (result.kind !== "ok") return result;
    // Only `delivery` changes: what else moved meanwhile (a callback attempt) is kept.
    const fresh = this.store.load() as TaskRecord;
    this.store.save({ ...fresh, delivery: result.delivery });
    return { kind: "ok", envelope: await this.runner.present(this.store.load() as TaskRecord) };
  }

  // ---------------------------------------------------------------- execution

  override async alarm(): Promise<void> {
    // The alarm that woke this run is spent: whatever comes next is set again.
    this.store.alarmAt = undefined;
    const rec = this.store.load();
    if (!rec) {
      const adm = this.store.admission();
      if (adm && adm.state === "admitting" && adm.lease_until > 0 && adm.lease_until <= Date.now()) await this.abandonAdmission();
      return;
    }
    await this.runner.advance();
    await this.runner.scheduleNext();
  }

  /**
   * A provider's webhook said the job moved: poll now rather than at the next scheduled time.
   * It decides nothing itself, so a forged or stale one costs one early poll at most.
   */
  async wake(provider: string, jobId: string): Promise<boolean> {
    const rec = this.store.load();
    if (!rec) return false;
    if (await this.adopt(rec, provider, jobId)) return true;
    const step = woken(rec, provider, jobId, Date.now());
    if (!step) return false;
    await this.runner.apply(step);
    await this.store.setAlarm(Date.now());
    return true;
  }

  /** A webhook names the job of a submission whose answer was lost (awaitLostSubmission). */
  private async adopt(rec: TaskRecord, provider: string, jobId: string): Promise<boolean> {
    const adapter = adapterFor(provider);
    if (rec.step !== "submit" || rec.route.provider !== provider || !rec.submitting?.webhook || !adapter?.adopt) return false;
    const config = await configForTask(this.env, adapter, rec);
    if (!config) return false;
    const now = Date.now();
    const ctx = providerContext(this.env, adapter, config, rec);
    await this.runner.apply(adopted(rec, jobId, adapter.adopt(jobId, this.runner.job(rec), ctx, rec.submitting.at), now));
    await this.store.setAlarm(now);
    return true;
  }
}
