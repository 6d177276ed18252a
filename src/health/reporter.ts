/**
 * Outcomes reach the health objects in batches: a task object records them as its steps meet them
 * and sends them at the end of its alarm's run, one call per provider; the runs of other task
 * objects in the same isolate that end while a call is out join the next one. The answer (the
 * provider's snapshot) is kept by the isolate at once (src/health/snapshot.ts). A report that fails
 * is dropped: health is a measurement, never a reason for a task to fail or wait.
 */
import type { Env } from "../env";
import type { RouteOutcome } from "./outcomes";
import { healthObject, keepSnapshot } from "./snapshot";

/** Outcomes waiting per provider, in this isolate. */
const pending = new Map<string, RouteOutcome[]>();
const inFlight = new Map<string, Promise<void>>();
/** A batch larger than this is cut (a burst in one isolate); the rest goes in the next call. */
const MAX_BATCH = 500;

export function recordOutcome(o: RouteOutcome): void {
  const list = pending.get(o.provider);
  if (list) list.push(o);
  else pending.set(o.provider, [o]);
}

async function send(env: Env, provider: string): Promise<void> {
  // One call at a time per provider: wait until none is out (one that starts meanwhile may carry ours).
  for (let busy = inFlight.get(provider); busy; busy = inFlight.get(provider)) await busy.catch(() => {});
  const batch = pending.get(provider);
  if (!batch || batch.length === 0) return;
  const sending = batch.splice(0, MAX_BATCH);
  if (batch.length === 0) pending.delete(provider);
  const call = (async () => {
    try {
      keepSnapshot(provider, await healthObject(env, provider).report(sending));
    } catch {
      // Dropped: see above.
    }
  })();
  inFlight.set(provider, call);
  try {
    await call;
  } finally {
    if (inFlight.get(provider) === call) inFlight.delete(provider);
  }
}

/** Sends what this isolate holds (or joins the call already sending it). */
export async function flushOutcomes(env: Env): Promise<void> {
  const providers = [...pending.keys()];
  if (providers.length === 0) return;
  await Promise.all(providers.map((p) => send(env, p)));
}
