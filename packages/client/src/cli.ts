#!/usr/bin/env node
/** The `media-api` command (see cli/main.ts). */
import { createInterface } from "node:readline/promises";
import { runCli } from "./cli/main.js";

/** A yes/no question on the terminal; only when there is one to answer it. */
async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

// Ctrl-C stops following a task (which goes on) and says how to resume; anything else it stops
// at once, as does a second Ctrl-C.
const interrupt = new AbortController();
process.on("SIGINT", () => {
  if (interrupt.signal.aborted) process.exit(130);
  interrupt.abort(new Error("interrupted"));
  setTimeout(() => process.exit(130), 500).unref();
});

runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  interrupt: interrupt.signal,
  ...(process.stdin.isTTY ? { confirm } : {}),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`media-api: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  },
);
