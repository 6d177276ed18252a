/**
 * The live view of a task while `generate` or `tasks wait` follows it. On a terminal, one line
 * redrawn in place: status, a bar, percent, stage and message, the time so far, and the queue
 * position and estimated time left where the task reports them (counted down between updates). Elsewhere (a pipe, a log, CI), one plain line per
 * change of status, stage, percent, message, queue position or ETA.
 */
import type { TaskUpdate } from "../types.js";

export interface Out {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const BAR = 24;

function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * The wait the task reports, where it does: its place in the provider's queue and its estimated
 * time left ("2 ahead, about 1:30 left"). `sinceMs`: how long ago the estimate arrived, taken off
 * it; an estimate under a second (one already passed) is not shown.
 */
export function describeWait(p: TaskUpdate["progress"] | undefined, sinceMs = 0): string {
  const parts: string[] = [];
  if (typeof p?.queue_position === "number") parts.push(p.queue_position === 0 ? "next in queue" : `${p.queue_position} ahead`);
  if (typeof p?.eta_seconds === "number") {
    const left = Math.ceil(p.eta_seconds - sinceMs / 1000);
    if (left >= 1) parts.push(`about ${clock(left * 1000)} left`);
  }
  return parts.join(", ");
}

export function describeUpdate(u: TaskUpdate): string {
  const p = u.progress;
  const percent = typeof p?.percent === "number" ? `${String(p.percent).padStart(3)}%` : "   ?";
  const detail = [p?.stage, p?.message].filter((x) => x && x.length > 0).join(": ");
  const wait = describeWait(p);
  return `${u.status.padEnd(9)} ${percent}${detail ? `  ${detail}` : ""}${wait ? `  (${wait})` : ""}`;
}

export class ProgressView {
  private last: TaskUpdate | undefined;
  /** When the last update arrived: its estimate counts down from then. */
  private lastAt = Date.now();
  private readonly started = Date.now();
  private timer: ReturnType<typeof setInterval> | undefined;
  private drawn = false;

  constructor(
    private readonly out: Out,
    private readonly taskId: string,
  ) {
    // The elapsed time keeps moving on a terminal even while the task says nothing new.
    if (out.isTTY) {
      this.timer = setInterval(() => this.draw(), 1000);
      this.timer.unref?.();
    }
  }

  update(u: TaskUpdate): void {
    this.last = u;
    this.lastAt = Date.now();
    if (this.out.isTTY) this.draw();
    else this.out.write(`${this.taskId}  ${describeUpdate(u)}\n`);
  }

  private draw(): void {
    const u = this.last;
    if (!u) return;
    const percent = Math.max(0, Math.min(100, u.progress?.percent ?? 0));
    const filled = Math.round((percent / 100) * BAR);
    const bar = `${"█".repeat(filled)}${"░".repeat(BAR - filled)}`;
    const detail = [u.progress?.stage, u.progress?.message, describeWait(u.progress, Date.now() - this.lastAt)]
      .filter(Boolean)
      .join(" · ");
    let line = `${u.status.padEnd(9)} ${bar} ${String(percent).padStart(3)}%  ${clock(Date.now() - this.started)}  ${detail}`;
    const width = (this.out.columns || 100) - 1;
    if (line.length > width) line = `${line.slice(0, Math.max(0, width - 1))}…`;
    this.out.write(`\r\x1b[2K${line}`);
    this.drawn = true;
  }

  /** Leaves the line as it is and moves below it. */
  stop(): void {
    clearInterval(this.timer);
    if (this.out.isTTY && this.drawn) {
      this.draw();
      this.out.write("\n");
    }
  }
}
