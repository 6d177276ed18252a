/**
 * The task object's interpreter: it makes the outside calls the steps (src/tasks/steps) need —
 * the provider, storage of outputs, the account, the callback receiver — and carries out the
 * effects they return, in order. Every save is committed before the outside call that follows it.
 */
import { accountFor } from "../accounts/account-stub";
import type { Settlement } from "../accounts/ledger-answers";
import { reportItemEnd } from "../batches/report";
import { withDefaultDestination } from "../destinations/admission";
import { deliverItems } from "../destinations/deliver";
import { type DeliveryState, deliveryAttempted, destinationGone, pendingItems } from "../destinations/delivery";
import type { Env } from "../env";
import { flushOutcomes, taskFlushDue } from "../health/reporter";
import { healthView, mayUseRoute, routeHealth } from "../health/snapshot";
import { pollError, stepOutcomes, submitAccepted, submitRefused } from "../health/task-outcomes";
import { policyFrom } from "../lib/url-policy";
import { OutputUrlSigner } from "../media/signed-outputs";
import { configForTask } from "../provider-keys/credential";
import { providerKeyRefused } from "../provider-keys/routing";
import type { ProviderAdapter, ProviderContext } from "../providers/adapter";
import { providerContext } from "../providers/context";
import type { JobInput } from "../providers/jobs";
import { providerMessage } from "../providers/messages";
import { paceOf } from "../providers/pace";
import { redactingAdapter } from "../providers/redacting";
import { adapterFor } from "../providers/registry";
import { ProviderError, type ProviderJob } from "../providers/types";
import { expiryAfter } from "../retention/days";
import { expiredView, outputsDueAt, outputsExpired, unlistedOutputs } from "../retention/outputs";
import { type Envelope, envelope, type TaskRecord, TERMINAL } from "../task-record/record";
import { type CrashPoint, type Effect, notDue, type StepResult } from "../task-record/step-effects";
import { learnFeatures } from "../tenancy/tenant-features";
import { nextWebhookAt } from "../webhooks/delivery-rows";
import { runTaskWebhooks, webhookAccount } from "../webhooks/task-deliveries";
import { faultAt } from "./faults";
import { dropStaging, storeOutput } from "./output-storage";
import { askedFailure } from "./steps/asked";
import { nextAlarm } from "./steps/callback";
import { deliverCallbackIfDue } from "./steps/callback-delivery";
import { finalRead } from "./steps/final-read";
import { asProviderError, pastDeadline } from "./steps/outcome";
import { pollAnswered, pollFailed } from "./steps/poll";
import { routeUnhealthy } from "./steps/route-health";
import { settled } from "./steps/settle";
import { stallCancelAnswered, stallCancelFailed } from "./steps/stall";
import { beginFetch, fetchFailed, outputsStored, type StoredOutput } from "./steps/store";
import { deleteOutputs, dropUnlistedOutputs, noteStoring, stillCurrent } from "./steps/stored-outputs";
import {
  awaitLostSubmission,
  beginSubmit,
  providerMissing,
  RECONCILE_SLACK_MS,
  reconciled,
  reconcileFailed,
  submitFailed,
  submitted,
} from "./steps/submit";
import type { TaskStorage } from "./task-storage";
import { taskUsageNote } from "./usage-note";

export class TaskRunner {
  /** Signs the output URLs of this task's envelopes, keeping them for the current expiry bucket. */
  readonly outputUrls: OutputUrlSigner;
  /** Scales the waits the steps choose themselves (src/providers/pace.ts); 1 outside the provider tests. */
  private readonly pace: number;

  constructor(
    readonly env: Env,
    private readonly ctx: DurableObjectState,
    readonly store: TaskStorage,
  ) {
    this.outputUrls = new OutputUrlSigner(env);
    this.pace = paceOf(env);
  }

  // ---------------------------------------------------------------- effects

  /** Carries out a step's effects in order; returns whether the task now waits. */
  async apply(step: StepResult): Promise<boolean> {
    for (const effect of step.effects) {
      if (effect.type === "checkpoint") await this.checkpoint(effect.point, step.rec);
      else if (effect.type === "index") await this.index(effect.rec);
      else if (effect.type === "drop_staging") await dropStaging(this.env, effect.task_id);
      else this.write(effect);
    }
    return step.wait;
  }

  /** The effects that are storage writes alone (inside a transaction, say). */
  write(effect: Effect): void {
    if (effect.type === "save") this.store.save(effect.rec);
    else if (effect.type === "event") this.store.event(effect.kind, effect.detail);
    else throw new Error(`effect ${effect.type} is not a storage write`);
  }

  /** A recovery point: where a test's fault hook asks, the object crashes once here (everything before it kept). */
  async checkpoint(point: CrashPoint, task: { task_id: string; metadata: Record<string, string> }): Promise<void> {
    if (!faultAt(point, task) || !this.store.firstDrillAt(point)) return;
    await this.ctx.storage.sync();
    this.ctx.abort(`drill: crash after ${point}`);
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

  /** The envelope as clients get it (reads, creates, cancel, callbacks): output artifacts carry signed URLs. */
  async present(rec: TaskRecord): Promise<Envelope> {
    const env = envelope(rec);
    if (!env.output) return env;
    // Past its retention an output has no URL, even before the alarm has deleted it.
    const output = outputsExpired(rec.retention, Date.now()) ? expiredView(env.output) : env.output;
    return { ...env, output: await this.outputUrls.sign(output, rec.origin) };
  }

  job(rec: TaskRecord): ProviderJob {
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

  // ---------------------------------------------------------------- execution

  /** Runs steps until one has to wait; then reports what the upstreams did to route health. */
  async advance(): Promise<void> {
    try {
      await this.runSteps();
    } finally {
      if (taskFlushDue()) await flushOutcomes(this.env);
    }
  }

  private async runSteps(): Promise<void> {
    for (let guard = 0; guard < 16; guard++) {
      const rec = this.store.load();
      if (!rec) return;
      const now = Date.now();
      if (TERMINAL.has(rec.status)) {
        // Left by a crash after settlement: outputs stored for a task that did not list them.
        if (unlistedOutputs(rec).length > 0) await dropUnlistedOutputs(this.env, this.store);
        const due = outputsDueAt(rec);
        const current = due !== null && due <= now ? await deleteOutputs(this.env, this.store) : rec;
        await Promise.all([
          deliverCallbackIfDue(this, current, now),
          this.deliverWebhooks(current),
          reportItemEnd(this.env, current, () => this.present(current)),
        ]);
        return;
      }
      if (pastDeadline(rec, now)) {
        await finalRead(this, rec);
        continue;
      }
      if (rec.step === "settle") {
        await this.settle(rec);
        continue;
      }
      if (rec.step === "done") return;
      if (rec.step === "deliver") {
        if (await this.deliverStep(rec)) return;
        continue;
      }
      const raw = adapterFor(rec.route.provider);
      const config = raw ? await configForTask(this.env, raw, rec) : null;
      // A cancel (or a webhook) may have moved the task while its key was looked up: start again from what is stored.
      if (!stillCurrent(this.store, rec)) continue;
      if (!raw || !config) {
        // The provider's credential was removed after admission: another route may still serve.
        await this.apply(providerMissing(rec, now));
        continue;
      }
      // The key the route sends (the platform's, or the tenant's own) never reaches what the steps write.
      const adapter = redactingAdapter(raw, [config.apiKey]);
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
    if (notDue(rec, ctx.now)) return true;
    const job = this.job(rec);
    if (rec.submitting && !adapter.reconcile) return this.apply(awaitLostSubmission(rec, ctx.now));
    if (rec.submitting && adapter.reconcile) {
      // An earlier attempt went out and its answer was never stored (a crash, or no answer at all):
      // find that job by its tag rather than submit a second one.
      let found: Awaited<ReturnType<typeof adapter.reconcile>>;
      try {
        found = await adapter.reconcile(job, ctx, rec.submitting.at - RECONCILE_SLACK_MS);
      } catch (e) {
        if (!stillCurrent(this.store, rec)) return false;
        return this.apply(reconcileFailed(rec, e, ctx.now, this.pace));
      }
      if (!stillCurrent(this.store, rec)) return false;
      if (found) return this.apply(reconciled(rec, found, ctx.now));
    }
    if (!rec.route_uncertain && !(await mayUseRoute(this.env, rec.task_id, rec.route.provider, rec.route.upstream_model))) {
      const around = await this.routeAround(rec, ctx.now);
      if (!stillCurrent(this.store, rec)) return false;
      return this.apply(around);
    }
    // A cancel decided while route health answered stands: the stale record is never written over it.
    if (!stillCurrent(this.store, rec)) return false;
    const begun = beginSubmit(rec, { now: ctx.now, webhook: !!ctx.webhookUrl && !!adapter.adopt });
    await this.apply(begun);
    let handle: Awaited<ReturnType<typeof adapter.submit>>;
    const sentAt = Date.now();
    try {
      handle = await adapter.submit(job, ctx);
    } catch (e) {
      await this.noteKeyFault(rec, e);
      const pe = asProviderError(e);
      submitRefused(begun.rec, pe, Date.now(), askedFailure(adapter, job, ctx));
      // A wait the upstream asks for counts from its answer, not from before the call.
      if (stillCurrent(this.store, begun.rec)) await this.apply(submitFailed(begun.rec, pe, Date.now(), this.pace));
      return false;
    }
    submitAccepted(begun.rec, sentAt, Date.now());
    if (!stillCurrent(this.store, begun.rec)) {
      // Canceled while submitting: stop the job we just started rather than orphan it.
      await adapter.cancel(handle, job, ctx).catch(() => "not_cancelable");
      return false;
    }
    return this.apply(submitted(begun.rec, handle, ctx.now));
  }

  private async pollStep(rec: TaskRecord, adapter: ProviderAdapter, ctx: ProviderContext): Promise<boolean> {
    if (notDue(rec, ctx.now)) return true;
    if (rec.stall?.phase === "cancel") return this.cancelStalled(rec, adapter, ctx);
    let result: Awaited<ReturnType<typeof adapter.poll>>;
    const job = this.job(rec);
    const requested = askedFailure(adapter, job, ctx);
    try {
      result = await adapter.poll(rec.provider_handle!, job, ctx);
    } catch (e) {
      await this.noteKeyFault(rec, e);
      const pe = asProviderError(e);
      pollError(rec, pe, Date.now(), requested);
      if (!stillCurrent(this.store, rec)) return false;
      const failed = pollFailed(rec, pe, Date.now(), this.pace);
      stepOutcomes(rec, failed.rec, Date.now(), requested);
      return this.apply(failed);
    }
    // The ETA's measured median, from the isolate's kept snapshot (read first only when it has none
    // or an old one): awaited here, so that no read outlives the step that asked for it.
    const p50 =
      result.state === "queued" || result.state === "running"
        ? (await routeHealth(this.env, rec.route.provider, rec.route.upstream_model)).p50_ms
        : null;
    if (!stillCurrent(this.store, rec)) return false;
    const answered = pollAnswered(rec, result, { at: ctx.now, now: Date.now() }, p50, this.pace);
    stepOutcomes(rec, answered.rec, Date.now(), requested);
    return this.apply(answered);
  }

  /** The task's route is open (or its probe is another task's): the next route that is not, or a wait. */
  private async routeAround(rec: TaskRecord, now: number) {
    const later = rec.routes.slice(rec.route_index + 1);
    const view = await healthView(this.env, new Set(later.map((r) => r.provider)));
    const offset = later.findIndex((r) => view.route(r.provider, r.upstream_model).state !== "open");
    const own = (await healthView(this.env, [rec.route.provider])).route(rec.route.provider, rec.route.upstream_model);
    return routeUnhealthy(rec, { next: offset < 0 ? null : rec.route_index + 1 + offset, retry_at: own.retry_at, now });
  }

  /** A stalled job to move: its cancellation is asked first (src/tasks/steps/stall.ts). */
  private async cancelStalled(rec: TaskRecord, adapter: ProviderAdapter, ctx: ProviderContext): Promise<boolean> {
    let answer: "canceled" | "not_cancelable";
    try {
      answer = await adapter.cancel(rec.provider_handle!, this.job(rec), ctx);
    } catch (e) {
      if (!stillCurrent(this.store, rec)) return false;
      return this.apply(stallCancelFailed(rec, e, Date.now(), this.pace));
    }
    if (!stillCurrent(this.store, rec)) return false;
    return this.apply(stallCancelAnswered(rec, answer, adapter.cancelStops === "answer", Date.now()));
  }

  private async fetchStep(rec: TaskRecord, adapter: ProviderAdapter, ctx: ProviderContext): Promise<boolean> {
    if (notDue(rec, ctx.now)) return true;
    const begun = beginFetch(rec);
    await this.apply(begun);
    let fetching = begun.rec;
    let storing: string[] = [];
    const requested = askedFailure(adapter, this.job(fetching), ctx);
    try {
      const result = await adapter.fetchResult(fetching.provider_handle!, this.job(fetching), ctx);
      const noted = await noteStoring(this.store, fetching, result.outputs);
      if (!noted) return false;
      fetching = noted;
      storing = noted.stored_outputs ?? [];
      const files: StoredOutput[] = [];
      const expiresAt = fetching.retention ? expiryAfter(Date.now(), fetching.retention.days) : null;
      for (const out of result.outputs) files.push(await storeOutput(this.env, fetching, out, expiresAt));
      const planned = await withDefaultDestination(this.env, fetching);
      const current = stillCurrent(this.store, fetching);
      const stored = outputsStored(planned, { files, result, current });
      stepOutcomes(fetching, stored.rec, Date.now(), requested);
      await this.apply(stored);
      // A cancel (or the deadline) won while they were written, perhaps after its own deletion ran.
      if (!current) await dropUnlistedOutputs(this.env, this.store, storing);
    } catch (e) {
      await this.noteKeyFault(fetching, e);
      if (!stillCurrent(this.store, fetching)) {
        await dropUnlistedOutputs(this.env, this.store, storing);
        return false;
      }
      const failed = fetchFailed(fetching, e, Date.now(), this.pace);
      stepOutcomes(fetching, failed.rec, Date.now(), requested);
      return this.apply(failed);
    }
    return false;
  }

  /** The provider refused the tenant's own key: it is invalid from now on (its owners are mailed once). */
  private async noteKeyFault(rec: TaskRecord, e: unknown): Promise<void> {
    if (rec.route.key !== "tenant" || !(e instanceof ProviderError) || !e.keyFault) return;
    await providerKeyRefused(this.env, rec.tenant_id, rec.route.provider, providerMessage(e));
  }

  /** One attempt to write the pending outputs to the task's storage destination. */
  private async deliverStep(rec: TaskRecord): Promise<boolean> {
    // Past the deadline the last attempt is made at once (the alarm wakes at the deadline).
    if (notDue(rec, Date.now()) && Date.now() < Date.parse(rec.deadline_at)) return true;
    // One attempt at a time: another run of the alarm meanwhile waits for this one's answer.
    if (this.delivering) return true;
    this.delivering = true;
    try {
      const state = rec.delivery as DeliveryState;
      const target = await accountFor(this.env, rec.tenant_id).openStorageDestination(state.destination_id);
      if (!target) return this.apply(destinationGone(rec, Date.now()));
      const outcomes = await deliverItems(this.env, target, pendingItems(state));
      return this.apply(deliveryAttempted(this.store.load() as TaskRecord, outcomes, Date.now()));
    } finally {
      this.delivering = false;
    }
  }

  private delivering = false;

  /** Captures (success) or releases (anything else) at the account, then shows the outcome. */
  async settle(decidedRec: TaskRecord): Promise<void> {
    const outcome = decidedRec.pending_outcome;
    if (!outcome) return;
    // Outputs the decided outcome does not list go before the outcome shows: a client that reads
    // the final envelope never finds their bytes still stored.
    await dropUnlistedOutputs(this.env, this.store);
    const rec = this.store.load() as TaskRecord;
    const account = accountFor(this.env, rec.tenant_id);
    const answer =
      outcome.status === "succeeded"
        ? await account.capture(rec.reservation_id, rec.usage.credits, taskUsageNote(rec, outcome.status), true)
        : await account.release(rec.reservation_id, taskUsageNote(rec, outcome.status), true);
    // What the tenant uses, told with the settlement: the webhook fan-out that follows needs no call when it has no endpoint.
    const { features, ...settlement } = answer ?? {};
    learnFeatures(rec.tenant_id, features);
    await this.apply(settled(rec, answer ? (settlement as Settlement) : null, Date.now()));
  }

  /** The task's webhook events: fanned out to the subscribed endpoints, each attempt made when due. */
  private async deliverWebhooks(rec: TaskRecord): Promise<void> {
    await runTaskWebhooks({
      task_id: rec.task_id,
      // A test task's events go to test-mode endpoints only (src/keys/mode-scope.ts).
      mode: rec.mode ?? "live",
      sql: this.store.sql,
      account: webhookAccount(accountFor(this.env, rec.tenant_id), rec.tenant_id),
      policy: policyFrom(this.env),
      data: async () => this.present(this.store.load() as TaskRecord),
      now: () => this.clock(),
      inFlight: this.webhooksInFlight,
    });
  }

  private readonly webhooksInFlight = new Set<string>();

  /** The clock of webhook attempts: tests replace it to follow the schedule without waiting. */
  clock: () => number = () => Date.now();

  /** Re-arms the alarm for the next thing this task waits on, if any. */
  async scheduleNext(): Promise<void> {
    const rec = this.store.load();
    if (!rec) return;
    const now = Date.now();
    const task = nextAlarm(rec, now);
    const hooks = TERMINAL.has(rec.status) ? nextWebhookAt(this.store.sql, now) : null;
    // Unlisted outputs a crash left after settlement: deleted at once.
    const unlisted = TERMINAL.has(rec.status) && unlistedOutputs(rec).length > 0 ? now : null;
    const next = [task, hooks, outputsDueAt(rec), unlisted].filter((at) => at !== null);
    await this.store.setAlarm(next.length > 0 ? Math.min(...next) : null);
  }
}
