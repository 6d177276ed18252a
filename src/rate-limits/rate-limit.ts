/**
 * Per-key rate limits without a storage write, or a shared object, per request.
 *
 * Windows are fixed minutes of the clock, so every isolate agrees on them. Each isolate counts
 * its own admissions and reports them, in batches, to the key's RateCounterObject (in memory),
 * which answers with the key's total across isolates. Far from the limit an isolate decides
 * alone from the last total it heard plus what it has not reported yet; within the last
 * EXACT_SHARE of the limit every decision is taken by the counter object, one at a time.
 *
 * Accuracy (docs/scaling.md): exact when one isolate serves the key; with several, the excess is
 * at most what the other isolates admitted in the far zone since their last report (at most
 * SYNC_INTERVAL_MS of their traffic). A counter object that restarts forgets its windows: the
 * limit is a guard against runaway clients, not a quota.
 */

/** The caller's rate-limit window, reported in `X-RateLimit-*` headers. */
export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
}

export const RATE_WINDOW_MS = 60_000;
export const SYNC_INTERVAL_MS = 1_000;
export const EXACT_SHARE = 0.1;

/** What the counter object does; an RPC stub in the Worker, a plain object in unit tests. */
export interface RateCounter {
  /** Adds `report` admissions made elsewhere, then takes one more if the total stays within `limit`. */
  take(window: number, report: number, limit: number): Promise<{ allowed: boolean; total: number }>;
  /** Adds `report` admissions; returns the total. */
  add(window: number, report: number): Promise<number>;
}

interface KeyWindow {
  window: number;
  /** The key's total across isolates, as the counter last said. */
  known: number;
  /** Admitted here and not yet reported. */
  pending: number;
  lastReport: number;
  reporting: boolean;
}

export type RateDecision = RateState & { allowed: boolean };

export class RateLimiter {
  private readonly keys = new Map<string, KeyWindow>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 10_000,
  ) {}

  /** `counter` is the key's counter object (the stub comes from the request's bindings). */
  async check(
    keyId: string,
    limit: number,
    counter: () => RateCounter,
    background: (p: Promise<unknown>) => void,
  ): Promise<RateDecision> {
    const at = this.now();
    const window = Math.floor(at / RATE_WINDOW_MS);
    const reset = Math.max(1, Math.ceil(((window + 1) * RATE_WINDOW_MS - at) / 1000));
    const w = this.windowOf(keyId, window, at);
    const margin = Math.max(1, Math.ceil(limit * EXACT_SHARE));
    if (w.known + w.pending + 1 > limit - margin) {
      // Near the limit: the counter decides, with everything this isolate has admitted so far.
      const report = w.pending;
      w.pending = 0;
      try {
        const { allowed, total } = await counter().take(window, report, limit);
        if (w.window === window) {
          w.known = Math.max(w.known, total);
          w.lastReport = this.now();
        }
        return { allowed, limit, remaining: Math.max(0, limit - total), reset };
      } catch {
        // The counter is unreachable: decide here, from what this isolate knows.
        w.pending += report;
        const allowed = w.known + w.pending < limit;
        if (allowed) w.pending++;
        return { allowed, limit, remaining: Math.max(0, limit - w.known - w.pending), reset };
      }
    }
    w.pending++;
    if (at - w.lastReport >= SYNC_INTERVAL_MS && !w.reporting) background(this.report(counter, w));
    return { allowed: true, limit, remaining: Math.max(0, limit - w.known - w.pending), reset };
  }

  private windowOf(keyId: string, window: number, at: number): KeyWindow {
    let w = this.keys.get(keyId);
    if (!w || w.window !== window) {
      if (!w && this.keys.size >= this.maxKeys) {
        const oldest = this.keys.keys().next();
        if (!oldest.done) this.keys.delete(oldest.value);
      }
      w = { window, known: 0, pending: 0, lastReport: at, reporting: false };
      this.keys.set(keyId, w);
    }
    return w;
  }

  private async report(counter: () => RateCounter, w: KeyWindow): Promise<void> {
    const n = w.pending;
    if (n === 0) return;
    w.pending -= n;
    w.reporting = true;
    try {
      const total = await counter().add(w.window, n);
      w.known = Math.max(w.known, total);
    } catch {
      w.pending += n;
    } finally {
      w.reporting = false;
      w.lastReport = this.now();
    }
  }
}
