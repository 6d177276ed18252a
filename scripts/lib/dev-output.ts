/**
 * What `npm start` (scripts/dev.ts) says while it starts: a network that cannot be reached is an
 * expected condition on a laptop offline, said in one line naming what is skipped (never a stack
 * trace); the Workers' start, which takes tens of seconds on a first run, shows its progress; and
 * the dev key is said to be live (its calls spend its credits, sandbox outputs included), beside
 * how to get a test-mode key.
 */
import { statSync } from "node:fs";
import { join, resolve } from "node:path";

/** The error codes of a network that is not there (no DNS, no route, no answer). */
const OFFLINE_CODES = new Set([
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_NONAME",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "ENETDOWN",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * The code that makes `error` an expected offline condition (ENOTFOUND, a timeout…), looking
 * through `cause` (fetch wraps the socket's error); undefined for any other error, which is a bug
 * to show in full.
 */
export function offlineCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const { code, name } = e as { code?: unknown; name?: unknown };
    if (typeof code === "string" && OFFLINE_CODES.has(code)) return code;
    if (name === "TimeoutError" || name === "AbortError") return "timeout";
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** One line: `host` could not be reached (and why), so `skipped` is skipped. */
export function offlineLine(host: string, code: string, skipped: string): string {
  return `offline (${host}: ${code}): ${skipped}`;
}

/** Where wrangler fetches the `request.cf` data from at each start (Miniflare's cf.json), and how long it keeps a copy. */
export const CF_URL = "https://workers.cloudflare.com/cf.json";
const CF_KEPT_DAYS = 30;

/** Whether Miniflare holds a copy of the `request.cf` data young enough to start without fetching it. */
export function cfCopyKept(root: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const places = [
    ...(env.MINIFLARE_CACHE_DIR ? [join(resolve(root, env.MINIFLARE_CACHE_DIR), "cf.json")] : []),
    join(root, "node_modules/.mf/cf.json"),
    join(root, ".wrangler/cache/cf.json"),
  ];
  return places.some((p) => {
    try {
      return Date.now() - statSync(p).mtimeMs < CF_KEPT_DAYS * 86_400_000;
    } catch {
      return false;
    }
  });
}

/**
 * Whether `url` answers within `timeoutMs`: undefined when it does (whatever its status), else the
 * offline code. An unexpected error is thrown.
 */
export async function unreachable(url: string, timeoutMs = 2500): Promise<string | undefined> {
  try {
    await fetch(url, { method: "HEAD", signal: AbortSignal.timeout(timeoutMs) });
    return undefined;
  } catch (e) {
    const code = offlineCode(e);
    if (code) return code;
    throw e;
  }
}

export interface Ticker {
  /** Ends the progress line with `text` (e.g. "ready in 31 s"). */
  done(text: string): void;
}

/**
 * A progress line while something slow runs: `label` at once, then the seconds elapsed. On a
 * terminal the line is rewritten in place every second; in a log (not a TTY) a line is added every
 * `logEvery` seconds at most, so that a long start never floods it.
 */
export function ticker(
  label: string,
  out: { write(s: string): unknown; isTTY?: boolean } = process.stdout,
  opts: { logEvery?: number; now?: () => number } = {},
): Ticker {
  const now = opts.now ?? Date.now;
  const started = now();
  const seconds = () => Math.round((now() - started) / 1000);
  const logEvery = opts.logEvery ?? 10;
  let lastLogged = 0;
  out.write(out.isTTY ? label : `${label}\n`);
  const timer = setInterval(
    () => {
      const s = seconds();
      if (out.isTTY) out.write(`\r${label} ${s} s`);
      else if (s - lastLogged >= logEvery) {
        lastLogged = s;
        out.write(`  … ${s} s\n`);
      }
    },
    out.isTTY ? 1000 : logEvery * 1000,
  );
  timer.unref();
  return {
    done(text: string) {
      clearInterval(timer);
      out.write(out.isTTY ? `\r${label} ${text}\n` : `${label} ${text}\n`);
    },
  };
}

/** The lines printed under the dev key: it is live, what that spends, and the test-mode key beside it. */
export function keyNotice(opts: { liveKey: string; testKey?: string; consoleUrl: string }): string[] {
  return [
    `  API key:      ${opts.liveKey}`,
    "                live, every permission: every call spends the dev tenant's credits, sandbox (simulated_output) results included",
    opts.testKey
      ? `  Test key:     ${opts.testKey}\n                test mode: the sandbox only, never charged`
      : `  Test key:     make one at ${opts.consoleUrl}/keys (Create a key, Mode: test): the sandbox only, never charged`,
  ];
}
