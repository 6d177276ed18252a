/** What every command gets, and the small helpers they share. */
import type { MediaClient } from "../client.js";
import { OPERATIONS, type OperationId } from "../generated/operations.js";
import type { OperationRow } from "../operation-row.js";
import type { FetchLike } from "../transport.js";
import { type Options, UsageError } from "./args.js";
import type { Io } from "./tasks.js";

export interface CliIo extends Io {
  env: Record<string, string | undefined>;
  fetch?: FetchLike;
  /** Interrupts (Ctrl-C): the command stops following a task and says how to resume. */
  interrupt?: AbortSignal;
  /** Asks the person at the terminal a yes/no question; absent when nobody can answer (not a terminal). */
  confirm?: (question: string) => Promise<boolean>;
}

export interface Ctx {
  io: CliIo;
  opts: Options;
  client: MediaClient;
  json: boolean;
  args: string[];
  help: boolean;
}

export function print(ctx: Ctx, value: unknown, human: () => string): void {
  ctx.io.stdout.write(ctx.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

export function one(ctx: Ctx, what: string): string {
  const [value, ...extra] = ctx.args;
  if (!value) throw new UsageError(`${what} is missing`);
  if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
  return value;
}

export function query(ctx: Ctx, id: OperationId): Record<string, string> {
  const out: Record<string, string> = {};
  for (const q of (OPERATIONS[id] as OperationRow).queryParams) {
    // `--task-id`, and `--task_id` as the API names it.
    const v = ctx.opts.string(q.replaceAll("_", "-"));
    if (v !== undefined) out[q] = v;
  }
  return out;
}

export function requireKeyNotice(): void {
  throw new UsageError("no API key: set MEDIA_API_KEY (npm start prints the local one) or pass --api-key");
}
