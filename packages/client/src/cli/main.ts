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
import { chat } from "./commands/chat.js";
import { artifacts, download, upload } from "./commands/files.js";
import { generate } from "./commands/generate.js";
import { keys } from "./commands/keys.js";
import { providerKeys } from "./commands/provider-keys.js";
import { quotes } from "./commands/quotes.js";
import { requests } from "./commands/requests.js";
import { status } from "./commands/status.js";
import { storageDestinations } from "./commands/storage.js";
import { tasks } from "./commands/tasks.js";
import { type CliIo, type Ctx, requireKeyNotice } from "./context.js";
import { COMMANDS, commandHelp, HELP } from "./help.js";
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
    if (!command) {
      io.stdout.write(HELP);
      return help ? 0 : 2;
    }
    // `<command> --help` (and `<command> <subcommand> --help`): that command's usage, with the
    // fields of the request it sends. `generate <capability> --help` is generate's own.
    if (help && command !== "generate") {
      if (!COMMANDS.includes(command)) throw new UsageError(`unknown command '${command}'`);
      io.stdout.write(commandHelp(command, args[0]));
      return 0;
    }
    const baseUrl = opts.string("base-url") ?? io.env.MEDIA_API_BASE_URL ?? DEFAULT_BASE_URL;
    const apiKey = opts.string("api-key") ?? io.env.MEDIA_API_KEY;
    const client = new MediaClient({ baseUrl, ...(apiKey ? { apiKey } : {}), ...(io.fetch ? { fetch: io.fetch } : {}) });
    const ctx: Ctx = { io, opts, client, json, args, help };
    if (!COMMANDS.includes(command)) throw new UsageError(`unknown command '${command}'`);
    // `generate` checks later, so that `generate <capability> --help` works without a key;
    // `status` needs none.
    if (!apiKey && command !== "generate" && command !== "status") requireKeyNotice();
    return await dispatch(command, ctx);
  } catch (e) {
    return report(e, io, json);
  }
}

/** `  line 3: body.prompt: Required` for each `details.errors` entry, and how many were not listed. */
export function fieldErrorLines(details: Record<string, unknown> | undefined): string[] {
  const errors = Array.isArray(details?.errors) ? (details.errors as { loc?: unknown[]; reason?: unknown }[]) : [];
  if (errors.length < 2 && typeof details?.invalid_items !== "number") return [];
  const lines = errors.map((f) => {
    const loc = Array.isArray(f.loc) ? [...f.loc] : [];
    let where = "";
    if (loc[0] === "input_file" && typeof loc[1] === "number") where = `line ${loc.splice(0, 2)[1]}`;
    else if (loc[0] === "body" && loc[1] === "items" && typeof loc[2] === "number") where = `item ${loc.splice(0, 3)[2]}`;
    const path = loc.map(String).join(".");
    return `  ${[where, path].filter(Boolean).join(" ")}: ${String(f.reason ?? "")}`;
  });
  const total = typeof details?.invalid_items === "number" ? details.invalid_items : undefined;
  const itemOf = (loc: unknown[]) => (loc[0] === "input_file" ? loc.slice(0, 2) : loc.slice(0, 3));
  const counted = new Set(errors.map((f) => JSON.stringify(itemOf(f.loc ?? [])))).size;
  if (total !== undefined && total > counted) lines.push(`  … and more: ${total} invalid items in all`);
  return lines;
}

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
    // Every field error the API listed (a batch's invalid items: each of them), not only the first.
    if (!json) for (const line of fieldErrorLines(e.details)) io.stderr.write(`${line}\n`);
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
    case "keys":
      return keys(ctx);
    case "quotes":
      return quotes(ctx);
    case "chat":
      return chat(ctx);
    case "status":
      return status(ctx);
    case "provider-keys":
      return providerKeys(ctx);
    case "storage-destinations":
      return storageDestinations(ctx);
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}
