/**
 * The circuit of one route, as plain functions over its recent attempts (the health object keeps
 * them; tests drive these directly with their own clock).
 *
 * Opens when, within the last WINDOW_MS, at least MIN_FAILURES provider-side failed attempts from
 * at least MIN_TENANTS tenants make at least FAILURE_SHARE of the route's counted attempts. One
 * tenant alone never opens it, whatever its traffic. An open circuit lets nothing through for
 * OPEN_MS; then one real submission (the probe, claimed by one task for PROBE_LEASE_MS) decides:
 * accepted closes it, a provider-side failure opens it for another OPEN_MS.
 */

export const WINDOW_MS = 30_000;
export const MIN_FAILURES = 10;
export const MIN_TENANTS = 2;
export const FAILURE_SHARE = 0.5;
export const OPEN_MS = 30_000;
/** A probe that never reports back (its task crashed) frees the route for another after this. */
export const PROBE_LEASE_MS = 60_000;

/**
 * One counted attempt: a submission, accepted (`failed: false`) or refused by the provider; an
 * accepted job that later fails at the provider (its job or its outputs) is a failed attempt.
 */
export interface Attempt {
  at: number;
  tenant: string;
  failed: boolean;
  code?: string;
  /** The task that made it: the probe's own outcome decides a half-open circuit. */
  task?: string;
}

export type CircuitState = "closed" | "open" | "half_open";

export interface Circuit {
  /** Stored: closed or open (half-open is an open circuit whose retry time has come). */
  state: "closed" | "open";
  opened_at: number | null;
  retry_at: number | null;
  probe_task: string | null;
  probe_until: number | null;
}

export const CLOSED: Circuit = { state: "closed", opened_at: null, retry_at: null, probe_task: null, probe_until: null };

/** Whether these attempts (the window's) open the circuit, and what failed. */
export function tripped(
  attempts: readonly Attempt[],
  now: number,
): { open: boolean; failures: number; codes: Record<string, number> } {
  let failures = 0;
  let total = 0;
  const tenants = new Set<string>();
  const codes: Record<string, number> = {};
  for (const a of attempts) {
    if (a.at <= now - WINDOW_MS || a.at > now) continue;
    total++;
    if (!a.failed) continue;
    failures++;
    tenants.add(a.tenant);
    const code = a.code ?? "unknown";
    codes[code] = (codes[code] ?? 0) + 1;
  }
  const open = failures >= MIN_FAILURES && tenants.size >= MIN_TENANTS && failures >= FAILURE_SHARE * total;
  return { open, failures, codes };
}

/** The state a reader sees at `now`. */
export function stateAt(c: Circuit, now: number): CircuitState {
  if (c.state === "closed") return "closed";
  return c.retry_at !== null && now >= c.retry_at ? "half_open" : "open";
}

/** What one counted attempt does to the circuit: `opened`/`closed` when it changed. */
export function afterAttempt(
  c: Circuit,
  attempt: Attempt,
  window: readonly Attempt[],
  now: number,
): { circuit: Circuit; change: "opened" | "reopened" | "closed" | null } {
  if (c.state === "closed") {
    if (!attempt.failed || !tripped(window, now).open) return { circuit: c, change: null };
    return { circuit: { ...CLOSED, state: "open", opened_at: now, retry_at: now + OPEN_MS }, change: "opened" };
  }
  // Open: attempts made before the retry time (tasks admitted earlier) say nothing new; the probe's,
  // or the first made after it, decides.
  const probe = c.probe_task !== null && attempt.task === c.probe_task;
  if (!probe && c.retry_at !== null && attempt.at < c.retry_at) return { circuit: c, change: null };
  if (!attempt.failed) return { circuit: CLOSED, change: "closed" };
  return {
    circuit: { ...c, retry_at: Math.max(now, attempt.at) + OPEN_MS, probe_task: null, probe_until: null },
    change: "reopened",
  };
}

/** One task asks to make the half-open probe: granted to one task at a time; always granted when closed. */
export function claimProbe(c: Circuit, taskId: string, now: number): { circuit: Circuit; granted: boolean } {
  const state = stateAt(c, now);
  if (state === "closed") return { circuit: c, granted: true };
  if (state === "open") return { circuit: c, granted: false };
  if (c.probe_task && c.probe_task !== taskId && c.probe_until !== null && c.probe_until > now) {
    return { circuit: c, granted: false };
  }
  return { circuit: { ...c, probe_task: taskId, probe_until: now + PROBE_LEASE_MS }, granted: true };
}
