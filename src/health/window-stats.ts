/** A route's sums over a window of minutes: added across minutes, routes and providers. */
import { addInto, bucketOf, emptyHistogram } from "./durations";
import type { RouteOutcome } from "./outcomes";

/** One route's record over a window: sums that add across routes and providers. */
export interface WindowStats {
  completed: number;
  /** Provider-side failures: refused submissions and failed jobs or outputs. */
  failed: number;
  accepted: number;
  refused: number;
  request_refused: number;
  poll_errors: number;
  output_failed: number;
  submit_ms: number;
  first_progress: number;
  first_progress_ms: number;
  durations: number[];
}

export function emptyWindow(): WindowStats {
  return {
    completed: 0,
    failed: 0,
    accepted: 0,
    refused: 0,
    request_refused: 0,
    poll_errors: 0,
    output_failed: 0,
    submit_ms: 0,
    first_progress: 0,
    first_progress_ms: 0,
    durations: emptyHistogram(),
  };
}

export function addWindow(into: WindowStats, from: WindowStats): WindowStats {
  for (const k of Object.keys(into) as (keyof WindowStats)[]) {
    if (k === "durations") addInto(into.durations, from.durations);
    else into[k] += from[k];
  }
  return into;
}

/** A stored minute of one route: its sums, the durations histogram as JSON. */
export type MinuteRow = Omit<WindowStats, "durations"> & { upstream_model: string; minute: number; durations: string };

/** Adds one outcome to its minute's sums: a failure the request caused counts as refused by the request, not the provider. */
export function countOutcome(w: WindowStats, o: RouteOutcome): void {
  const providerSide = o.fault === "provider";
  switch (o.kind) {
    case "submit_accepted":
      w.accepted++;
      w.submit_ms += Math.round(o.latency_ms ?? 0);
      break;
    case "submit_refused":
      if (providerSide) {
        w.refused++;
        w.failed++;
      } else w.request_refused++;
      break;
    case "poll_error":
      w.poll_errors++;
      break;
    case "first_progress":
      w.first_progress++;
      w.first_progress_ms += Math.round(o.duration_ms ?? 0);
      break;
    case "completed":
      w.completed++;
      w.durations[bucketOf(o.duration_ms ?? 0)] = (w.durations[bucketOf(o.duration_ms ?? 0)] ?? 0) + 1;
      break;
    case "job_failed":
    case "output_failed":
      if (!providerSide) {
        w.request_refused++;
        break;
      }
      w.failed++;
      if (o.kind === "output_failed") w.output_failed++;
      break;
  }
}
