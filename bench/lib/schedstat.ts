/**
 * The kernel's per-thread scheduler counters (`/proc/<pid>/task/<tid>/schedstat`): three numbers,
 * the time the thread has run on a CPU (ns), the time it has waited for one (ns), and how many
 * times it ran. The benchmarks read the first to charge each subject the CPU its own processes
 * spent, which a busy machine disturbs far less than it disturbs latency.
 */

/** The CPU time, in nanoseconds, of one schedstat line. */
export function schedstatCpuNs(text: string): number {
  const first = text.trim().split(/\s+/)[0] ?? "";
  if (!/^\d+$/.test(first)) throw new Error(`not a schedstat line: ${JSON.stringify(text)}`);
  return Number(first);
}

/** Milliseconds of CPU per request between two readings of the same processes (ns). */
export function cpuMsPerRequest(beforeNs: number, afterNs: number, requests: number): number {
  if (requests <= 0) throw new Error("no requests to share the CPU time among");
  return (afterNs - beforeNs) / 1e6 / requests;
}
