/**
 * Outcomes reach the health objects in batches: a task object records them as its steps meet them
 * and sends them at the end of its alarm's run (when taskFlushDue says so), one call per provider,
 * together with whatever other task objects of the same isolate recorded and had not sent yet. The answer (the
 * provider's snapshot) is kept by the isolate at once (src/health/snapshot.ts). A report that fails
 * is dropped: health is a measurement, never a reason for a task to fail or wait.
 */
import type { Env } from "../env";
import { healthObject } from "./health-stub";
import type { RouteOutcome } from "./outcomes";
import { keepSnapshot, seenClosed } from "./snapshot";

/** Outcomes waiting per provider, in this isolate. */
const pending = new Map<string, RouteOutcome[]>();
/** A batch larger than this is cut (a burst in one isolate); the rest goes in the next call. */
const MAX_BATCH = 500;

/** When this isolate last sent its outcomes. */
let lastFlushAt = 0;
/** A chat call's successes wait at most this long in the isolate before one call sends them all. */
export const CALL_FLUSH_MS = 1_000;
/** …or until this many outcomes wait. */
const CALL_FLUSH_COUNT = 200;

/**
 * Whether a synchronous call (chat) should send what this isolate holds now: always after a
 * failure (a circuit must open quickly), else at most once per CALL_FLUSH_MS or every
 * CALL_FLUSH_COUNT outcomes. A call per request would make one health object every chat call's
 * hot spot; successes lose nothing by waiting a second (each keeps its own time).
 */
export function flushDue(failed: boolean, now = Date.now()): boolean {
  if (failed || now - lastFlushAt >= CALL_FLUSH_MS) return true;
  let waiting = 0;
  for (const list of pending.values()) waiting += list.length;
  return waiting >= CALL_FLUSH_COUNT;
}

/**
 * Outcomes that decide nothing while their route's circuit is closed: a job taken, a job that
 * started. A half-open circuit waits on its probe's acceptance, so there they go at once.
 */
const ROUTINE = new Set<RouteOutcome["kind"]>(["submit_accepted", "first_progress"]);

/**
 * Whether a task object's run should send what this isolate holds now: as for a chat call, except
 * that it is also at once when anything waiting is more than routine (a failure, a completion and
 * its duration, an outcome of a route not seen closed). Under steady traffic most task steps then
 * make no call to the health object: the acceptances of a second go together.
 */
export function taskFlushDue(now = Date.now()): boolean {
  return flushDue(beyondRoutine(), now);
}

function beyondRoutine(): boolean {
  for (const list of pending.values())
    for (const o of list) if (!ROUTINE.has(o.kind) || !seenClosed(o.provider, o.upstream_model)) return true;
  return false;
}

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
  lastFlushAt = Date.now();
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
