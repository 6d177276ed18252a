/**
 * The circuit's rule as plain functions, on an injected clock: it opens at the documented
 * threshold and not before, one tenant alone never opens it, and after OPEN_MS one probe decides.
 */
import { describe, expect, it } from "vitest";
import {
  type Attempt,
  afterAttempt,
  type Circuit,
  CLOSED,
  claimProbe,
  MIN_FAILURES,
  OPEN_MS,
  PROBE_LEASE_MS,
  stateAt,
  tripped,
  WINDOW_MS,
} from "../../src/health/circuit";
import { faultOf } from "../../src/health/outcomes";

const T0 = 1_800_000_000_000;
const fail = (at: number, tenant: string): Attempt => ({ at, tenant, failed: true, code: "model_unavailable" });
const ok = (at: number, tenant: string): Attempt => ({ at, tenant, failed: false });

/** Feeds attempts one by one, as the health object does, and returns the circuit after each. */
function feed(attempts: Attempt[], start: Circuit = CLOSED) {
  let c = start;
  const seen: Attempt[] = [];
  const changes: (string | null)[] = [];
  for (const a of attempts) {
    seen.push(a);
    const next = afterAttempt(c, a, seen, a.at);
    c = next.circuit;
    changes.push(next.change);
  }
  return { circuit: c, changes };
}

describe("the circuit of a route", () => {
  it("opens at the tenth provider-side failure from two tenants within 30 s, not at the ninth", () => {
    const attempts = Array.from({ length: MIN_FAILURES }, (_, i) => fail(T0 + i * 1000, i % 2 ? "ten_a" : "ten_b"));
    const nine = feed(attempts.slice(0, 9));
    expect(nine.circuit.state).toBe("closed");
    const ten = feed(attempts);
    expect(ten.circuit.state).toBe("open");
    expect(ten.changes.at(-1)).toBe("opened");
    expect(ten.circuit.retry_at).toBe(T0 + 9000 + OPEN_MS);
  });

  it("does not open while the failures are under half of the route's attempts", () => {
    const attempts: Attempt[] = [];
    for (let i = 0; i < 11; i++) attempts.push(ok(T0 + i * 100, "ten_c"));
    for (let i = 0; i < 10; i++) attempts.push(fail(T0 + 2000 + i * 100, i % 2 ? "ten_a" : "ten_b"));
    expect(feed(attempts).circuit.state).toBe("closed");
    // One more failure makes 11 of 22: half.
    expect(feed([...attempts, fail(T0 + 4000, "ten_a")]).circuit.state).toBe("open");
  });

  it("never opens on one tenant's failures alone, however many, while others succeed", () => {
    const attempts: Attempt[] = [ok(T0, "ten_good")];
    for (let i = 0; i < 40; i++) attempts.push(fail(T0 + 100 + i * 100, "ten_bad"));
    expect(feed(attempts).circuit.state).toBe("closed");
    expect(tripped(attempts, T0 + 5000)).toMatchObject({ open: false, failures: 40 });
  });

  it("forgets failures older than the window", () => {
    const old = Array.from({ length: 9 }, (_, i) => fail(T0 + i, i % 2 ? "ten_a" : "ten_b"));
    const late = fail(T0 + WINDOW_MS + 10, "ten_a");
    expect(feed([...old, late]).circuit.state).toBe("closed");
  });

  it("is half-open after OPEN_MS: one task gets the probe, an accepted submission closes it", () => {
    const opened = feed(Array.from({ length: 10 }, (_, i) => fail(T0 + i, i % 2 ? "ten_a" : "ten_b"))).circuit;
    const at = (opened.retry_at as number) - 1;
    expect(stateAt(opened, at)).toBe("open");
    expect(claimProbe(opened, "task_1", at).granted).toBe(false);
    const retry = opened.retry_at as number;
    expect(stateAt(opened, retry)).toBe("half_open");
    const first = claimProbe(opened, "task_1", retry);
    expect(first.granted).toBe(true);
    expect(claimProbe(first.circuit, "task_2", retry + 1).granted).toBe(false);
    // A probe that never reports frees the route for another after its lease.
    expect(claimProbe(first.circuit, "task_2", retry + PROBE_LEASE_MS + 1).granted).toBe(true);
    const closed = afterAttempt(first.circuit, ok(retry + 500, "ten_c"), [], retry + 500);
    expect(closed).toEqual({ circuit: CLOSED, change: "closed" });
  });

  it("a failed probe opens it for another OPEN_MS; attempts from before the retry time change nothing", () => {
    const opened = feed(Array.from({ length: 10 }, (_, i) => fail(T0 + i, i % 2 ? "ten_a" : "ten_b"))).circuit;
    const retry = opened.retry_at as number;
    expect(afterAttempt(opened, ok(retry - 10, "ten_c"), [], retry - 10).change).toBeNull();
    const again = afterAttempt(opened, fail(retry + 200, "ten_c"), [], retry + 200);
    expect(again.change).toBe("reopened");
    expect(again.circuit.retry_at).toBe(retry + 200 + OPEN_MS);
  });
});

describe("whose fault a failure is", () => {
  it("counts the provider's failures, never the request's, nor a tenant's own key refused", () => {
    expect(faultOf({ code: "model_unavailable", upstreamStatus: 503 })).toBe("provider");
    expect(faultOf({ code: "model_request_failed" })).toBe("provider");
    expect(faultOf({ code: "model_rate_limited", upstreamStatus: 429 })).toBe("provider");
    expect(faultOf({ code: "model_request_failed", upstreamStatus: 422 })).toBe("request");
    expect(faultOf({ code: "invalid_request", upstreamStatus: 400 })).toBe("request");
    expect(faultOf({ code: "safety_rejected", upstreamStatus: 400 })).toBe("request");
    expect(faultOf({ code: "content_filtered" })).toBe("request");
    expect(faultOf({ code: "model_request_failed", upstreamStatus: 401 }, { ownKey: true })).toBe("tenant_key");
    expect(faultOf({ code: "model_request_failed", upstreamStatus: 403 }, { ownKey: true })).toBe("tenant_key");
    // An answer in an undocumented shape (an empty 200) is the provider's.
    expect(faultOf({ code: "model_request_failed", upstreamStatus: 200 })).toBe("provider");
    // The service's own key refused is the route's problem for everyone.
    expect(faultOf({ code: "model_request_failed", upstreamStatus: 401 })).toBe("provider");
  });
});
