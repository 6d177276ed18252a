/**
 * An adapter whose every failure and status text has the credentials it was given cut out
 * (redactSecrets, in each encoded form), before a task step reads it: what an adapter lets
 * through of an upstream's words can then reach no envelope, event, log line, mail or webhook
 * payload with the key in it, whatever the adapter's own care.
 */

import type { ProviderAdapter } from "./adapter";
import { redactSecrets } from "./messages";
import type { PollResult } from "./types";

export function redactingAdapter(adapter: ProviderAdapter, secrets: readonly string[]): ProviderAdapter {
  const keys = secrets.filter((s) => s.length > 0);
  if (keys.length === 0) return adapter;
  const clean = (e: unknown): unknown => {
    if (e instanceof Error) {
      const message = redactSecrets(e.message, keys);
      if (message !== e.message) e.message = message;
    }
    return e;
  };
  const guarded = async <R>(call: () => Promise<R>): Promise<R> => {
    try {
      return await call();
    } catch (e) {
      throw clean(e);
    }
  };
  const cleanPoll = (r: PollResult): PollResult => {
    if (r.state === "failed") return { ...r, error: { ...r.error, message: redactSecrets(r.error.message, keys) } };
    if (r.state === "queued" || r.state === "running") {
      const message = r.progress.message;
      return {
        ...r,
        progress: message ? { ...r.progress, message: redactSecrets(message, keys) } : r.progress,
        ...(r.activity !== undefined ? { activity: redactSecrets(r.activity, keys) } : {}),
      };
    }
    return r;
  };
  // The adapter's other members (its name, flags, adopt, verifyWebhook) are read through the prototype.
  const wrapped = Object.create(adapter) as ProviderAdapter;
  wrapped.submit = (job, ctx) => guarded(() => adapter.submit(job, ctx));
  wrapped.poll = async (handle, job, ctx) => cleanPoll(await guarded(() => adapter.poll(handle, job, ctx)));
  wrapped.fetchResult = (handle, job, ctx) => guarded(() => adapter.fetchResult(handle, job, ctx));
  wrapped.cancel = (handle, job, ctx) => guarded(() => adapter.cancel(handle, job, ctx));
  if (adapter.reconcile) {
    const reconcile = adapter.reconcile.bind(adapter);
    wrapped.reconcile = (job, ctx, since) => guarded(() => reconcile(job, ctx, since));
  }
  return wrapped;
}
