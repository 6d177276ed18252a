/**
 * `media-api`: the command line on the client. Exit codes: 0 success, 1 an API error (or a task
 * that did not succeed), 2 a usage error, 130 interrupted. `--json` prints JSON only on stdout.
 */
import { MediaClient } from "../client.js";
import { MediaApiError } from "../errors.js";
import { DEFAULT_BASE_URL } from "../transport.js";
import { VERSION } from "../version.js";
import { Options, parseArgs, UsageError } from "./args.js";
import { balance, usage } from "./commands/account.js";
import { batch } from "./commands/batch.js";
import { capabilityCommand, models, voices } from "./commands/catalog.js";
import { artifacts, download, upload } from "./commands/files.js";
import { generate } from "./commands/generate.js";
import { requests } from "./commands/requests.js";
import { tasks } from "./commands/tasks.js";
import { type CliIo, type Ctx, requireKeyNotice } from "./context.js";
import { HELP } from "./help.js";
import { webhooks } from "./webhooks.js";

export type { CliIo } from "./context.js";

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let json = false;
  try {
    const parsed = parseArgs(argv);
    const opts = new Options(parsed);
    json = opts.flag("json");
    const help = opts.flag("help");
    if (opts.flag("version")) {
      io.stdout.write(`${VERSION}\n`);
      return 0;
    }
    const [command, ...args] = parsed.positionals;
    if (!command || (help && command !== "generate")) {
      io.stdout.write(HELP);
      return command || help ? 0 : 2;
    }
    const baseUrl = opts.string("base-url") ?? io.env.MEDIA_API_BASE_URL ?? DEFAULT_BASE_URL;
    const apiKey = opts.string("api-key") ?? io.env.MEDIA_API_KEY;
    const client = new MediaClient({ baseUrl, ...(apiKey ? { apiKey } : {}), ...(io.fetch ? { fetch: io.fetch } : {}) });
    const ctx: Ctx = { io, opts, client, json, args, help };
    if (!COMMANDS.includes(command)) throw new UsageError(`unknown command '${command}'`);
    // `generate` checks later, so that `generate <capability> --help` works without a key.
    if (!apiKey && command !== "generate") requireKeyNotice();
    return await dispatch(command, ctx);
  } catch (e) {
    return report(e, io, json);
  }
}

const COMMANDS = [
  "generate",
  "batch",
  "tasks",
  "models",
  "capabilities",
  "voices",
  "balance",
  "usage",
  "upload",
  "download",
  "artifacts",
  "webhooks",
  "requests",
];

function report(e: unknown, io: CliIo, json: boolean): number {
  if (e instanceof UsageError) {
    io.stderr.write(`media-api: ${e.message}\nRun 'media-api --help' for usage.\n`);
    return 2;
  }
  if (e instanceof MediaApiError) {
    if (json) io.stdout.write(`${JSON.stringify({ error: { ...e.error, status: e.status } }, null, 2)}\n`);
    const where = [
      e.param ? `param ${e.param}` : "",
      e.status ? `HTTP ${e.status}` : "",
      e.requestId ? `request ${e.requestId}` : "",
    ]
      .filter(Boolean)
      .join(", ");
    io.stderr.write(`error: ${e.error.message}\n  code: ${e.code}${where ? ` (${where})` : ""}\n`);
    return 1;
  }
  if ((e as { name?: string })?.name === "AbortError" || (e as { name?: string })?.name === "Interrupted") {
    io.stderr.write(`${(e as Error).message || "interrupted"}\n`);
    return 130;
  }
  io.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
  return 1;
}

async function dispatch(command: string, ctx: Ctx): Promise<number> {
  switch (command) {
    case "generate":
      return generate(ctx);
    case "batch":
      return batch(ctx);
    case "tasks":
      return tasks(ctx);
    case "models":
      return models(ctx);
    case "capabilities":
      return capabilityCommand(ctx);
    case "voices":
      return voices(ctx);
    case "balance":
      return balance(ctx);
    case "usage":
      return usage(ctx);
    case "upload":
      return upload(ctx);
    case "download":
      return download(ctx);
    case "artifacts":
      return artifacts(ctx);
    case "webhooks":
      return webhooks(ctx);
    case "requests":
      return requests(ctx);
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}
