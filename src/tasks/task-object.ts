import { DurableObject } from "cloudflare:workers";
import { accountFor } from "../accounts/service";
import { attemptDelivery, RETRY_SCHEDULE_MS } from "../callbacks/delivery";
import { usageLines } from "../catalog/pricing";
import type { Env } from "../env";
import type { ErrorCode } from "../errors/codes";
import { dec, fmt } from "../lib/decimal";
import { policyFrom } from "../lib/url-policy";
import { artifactId, putArtifact } from "../media/artifacts";
import { adapterFor } from "../providers/registry";
import { ProviderError, type ProviderJob, type ProviderResult } from "../providers/types";
import { type Envelope, emptyUsage, envelope, type TaskError, type TaskPlan, type TaskRecord, TERMINAL } from "./record";

/** How long a crashed admission keeps its Idempotency-Key before another request may take it. */
export const ADMISSION_LEASE_MS = 30_000;
const POLL_DELAYS_MS = [250, 500, 1000, 2000, 3000, 5000, 10000, 15000];
const FETCH_ATTEMPTS = 3;
const FETCH_RETRY_MS = 1000;

export type CreateResult =
  | { kind: "created"; envelope: Envelope }
  | { kind: "replay"; envelope: Envelope }
  | { kind: "in_progress" }
  | { kind: "conflict" }
  | { kind: "refused"; code: "insufficient_balance" | "tenant_disabled"; balance: string; required: string };

export type CancelResult = { kind: "not_found" } | { kind: "ok"; envelope: Envelope } | { kind: "conflict"; envelope: Envelope };

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

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.taskId = `task_${ctx.id.toString()}`;
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS admission (
        id INTEGER PRIMARY KEY CHECK (id = 1), tenant_id TEXT NOT NULL, request_hash TEXT NOT NULL,
        state TEXT NOT NULL, lease_until INTEGER NOT NULL, epoch INTEGER NOT NULL DEFAULT 1);
      CREATE TABLE IF NOT EXISTS drills (point TEXT PRIMARY KEY, at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS task (id INTEGER PRIMARY KEY CHECK (id = 1), record TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, kind TEXT NOT NULL, detail TEXT);
    `);
  }

  // ---------------------------------------------------------------- storage

  private admission(): Admission | null {
    return (
      this.sql.exec<Admission & Record<string, string | number>>("SELECT * FROM admission WHERE id = 1").toArray()[0] ?? null
    );
  }

  private load(): TaskRecord | null {
    const row = this.sql.exec<{ record: string }>("SELECT record FROM task WHERE id = 1").toArray()[0];
    return row ? (JSON.parse(row.record) as TaskRecord) : null;
  }

  private save(rec: TaskRecord): void {
    this.sql.exec("INSERT OR REPLACE INTO task (id, record) VALUES (1, ?)", JSON.stringify(rec));
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

  /** The committed answer for this body, if there is one (so a replay needs no more work). */
  replay(requestHash: string): CreateResult | null {
    const adm = this.admission();
    if (adm?.state !== "committed") return null;
    return adm.request_hash === requestHash
      ? { kind: "replay", envelope: envelope(this.load() as TaskRecord) }
      : { kind: "conflict" };
  }

  async create(input: { request_hash: string; plan: TaskPlan }): Promise<CreateResult> {
    const { plan } = input;
    const now = Date.now();
    const adm = this.admission();
    if (adm) {
      if (adm.state === "committed") {
        if (adm.request_hash !== input.request_hash) return { kind: "conflict" };
        return { kind: "replay", envelope: envelope(this.load() as TaskRecord) };
      }
      if (adm.lease_until > now) return adm.request_hash === input.request_hash ? { kind: "in_progress" } : { kind: "conflict" };
    }
    // A crashed admission of the same request keeps its reservation for the retry to adopt.
    const epoch = adm && adm.request_hash === input.request_hash ? adm.epoch : (adm?.epoch ?? 0) + 1;
    if (adm && adm.request_hash !== input.request_hash) await this.abandonAdmission();
    this.sql.exec(
      "INSERT OR REPLACE INTO admission (id, tenant_id, request_hash, state, lease_until, epoch) VALUES (1, ?, ?, 'admitting', ?, ?)",
      plan.tenant_id,
      input.request_hash,
      now + ADMISSION_LEASE_MS,
      epoch,
    );
    // Should this object die before committing, its alarm gives the reservation back.
    await this.ctx.storage.setAlarm(now + ADMISSION_LEASE_MS);

    const account = accountFor(this.env, plan.tenant_id);
    const reservationId = `${this.taskId}:${epoch}`;
    let reserved = await account.reserve(reservationId, plan.estimate);
    if (reserved.ok && reserved.settlement.status !== "open") {
      // That reservation was already given back (the alarm cleaned up): hold a fresh one.
      this.sql.exec("UPDATE admission SET epoch = ? WHERE id = 1", epoch + 1);
      reserved = await account.reserve(`${this.taskId}:${epoch + 1}`, plan.estimate);
    }
    if (!reserved.ok) {
      this.sql.exec("DELETE FROM admission");
      await this.ctx.storage.deleteAlarm();
      return { kind: "refused", code: reserved.code, balance: reserved.balance, required: reserved.required };
    }
    this.event("reserve", { amount: plan.estimate, reservation_id: reserved.settlement.task_id });
    await this.drillBeforeCommit(plan, "reserve");

    const created = new Date(now);
    const rec: TaskRecord = {
      task_id: this.taskId,
      tenant_id: plan.tenant_id,
      capability: plan.capability,
      model: plan.model,
      resolved_model: plan.resolved_model,
      route: plan.route,
      card: plan.card,
      request: plan.request,
      input: plan.input,
      metadata: plan.metadata,
      warnings: plan.warnings,
      status: "queued",
      step: "submit",
      progress: { percent: 0, stage: "queued", message: "Waiting to start" },
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
    };
    this.ctx.storage.transactionSync(() => {
      this.save(rec);
      this.sql.exec("UPDATE admission SET state = 'committed' WHERE id = 1");
    });
    await this.ctx.storage.setAlarm(Date.now());
    await this.index(rec);
    return { kind: "created", envelope: envelope(rec) };
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
    });
  }

  // ---------------------------------------------------------------- reads

  read(tenantId: string): Envelope | null {
    const rec = this.load();
    return rec && rec.tenant_id === tenantId ? envelope(rec) : null;
  }

  /** Ids of the stored outputs, for the owner only. */
  owner(): string | null {
    return this.load()?.tenant_id ?? null;
  }

  // ---------------------------------------------------------------- cancel

  async cancel(tenantId: string, reason: string | null): Promise<CancelResult> {
    let rec = this.load();
    if (!rec || rec.tenant_id !== tenantId) return { kind: "not_found" };
    if (TERMINAL.has(rec.status)) return { kind: "ok", envelope: envelope(rec) };
    if (!rec.cancel_requested_at) {
      rec.cancel_requested_at = new Date().toISOString();
      rec.cancel_reason = reason;
      this.save(rec);
    }
    if (rec.pending_outcome) {
      // Already decided and settling: the outcome stands; report the state as it is.
      return { kind: "conflict", envelope: envelope(rec) };
    }
    if (rec.provider_handle) {
      const adapter = adapterFor(rec.route.provider);
      const answer = adapter
        ? await adapter.cancel(rec.provider_handle, this.job(rec), { env: this.env, now: Date.now() })
        : "not_cancelable";
      rec = this.load() as TaskRecord;
      if (TERMINAL.has(rec.status)) return { kind: "ok", envelope: envelope(rec) };
      if (answer !== "canceled" || rec.pending_outcome) return { kind: "conflict", envelope: envelope(rec) };
    }
    this.decide(rec, { status: "canceled" });
    await this.settle(rec);
    await this.scheduleNext();
    return { kind: "ok", envelope: envelope(this.load() as TaskRecord) };
  }

  // ---------------------------------------------------------------- execution

  override async alarm(): Promise<void> {
    const adm = this.admission();
    const rec = this.load();
    if (!rec) {
      if (adm && adm.state === "admitting" && adm.lease_until > 0 && adm.lease_until <= Date.now()) await this.abandonAdmission();
      return;
    }
    await this.advance();
    await this.scheduleNext();
  }

  private job(rec: TaskRecord): ProviderJob {
    return {
      task_id: rec.task_id,
      tenant_id: rec.tenant_id,
      capability: rec.capability,
      upstream_model: rec.route.upstream_model,
      card: rec.card,
      request: rec.request,
      metadata: rec.metadata,
    };
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
      const adapter = adapterFor(rec.route.provider);
      const ctx = { env: this.env, now };
      if (!adapter && rec.step !== "settle") {
        this.fail(rec, "model_unavailable", `Provider ${rec.route.provider} is not available.`);
        continue;
      }
      switch (rec.step) {
        case "submit": {
          rec.progress = { percent: 0, stage: "submitting", message: `Submitting to ${rec.route.provider}` };
          this.save(rec);
          this.event("provider_submit", { provider: rec.route.provider });
          let handle: NonNullable<TaskRecord["provider_handle"]>;
          try {
            handle = await adapter!.submit(this.job(rec), ctx);
          } catch (e) {
            if (this.stillCurrent(rec))
              this.fail(rec, e instanceof ProviderError ? e.code : "model_request_failed", providerMessage(e));
            continue;
          }
          if (!this.stillCurrent(rec)) {
            // Canceled while submitting: stop the job we just started rather than orphan it.
            await adapter!.cancel(handle, this.job(rec), ctx).catch(() => "not_cancelable");
            continue;
          }
          rec.provider_handle = handle;
          rec.step = "poll";
          rec.progress = { percent: 1, stage: "submitted", message: "Accepted by the provider" };
          rec.next_poll_at = now;
          this.save(rec);
          await this.drill(rec, "submit");
          continue;
        }
        case "poll": {
          if (rec.next_poll_at && rec.next_poll_at > now) return;
          let result: Awaited<ReturnType<NonNullable<typeof adapter>["poll"]>>;
          try {
            result = await adapter!.poll(rec.provider_handle!, this.job(rec), ctx);
          } catch (e) {
            if (!this.stillCurrent(rec)) continue;
            // A failed poll is not a failed job: try again later, within the deadline.
            rec.poll_attempts++;
            rec.next_poll_at = now + backoff(rec.poll_attempts);
            rec.progress = { ...rec.progress, message: `Provider status unavailable: ${providerMessage(e)}` };
            this.save(rec);
            return;
          }
          if (!this.stillCurrent(rec)) continue;
          if (result.state !== "failed" && result.state !== "queued" && rec.status === "queued") {
            // The provider has started: the task is running from now.
            rec.status = "running";
            rec.started_at = new Date(now).toISOString();
            this.save(rec);
            await this.index(rec);
          }
          if (result.state === "queued" || result.state === "running") {
            rec.poll_attempts++;
            rec.progress = { ...result.progress, percent: Math.max(rec.progress.percent, Math.min(95, result.progress.percent)) };
            rec.next_poll_at = now + (result.poll_after_ms ?? backoff(rec.poll_attempts));
            this.save(rec);
            return;
          }
          if (result.state === "failed") {
            this.fail(rec, result.error.code, result.error.message);
            continue;
          }
          rec.step = "fetch";
          rec.progress = { percent: 96, stage: "storing_outputs", message: "Storing outputs" };
          rec.next_poll_at = null;
          this.save(rec);
          continue;
        }
        case "fetch": {
          if (rec.next_poll_at && rec.next_poll_at > now) return;
          rec.fetch_attempts++;
          this.save(rec);
          try {
            const result = await adapter!.fetchResult(rec.provider_handle!, this.job(rec), ctx);
            await this.storeOutputs(rec, result);
          } catch (e) {
            if (!this.stillCurrent(rec)) continue;
            if (rec.fetch_attempts >= FETCH_ATTEMPTS) {
              this.fail(
                rec,
                "model_output_invalid",
                `The output could not be downloaded after ${FETCH_ATTEMPTS} attempts: ${providerMessage(e)}`,
              );
              continue;
            }
            rec.next_poll_at = now + FETCH_RETRY_MS * rec.fetch_attempts;
            this.save(rec);
            return;
          }
          continue;
        }
        case "settle":
          await this.settle(rec);
          continue;
        case "done":
          return;
      }
    }
  }

  private async storeOutputs(rec: TaskRecord, result: ProviderResult): Promise<void> {
    const files = [];
    for (const out of result.outputs) {
      const id = await artifactId(rec.task_id, out.index, out.kind);
      await putArtifact(this.env.ARTIFACTS, id, out.bytes, {
        tenant_id: rec.tenant_id,
        task_id: rec.task_id,
        content_type: out.content_type,
      });
      files.push({
        artifact_id: id,
        url: `${rec.origin}/v1/artifacts/${id}`,
        content_type: out.content_type,
        bytes: out.bytes.byteLength,
        index: out.index,
        ...(out.width !== undefined ? { width: out.width, height: out.height } : {}),
        ...(out.duration_seconds !== undefined ? { duration_seconds: out.duration_seconds } : {}),
      });
    }
    const usage = emptyUsage();
    for (const [k, v] of Object.entries(result.usage)) if (k in usage && k !== "lines" && k !== "credits") (usage as any)[k] = v;
    usage.lines = usageLines(rec.pricing, result.usage);
    usage.credits = fmt(usage.lines.reduce((acc, l) => acc.plus(l.billed_amount_credits), dec(0)));
    rec.usage = usage;
    rec.output = {
      ...(files.some((f) => f.content_type.startsWith("image/"))
        ? { images: files.filter((f) => f.content_type.startsWith("image/")) }
        : {}),
      artifacts: files,
      ...(result.text !== undefined ? { text: result.text } : {}),
      provider: { name: rec.route.provider, model: rec.route.upstream_model, ...(result.metadata ?? {}) },
    };
    this.event("outputs_stored", { count: files.length });
    if (this.stillCurrent(rec)) {
      this.decide(rec, { status: "succeeded" });
      await this.drill(rec, "store");
    }
  }

  /** Captures (success) or releases (anything else) at the account, then shows the outcome. */
  private async settle(rec: TaskRecord): Promise<void> {
    const outcome = rec.pending_outcome;
    if (!outcome) return;
    const account = accountFor(this.env, rec.tenant_id);
    const settlement =
      outcome.status === "succeeded"
        ? await account.capture(rec.reservation_id, rec.usage.credits)
        : await account.release(rec.reservation_id);
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
  }

  private async deliverCallbackIfDue(rec: TaskRecord, now: number): Promise<void> {
    const cb = rec.callback;
    if (!cb || cb.status === "delivered" || cb.status === "failed") return;
    if (cb.next_attempt_at !== null && cb.next_attempt_at > now) return;
    let secret: string | undefined;
    if (cb.signing_key_id) {
      const key = await accountFor(this.env, rec.tenant_id).signingKey(cb.signing_key_id);
      secret = key?.secret;
    }
    // Count the attempt before making it: a crash mid-attempt still shows it was tried.
    cb.attempt_count++;
    cb.status = "delivering";
    cb.next_attempt_at = null;
    this.save(rec);
    await this.drill(rec, "callback");
    const body = JSON.stringify(envelopeForCallback(rec));
    this.event("callback_attempt", { attempt: cb.attempt_count, message_id: cb.message_id });
    const outcome = await attemptDelivery({
      url: cb.url,
      messageId: cb.message_id,
      body,
      secret,
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
      at = rec.step === "poll" || rec.step === "fetch" ? (rec.next_poll_at ?? Date.now()) : Date.now();
      at = Math.min(at, Date.parse(rec.deadline_at));
    } else if (rec.callback && (rec.callback.status === "pending" || rec.callback.status === "delivering")) {
      at = rec.callback.next_attempt_at ?? Date.now();
    }
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }
}

/** The envelope a callback carries is the final envelope; its own callback state shows the attempt. */
function envelopeForCallback(rec: TaskRecord): Envelope {
  return envelope(rec);
}

function backoff(attempt: number): number {
  return POLL_DELAYS_MS[Math.min(attempt - 1, POLL_DELAYS_MS.length - 1)] as number;
}

/** Provider wording, kept but made safe: no credentials, signed URLs or control characters, bounded length. */
export function providerMessage(e: unknown): string {
  const raw = e instanceof Error ? e.message : String(e);
  return (
    raw
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
      .replace(/[\u0000-\u001f\u007f]/g, " ")
      .replace(/\b(sk|key|token|bearer)[-_ ]?[A-Za-z0-9_-]{12,}/gi, "$1_[redacted]")
      .replace(/([?&](?:sig|signature|token|x-amz-signature|x-goog-signature|key)=)[^&\s]+/gi, "$1[redacted]")
      .slice(0, 1000)
  );
}

export type { TaskError };
