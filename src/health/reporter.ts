/**
 * Outcomes reach the health objects in batches: a task object records them as its steps meet them
 * and sends them at the end of its alarm's run, one call per provider, together with whatever
 * other task objects of the same isolate recorded and had not sent yet. The answer (the
 * provider's snapshot) is kept by the isolate at once (src/health/snapshot.ts). A report that fails
 * is dropped: health is a measurement, never a reason for a task to fail or wait.
 */
import type { Env } from "../env";
import { healthObject } from "./health-stub";
import type { RouteOutcome } from "./outcomes";
import { keepSnapshot } from "./snapshot";

/** Outcomes waiting per provider, in this isolate. */
const pending = new Map<string, RouteOutcome[]>();
/** A batch larger than this is cut (a burst in one isolate); the rest goes in the next call. */
const MAX_BATCH = 500;

export function recordOutcome(o: RouteOutcome): void {
  const list = pending.get(o.provider);
  if (list) list.push(o);
  else pending.set(o.provider, [o]);
}

/**
 * Sends what this isolate holds, whoever recorded it: one call per provider, made and awaited in
 * the caller's own context (a promise of another object's call is never awaited: the runtime
 * forbids I/O across objects). Outcomes another run is sending are not sent twice.
 */
export async function flushOutcomes(env: Env): Promise<void> {
  const calls: Promise<void>[] = [];
  for (const [provider, list] of pending) {
    const batch = list.splice(0, MAX_BATCH);
    if (list.length === 0) pending.delete(provider);
    if (batch.length === 0) continue;
    calls.push(
      (async () => {
        try {
          keepSnapshot(provider, await healthObject(env, provider).report(batch));
        } catch {
          // Dropped: see above.
        }
      })(),
    );
  }
  await Promise.all(calls);
}
