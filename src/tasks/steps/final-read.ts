/** The deadline's last look at the upstream job: stop it where the provider can, then read it once more. */

import { withDefaultDestination } from "../../destinations/admission";
import type { ErrorCode } from "../../errors/codes";
import { stepOutcomes } from "../../health/task-outcomes";
import { configForTask } from "../../provider-keys/credential";
import { providerContext } from "../../providers/context";
import { providerMessage } from "../../providers/messages";
import { redactingAdapter } from "../../providers/redacting";
import { adapterFor } from "../../providers/registry";
import { expiryAfter } from "../../retention/days";
import type { TaskRecord } from "../../task-record/record";
import { storeOutput } from "../output-storage";
import { askedFailure } from "./asked";
import { cancelsAtDeadline, type DeadlineCancel, deadlineMissed } from "./deadline";
import { asProviderError } from "./outcome";
import type { StepRunner } from "./step-runner";
import { outputsStored, type StoredOutput } from "./store";
import { dropUnlistedOutputs, noteStoring, stillCurrent } from "./stored-outputs";

/**
 * The deadline passed: stop the upstream job where the provider can, then read it one last time.
 * Cancel first, so that what the read finds is final: the job either finished (its output is
 * stored and the task succeeds, charged its usage) or did not (`model_timeout`, refunded).
 */
export async function finalRead(runner: StepRunner, rec: TaskRecord): Promise<void> {
  const raw = adapterFor(rec.route.provider);
  const config = raw ? await configForTask(runner.env, raw, rec) : null;
  const handle = rec.provider_handle;
  if (!raw || !config || !handle || rec.step === "submit") {
    await runner.apply(deadlineMissed(rec, { cancel: null, last: "no job accepted by the provider" }));
    return;
  }
  const adapter = redactingAdapter(raw, [config.apiKey]);
  const ctx = providerContext(runner.env, adapter, config, rec);
  const job = runner.job(rec);
  let cancel: DeadlineCancel = null;
  if (cancelsAtDeadline(rec)) {
    cancel = await adapter.cancel(handle, job, ctx).catch(() => "not_cancelable" as const);
    runner.store.event("provider_cancel", { reason: "deadline", answer: cancel });
  }
  let last: string;
  let code: ErrorCode | undefined;
  try {
    const polled = rec.step === "fetch" ? ({ state: "succeeded" } as const) : await adapter.poll(handle, job, ctx);
    if (polled.state === "succeeded") {
      const result = await adapter.fetchResult(handle, job, ctx);
      const noted = await noteStoring(runner.store, rec, result.outputs);
      if (!noted) return;
      rec = noted;
      const files: StoredOutput[] = [];
      const expiresAt = rec.retention ? expiryAfter(Date.now(), rec.retention.days) : null;
      for (const out of result.outputs) files.push(await storeOutput(runner.env, rec, out, expiresAt));
      const planned = await withDefaultDestination(runner.env, rec);
      const current = stillCurrent(runner.store, rec);
      const stored = outputsStored(planned, { files, result, current });
      stepOutcomes(rec, stored.rec, Date.now(), askedFailure(adapter, job, ctx));
      await runner.apply(stored);
      if (!current) await dropUnlistedOutputs(runner.env, runner.store, rec.stored_outputs);
      return;
    }
    last = polled.state === "failed" ? `the job failed: ${providerMessage(polled.error.message)}` : `the job ${polled.state}`;
    code = polled.state === "failed" ? polled.error.code : undefined;
  } catch (e) {
    const pe = asProviderError(e);
    last = `no readable answer: ${providerMessage(pe)}`;
    code = pe.code;
  }
  if (!stillCurrent(runner.store, rec)) return;
  const missed = deadlineMissed(rec, { cancel, last, code });
  // A job that never finished by its deadline counts against its route (a hung job), unless it asked to hang.
  stepOutcomes(rec, missed.rec, Date.now(), askedFailure(adapter, job, ctx));
  await runner.apply(missed);
}
