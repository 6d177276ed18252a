import { describe, expect, it } from "vitest";
import { EXACT_SHARE, RATE_WINDOW_MS, type RateCounter, RateLimiter, SYNC_INTERVAL_MS } from "../../src/rate-limits/rate-limit";

/** The counter object's behaviour (src/rate-limits/rate-counter-object.ts), in memory. */
function counter(): RateCounter & { totals: Map<number, number>; calls: number } {
  const totals = new Map<number, number>();
  const c = {
    totals,
    calls: 0,
    async take(window: number, report: number, limit: number) {
      c.calls++;
      const total = (totals.get(window) ?? 0) + report;
      totals.set(window, total);
      if (total + 1 > limit) return { allowed: false, total };
      totals.set(window, total + 1);
      return { allowed: true, total: total + 1 };
    },
    async add(window: number, report: number) {
      c.calls++;
      const total = (totals.get(window) ?? 0) + report;
      totals.set(window, total);
      return total;
    },
  };
  return c;
}

function clock(start = 10 * RATE_WINDOW_MS) {
  const t = { now: start };
  return { t, now: () => t.now };
}

/** One request of key "key", its background reports kept in `pending`. */
function check(limiter: RateLimiter, c: RateCounter, limit: number, pending: Promise<unknown>[]) {
  return limiter.check(
    "key",
    limit,
    () => c,
    (p) => pending.push(p),
  );
}

async function run(limiter: RateLimiter, c: RateCounter, n: number, limit: number, pending: Promise<unknown>[]) {
  let allowed = 0;
  for (let i = 0; i < n; i++) if ((await check(limiter, c, limit, pending)).allowed) allowed++;
  return allowed;
}

describe("the rate limiter", () => {
  it("is exact in one isolate, and asks the counter only near the limit", async () => {
    const c = counter();
    const { now } = clock();
    const limiter = new RateLimiter(now);
    const pending: Promise<unknown>[] = [];
    const limit = 100;
    const seen: number[] = [];
    let allowed = 0;
    for (let i = 0; i < 130; i++) {
      const d = await check(limiter, c, limit, pending);
      if (d.allowed) allowed++;
      seen.push(d.remaining);
    }
    expect(allowed).toBe(limit);
    expect(seen.slice(0, 3)).toEqual([99, 98, 97]);
    expect(seen[99]).toBe(0);
    expect(seen.slice(100).every((r) => r === 0)).toBe(true);
    // Calls: the decisions of the last EXACT_SHARE of the limit and the refusals, not one per request.
    expect(c.calls).toBeLessThanOrEqual(Math.ceil(limit * EXACT_SHARE) + 30 + 1);
  });

  it("reports the seconds to the end of the clock's minute, and starts afresh in the next one", async () => {
    const c = counter();
    const { t, now } = clock(10 * RATE_WINDOW_MS + 45_000);
    const limiter = new RateLimiter(now);
    const pending: Promise<unknown>[] = [];
    expect(await run(limiter, c, 5, 3, pending)).toBe(3);
    const refused = await limiter.check(
      "key",
      3,
      () => c,
      () => {},
    );
    expect(refused).toMatchObject({ allowed: false, remaining: 0, reset: 15 });
    t.now += 15_000;
    expect(await run(limiter, c, 5, 3, pending)).toBe(3);
  });

  it("across isolates admits at most the limit plus what the others admitted since their last report", async () => {
    const c = counter();
    const { t, now } = clock();
    const isolates = [new RateLimiter(now), new RateLimiter(now), new RateLimiter(now)];
    const pending: Promise<unknown>[] = [];
    const limit = 300;
    let allowed = 0;
    // Round-robin traffic, 10 requests per isolate per 100 ms, for a minute.
    for (let step = 0; step < 600 && t.now < 11 * RATE_WINDOW_MS; step++) {
      for (const l of isolates) {
        for (let i = 0; i < 10; i++) {
          const d = await check(l, c, limit, pending);
          if (d.allowed) allowed++;
        }
      }
      await Promise.all(pending.splice(0));
      t.now += 100;
    }
    const perIsolatePerSync = 10 * (SYNC_INTERVAL_MS / 100);
    expect(allowed).toBeGreaterThanOrEqual(limit);
    expect(allowed).toBeLessThanOrEqual(limit + (isolates.length - 1) * perIsolatePerSync);
  });

  it("decides alone when the counter cannot be reached, from what the isolate knows", async () => {
    const { now } = clock();
    const limiter = new RateLimiter(now);
    const down: RateCounter = {
      take: () => Promise.reject(new Error("unreachable")),
      add: () => Promise.reject(new Error("unreachable")),
    };
    const pending: Promise<unknown>[] = [];
    expect(await run(limiter, down, 20, 10, pending)).toBe(10);
    await Promise.allSettled(pending);
  });
});
