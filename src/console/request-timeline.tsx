/**
 * A request's time line: the request itself, then each provider attempt, then a task's later
 * stages (storing, delivering, callbacks), as bars on one scale — a bar starts where its step
 * started (relative to the request's arrival) and is as long as it lasted. A task's attempts go on
 * after the create was answered, so the scale runs to the last step's end; one still under way runs
 * to now, faded. Plain HTML and CSS (src/console/request-style.ts).
 */
import type { Attempt, Stage } from "../services/request-log";

interface Bar {
  kind: "request" | "attempt" | "stage";
  label: string;
  detail: string;
  start: number;
  duration: number;
  outcome: string;
  open: boolean;
}

function ms(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`;
}

const STAGE_LABEL: Record<Stage["name"], string> = {
  store_outputs: "Storing outputs",
  deliver_outputs: "Delivering to the storage destination",
  deliver_callback: "Callback",
};

/** The bars of a request, its attempts and its stages, each in ms from the request's arrival. */
export function timelineBars(
  request: { created_at: string; duration_ms: number; route: string },
  attempts: Attempt[],
  now = Date.now(),
  stages: Stage[] = [],
): { bars: Bar[]; span: number } {
  const t0 = Date.parse(request.created_at);
  const bars: Bar[] = [
    {
      kind: "request",
      label: request.route,
      detail: "the request",
      start: 0,
      duration: request.duration_ms,
      outcome: "request",
      open: false,
    },
  ];
  for (const a of attempts) {
    const start = Math.max(0, Date.parse(a.started_at) - t0);
    const open = a.duration_ms === null;
    const duration = a.duration_ms ?? Math.max(0, now - t0 - start);
    const status = a.http_status === null ? "" : ` ${a.http_status}`;
    const error = a.error ? ` — ${a.error.code}: ${a.error.message}` : "";
    bars.push({
      kind: "attempt",
      label: `${a.provider} · ${a.upstream_model}`,
      detail: `${a.outcome}${status}, ${a.key} key${open ? ", still out" : ""}${error}`,
      start,
      duration,
      outcome: a.outcome,
      open,
    });
  }
  for (const s of stages) {
    const start = Math.max(0, Date.parse(s.started_at) - t0);
    const open = s.duration_ms === null;
    bars.push({
      kind: "stage",
      label: STAGE_LABEL[s.name],
      detail: `${s.outcome === "pending" ? "under way" : s.outcome}${s.error ? ` — ${s.error}` : ""}`,
      start,
      duration: s.duration_ms ?? Math.max(0, now - t0 - start),
      // A stage under way looks like an attempt still out.
      outcome: s.outcome === "pending" ? "accepted" : s.outcome,
      open,
    });
  }
  const span = Math.max(1, ...bars.map((b) => b.start + b.duration));
  return { bars, span };
}

const pct = (n: number) => `${Math.min(100, Math.max(0, n)).toFixed(2)}%`;

export function Timeline(props: {
  request: { created_at: string; duration_ms: number; route: string };
  attempts: Attempt[];
  stages?: Stage[];
}) {
  const { bars, span } = timelineBars(props.request, props.attempts, Date.now(), props.stages ?? []);
  let attempt = 0;
  let stage = 0;
  return (
    <figure class="timeline-figure">
      <ol class="timeline" aria-label="Time line">
        {bars.map((b) => (
          <li
            data-attempt={b.kind === "attempt" ? String(++attempt) : undefined}
            data-stage={b.kind === "stage" ? String(++stage) : undefined}
          >
            <span class="label">
              <strong>{b.label}</strong>
              <br />
              <span class="muted">
                {b.detail} · at {ms(b.start)} for {ms(b.duration)}
              </span>
            </span>
            <span class="track" title={`${b.label}: ${b.detail}`}>
              <span
                class={`bar outcome-${b.outcome}${b.open ? " open" : ""}`}
                style={`left: ${pct((b.start / span) * 100)}; width: ${pct((b.duration / span) * 100)}`}
              />
            </span>
          </li>
        ))}
      </ol>
      <figcaption class="timeline-scale">
        <span>0</span>
        <span>{ms(span)}</span>
      </figcaption>
    </figure>
  );
}
