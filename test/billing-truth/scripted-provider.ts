/**
 * A provider whose answers a test writes in advance: the sandbox adapter, with each of its calls
 * answered from a script for the tasks created with that script's metadata (every other task gets
 * the sandbox's own answers). The test runs in the same isolate as the task objects, so the
 * adapter it wraps is the one the objects call. Each list of answers is taken in order, the last
 * one repeated; an answer is a value, an error to throw, or a function of the sandbox's own call.
 */
import { afterAll, beforeAll, vi } from "vitest";
import type { ProviderAdapter } from "../../src/providers/adapter";
import { sandboxAdapter } from "../../src/providers/sandbox/adapter";
import type { PollResult, ProviderHandle, ProviderJob, ProviderResult } from "../../src/providers/types";

export type Answer<T> = T | Error | ((real: () => Promise<T>) => Promise<T>);

export interface Script {
  submit?: Answer<ProviderHandle>[];
  poll?: Answer<PollResult>[];
  fetch?: Answer<ProviderResult>[];
  cancel?: Answer<"canceled" | "not_cancelable">[];
}

type Call = "submit" | "poll" | "fetch" | "cancel";

export interface Scripted {
  /** The metadata that puts a task under this script. */
  metadata: { provider_script: string };
  /** How many times the task object made each call. */
  calls: Record<Call, number>;
  /** Replaces the answers still to come (a test may change its mind as the task runs). */
  set(next: Script): void;
}

const scripts = new Map<string, { script: Script; calls: Record<Call, number> }>();
let n = 0;

export function script(s: Script = {}): Scripted {
  const id = `scr-${Date.now().toString(36)}-${++n}`;
  const entry = { script: { ...s }, calls: { submit: 0, poll: 0, fetch: 0, cancel: 0 } };
  scripts.set(id, entry);
  return {
    metadata: { provider_script: id },
    calls: entry.calls,
    set(next) {
      entry.script = { ...next };
    },
  };
}

function take<T>(list: Answer<T>[] | undefined, real: () => Promise<T>): Promise<T> {
  if (!list || list.length === 0) return real();
  const a = (list.length > 1 ? list.shift() : list[0]) as Answer<T>;
  if (a instanceof Error) return Promise.reject(a);
  if (typeof a === "function") return (a as (r: () => Promise<T>) => Promise<T>)(real);
  return Promise.resolve(a);
}

function scripted(job: ProviderJob) {
  const id = job.metadata?.provider_script;
  return id ? scripts.get(id) : undefined;
}

/** Installs the script for the test file that calls it (and removes it after). */
export function useScriptedProvider(): void {
  beforeAll(() => {
    const real = {
      submit: sandboxAdapter.submit.bind(sandboxAdapter),
      poll: sandboxAdapter.poll.bind(sandboxAdapter),
      fetchResult: sandboxAdapter.fetchResult.bind(sandboxAdapter),
      cancel: sandboxAdapter.cancel.bind(sandboxAdapter),
    };
    const on = <K extends keyof typeof real>(
      name: K,
      call: Call,
      list: (s: Script) => Answer<Awaited<ReturnType<ProviderAdapter[K]>>>[] | undefined,
    ) => {
      vi.spyOn(sandboxAdapter, name).mockImplementation((async (...args: unknown[]) => {
        const job = (name === "submit" ? args[0] : args[1]) as ProviderJob;
        const own = () => (real[name] as (...a: unknown[]) => Promise<never>)(...args);
        const entry = scripted(job);
        if (!entry) return own();
        entry.calls[call]++;
        return take(list(entry.script), own);
      }) as never);
    };
    on("submit", "submit", (s) => s.submit);
    on("poll", "poll", (s) => s.poll);
    on("fetchResult", "fetch", (s) => s.fetch);
    on("cancel", "cancel", (s) => s.cancel);
  });
  afterAll(() => {
    vi.restoreAllMocks();
  });
}
