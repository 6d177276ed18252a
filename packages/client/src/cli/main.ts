/**
 * `media-api`: the command line on the client. Exit codes: 0 success, 1 an API error (or a task
 * that did not succeed), 2 a usage error, 130 interrupted. `--json` prints JSON only on stdout.
 */
import { stat } from "node:fs/promises";
import { MediaClient, operationForCapability } from "../client.js";
import { MediaApiError } from "../errors.js";
import { OPERATIONS } from "../generated/operations.js";
import { extensionFor, kindOf, sniffMediaType, typeByName } from "../media-types.js";
import type { OperationRow } from "../operation-row.js";
import { DEFAULT_BASE_URL, type FetchLike } from "../transport.js";
import type { TaskEnvelope } from "../types.js";
import { VERSION } from "../version.js";
import { Options, parseArgs, UsageError } from "./args.js";
import { type BatchRunOptions, describeBatch, runBatch } from "./batch.js";
import { applyFields, assignInputs, type InputSource, type MediaKind, placeInputs, splitInput, splitMediaFlags } from "./body.js";
import { type Ctx, one, print, query } from "./context.js";
import { mediaFacts, table } from "./format.js";
import { describeWait } from "./progress.js";
import { finishTask, followTask, type Io } from "./tasks.js";
import { webhooks } from "./webhooks.js";

export interface CliIo extends Io {
  env: Record<string, string | undefined>;
  fetch?: FetchLike;
  /** Interrupts (Ctrl-C): the command stops following a task and says how to resume. */
  interrupt?: AbortSignal;
  /** Asks the person at the terminal a yes/no question; absent when nobody can answer (not a terminal). */
  confirm?: (question: string) => Promise<boolean>;
}

const HELP = `media-api — the media generation API from the command line

Usage:
  media-api generate <capability> --prompt "…" [--model <id>] [--<field> <value> …]
                     [--media <file|url|field=…> …] [--out <dir>] [--no-wait] [--timeout <s>]
  media-api batch run <file.jsonl> --operation <capability> [--concurrency N] [--max-credits C]
                     [--out results.jsonl] [--idempotency-key K] [--no-wait]
  media-api batch get|cancel <batch_id>
  media-api tasks list [--status …] [--capability …] [--limit N] [--cursor …]
  media-api tasks get|cancel|wait|delete-outputs <task_id> [--out <dir>]
  media-api tasks deliver <task_id> [--destination <destination_id>]
  media-api models [<model>]            media-api capabilities [<capability>]
  media-api voices [--language en] [--gender female] [--category preset] [--q text]
  media-api balance                     media-api usage [--from …] [--to …] [--group_by day|capability|model]
  media-api upload <file> …             media-api download <artifact_id> [--out <file|dir>]
  media-api artifacts delete <artifact_id>
  media-api webhooks endpoints          media-api webhooks deliveries [--endpoint_id …] [--task_id …]
                                        [--status pending|succeeded|failed] [--limit N] [--cursor …]
  media-api webhooks delivery|resend <delivery_id>

Generate:
  <capability> is one of: ${capabilities().join(", ")}.
  Fields of the request are flags: --count 2, --canvas.tier 1K, --generate_audio, --no-watermark;
  --set field=value does the same; --body '{…}' (or --body @file.json) gives a whole body first.
  --media takes a local file (uploaded first), an https URL, a data: URI or artifact:<id>; it goes
  to the field that takes its kind (--media first_frame=a.png, or --first_frame a.png, names the
  field). Every output is saved as <out>/<task_id>-<index>.<ext> (default: the current directory).
  media-api generate <capability> --help lists the capability's fields.
  --quote prices the request first (POST /v1/quotes) and prints the quote; the task is then created
  under it, so it runs on the quoted model and costs at most the quoted credits. Above
  --ask-above <credits> (default 0: any spend) it asks first; with no terminal to ask, it refuses
  unless --yes is given. --max_credits <credits> caps any request. --destination <destination_id>
  writes the outputs to that storage destination too (default: the tenant's default destination).
  --retention-days <n> keeps the outputs n days (1 to 365, at most the tenant's retention, which is
  also the default); then they are deleted (media-api tasks delete-outputs <task_id> does it sooner).

Options:
  --json              machine-readable JSON only on stdout (progress goes to stderr)
  --base-url <url>    default $MEDIA_API_BASE_URL, else ${DEFAULT_BASE_URL}
  --api-key <key>     default $MEDIA_API_KEY
  --version, --help

Exit codes: 0 success, 1 API error or a task that did not succeed, 2 usage error.
`;

function capabilities(): string[] {
  return (Object.values(OPERATIONS) as OperationRow[])
    .map((r) => r.capability)
    .filter((c): c is string => !!c)
    .sort();
}

function fieldHelp(capability: string, row: OperationRow): string {
  const fields = Object.entries(row.fields ?? {}).filter(([f]) => !f.endsWith(".*"));
  const media = new Map((row.media ?? []).map((m) => [m.field, m]));
  const lines = fields.map(([f, types]) => {
    const m = media.get(f);
    const what = m
      ? `media (${m.shape === "one" ? "one" : m.shape === "many" ? "list" : "references"}): a file, URL, data: URI or artifact:<id>`
      : types.join("|");
    return [`--${f}`, what, row.required?.includes(f) ? "required" : ""];
  });
  return `${capability}: ${row.method} ${row.path} — ${row.summary}\n\n${table(["field", "type", ""], lines)}\n`;
}

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
];

function requireKeyNotice(): void {
  throw new UsageError("no API key: set MEDIA_API_KEY (npm start prints the local one) or pass --api-key");
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
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

// ---------------------------------------------------------------- generate

async function resolveSource(value: string, kindHint: MediaKind | undefined): Promise<InputSource> {
  if (/^https?:\/\//i.test(value)) {
    return { type: "url", url: value, kind: kindHint ?? kindOf(typeByName(new URL(value).pathname)) };
  }
  if (/^data:/i.test(value))
    return { type: "data_uri", data_uri: value, kind: kindHint ?? kindOf(/^data:([^;,]+)/i.exec(value)?.[1]) };
  if (value.startsWith("artifact:")) return { type: "artifact", artifact_id: value.slice("artifact:".length), kind: kindHint };
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(value);
  } catch {
    throw new UsageError(`${value}: no such file (media inputs are local files, https URLs, data: URIs or artifact:<id>)`);
  }
  if (!info.isFile()) throw new UsageError(`${value}: not a file`);
  const { openAsBlob } = await import("node:fs");
  const head = new Uint8Array(await (await openAsBlob(value)).slice(0, 64).arrayBuffer());
  return { type: "file", path: value, kind: kindHint ?? kindOf(sniffMediaType(head) ?? typeByName(value)) };
}

async function readBody(spec: string | undefined): Promise<Record<string, unknown>> {
  if (spec === undefined) return {};
  let text = spec;
  if (spec.startsWith("@")) {
    const { readFile } = await import("node:fs/promises");
    try {
      text = await readFile(spec.slice(1), "utf8");
    } catch {
      throw new UsageError(`--body ${spec}: cannot read the file`);
    }
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new UsageError("--body is not valid JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) throw new UsageError("--body must be a JSON object");
  return body as Record<string, unknown>;
}

async function generate(ctx: Ctx): Promise<number> {
  const { opts, io, client, json } = ctx;
  const [capability, ...extra] = ctx.args;
  if (!capability) {
    if (ctx.help) {
      io.stdout.write(HELP);
      return 0;
    }
    throw new UsageError(`generate needs a capability: ${capabilities().join(", ")}`);
  }
  if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}' (quote the prompt: --prompt "…")`);
  const id = operationForCapability(capability);
  if (!id) throw new UsageError(`unknown capability '${capability}'; one of: ${capabilities().join(", ")}`);
  const row = OPERATIONS[id] as OperationRow;
  if (ctx.help) {
    io.stdout.write(fieldHelp(capability, row));
    return 0;
  }
  if (!client.transport.apiKey) requireKeyNotice();

  // The command's own options first (GENERATE_OPTIONS): every option left is a request field.
  const body = await readBody(opts.string("body"));
  const sets = opts.strings("set");
  const inputs = opts.strings("media");
  const out = opts.string("out") ?? ".";
  const noWait = opts.flag("no-wait");
  const timeout = opts.number("timeout");
  const idempotencyKey = opts.string("idempotency-key");
  const quoteFirst = opts.flag("quote");
  const askAbove = opts.string("ask-above") ?? "0";
  const yes = opts.flag("yes");
  const retentionDays = opts.string("retention-days");
  if (retentionDays !== undefined && !/^(36[0-5]|3[0-5]\d|[12]\d\d|[1-9]\d?)$/.test(retentionDays))
    throw new UsageError(`--retention-days must be a whole number of days from 1 to 365 (got '${retentionDays}')`);
  if (!CREDITS.test(askAbove)) throw new UsageError(`--ask-above must be a credit figure such as 2.5 (got '${askAbove}')`);
  if (!quoteFirst && (opts.has("ask-above") || yes)) throw new UsageError("--ask-above and --yes go with --quote");
  const { fields, media } = splitMediaFlags(row, opts.rest());
  applyFields(body, row, fields, sets, capability);
  if (retentionDays !== undefined) body.output_retention_days = Number(retentionDays);

  // Every input is checked and placed before anything is uploaded.
  const specs = [...inputs.map((raw) => splitInput(row, raw)), ...media];
  const sources = await Promise.all(
    specs.map((s) =>
      resolveSource(s.value, s.target && ["image", "video", "audio"].includes(s.target) ? (s.target as MediaKind) : undefined),
    ),
  );
  const assignments = assignInputs(
    row,
    specs.map((s, i) => ({ target: s.target, kind: sources[i]?.kind })),
    capability,
  );
  const log = json ? io.stderr : io.stdout;
  const refs: Record<string, unknown>[] = [];
  for (const source of sources) {
    if (source.type === "file") {
      const uploaded = await client.uploads.fromFile(source.path);
      log.write(`uploaded ${source.path} → ${uploaded.artifact_id} (${uploaded.content_type}, ${uploaded.bytes} bytes)\n`);
      refs.push({ type: "artifact", artifact_id: uploaded.artifact_id });
    } else {
      const { kind: _kind, ...ref } = source;
      refs.push(ref);
    }
  }
  placeInputs(body, assignments, refs);

  if (quoteFirst) {
    const agreed = await quoteAndConfirm(ctx, capability, body, { askAbove, yes });
    if (!agreed) return 1;
  }
  const task = await client.create(id, body as never, idempotencyKey ? { idempotencyKey } : {});
  if (noWait) {
    print(ctx, task, () => `${task.task_id}  ${task.status}  (follow it: media-api tasks wait ${task.task_id})`);
    return 0;
  }
  if (!json) io.stdout.write(`task ${task.task_id} ${task.status} · model ${task.model}\n`);
  const final = await followTask(client, task, {
    io,
    json,
    ...(timeout ? { timeoutMs: timeout * 1000 } : {}),
    interrupt: io.interrupt,
  });
  return finishTask(client, final, { io, json, out });
}

const CREDITS = /^\d{1,12}(\.\d{1,9})?$/;

/** Exact comparison of two decimal credit figures (no floating point). */
function creditsAbove(a: string, b: string): boolean {
  const scale = (x: string) => {
    const [whole = "0", frac = ""] = x.split(".");
    return BigInt(whole + frac.padEnd(9, "0"));
  };
  return scale(a) > scale(b);
}

/**
 * Prices the body, prints the quote and, above the threshold, asks before spending; sets the
 * body's quote_id when agreed. Nobody to ask (no terminal) and no --yes: refused.
 */
async function quoteAndConfirm(
  ctx: Ctx,
  capability: string,
  body: Record<string, unknown>,
  o: { askAbove: string; yes: boolean },
): Promise<boolean> {
  const { io, client, json } = ctx;
  const log = json ? io.stderr : io.stdout;
  const q = await client.quote(capability, body);
  if (json) io.stderr.write(`${JSON.stringify(q, null, 2)}\n`);
  else {
    log.write(`quote ${q.quote_id} · model ${q.resolved_model} · at most ${q.credits} credits · until ${q.expires_at}\n`);
    log.write(
      `${table(
        ["meter", "quantity", "unit", "unit credits", "credits"],
        q.lines.map((l) => [l.meter, l.quantity, l.unit, l.unit_credits, l.credits]),
      )}\n`,
    );
  }
  if (creditsAbove(q.credits, o.askAbove) && !o.yes) {
    if (!io.confirm) {
      io.stderr.write(
        `not created: the quote (${q.credits} credits) is above --ask-above ${o.askAbove} and there is no terminal to ask; pass --yes to agree\n`,
      );
      return false;
    }
    if (!(await io.confirm(`Spend up to ${q.credits} credits on ${q.resolved_model}? [y/N] `))) {
      io.stderr.write("not created\n");
      return false;
    }
  }
  body.quote_id = q.quote_id;
  return true;
}

// ---------------------------------------------------------------- batches

async function batch(ctx: Ctx): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const sctx = { ...ctx, args: rest };
  switch (sub) {
    case "run": {
      const file = one(sctx, "the JSON lines file");
      const o = {
        file,
        operation: ctx.opts.string("operation") ?? "",
        concurrency: ctx.opts.number("concurrency"),
        maxCredits: ctx.opts.string("max-credits"),
        out: ctx.opts.string("out"),
        idempotencyKey: ctx.opts.string("idempotency-key"),
        wait: !ctx.opts.has("no-wait"),
      };
      ctx.opts.done("batch run");
      const { batch: b } = await runBatch(ctx.client, o as BatchRunOptions, { ...ctx.io, json: ctx.json });
      print(sctx, b, () => describeBatch(b));
      return b.status === "completed" && b.counts.failed === 0 && b.counts.canceled === 0 ? 0 : o.wait ? 1 : 0;
    }
    case "get":
    case "cancel": {
      const id = one(sctx, "batch_id");
      ctx.opts.done(`batch ${sub}`);
      const b = sub === "get" ? await ctx.client.batches.get(id) : await ctx.client.batches.cancel(id);
      print(sctx, b, () => `${b.batch_id}  ${describeBatch(b)}${b.output_file_id ? `\nresults: ${b.output_file_id}` : ""}`);
      return 0;
    }
    default:
      throw new UsageError(
        "batch needs a subcommand: run <file.jsonl> --operation <capability>, get <batch_id>, cancel <batch_id>",
      );
  }
}

// ---------------------------------------------------------------- tasks

async function tasks(ctx: Ctx): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const sctx = { ...ctx, args: rest };
  switch (sub) {
    case "list": {
      const q = query(sctx, "listTasks");
      ctx.opts.done("tasks list");
      const page = await ctx.client.tasks.list(q as never);
      print(sctx, page, () => {
        const rows = page.data.map((t) => [t.task_id, t.status, t.capability, t.resolved_model, t.created_at]);
        const more = page.has_more ? `\nmore: media-api tasks list --cursor ${page.next_cursor}` : "";
        return rows.length ? `${table(["task_id", "status", "capability", "model", "created_at"], rows)}${more}` : "no tasks";
      });
      return 0;
    }
    case "get": {
      const id = one(sctx, "task_id");
      ctx.opts.done("tasks get");
      const task = await ctx.client.tasks.get(id);
      print(sctx, task, () => describeTask(task, (link) => ctx.client.transport.resolve(link)));
      return 0;
    }
    case "cancel": {
      const id = one(sctx, "task_id");
      const reason = ctx.opts.string("reason");
      ctx.opts.done("tasks cancel");
      const task = await ctx.client.tasks.cancel(id, reason ? { reason } : {});
      print(
        sctx,
        task,
        () =>
          `${task.task_id}  ${task.status}${task.cancel_requested_at ? `  (cancel requested ${task.cancel_requested_at})` : ""}`,
      );
      return 0;
    }
    case "delete-outputs": {
      const id = one(sctx, "task_id");
      ctx.opts.done("tasks delete-outputs");
      const task = await ctx.client.tasks.deleteOutputs(id);
      const n = task.output?.artifacts?.length ?? 0;
      print(sctx, task, () => `${task.task_id}  ${task.status}  ${n} output${n === 1 ? "" : "s"} deleted`);
      return 0;
    }
    case "deliver": {
      const id = one(sctx, "task_id");
      const destination = ctx.opts.string("destination");
      ctx.opts.done("tasks deliver");
      const task = await ctx.client.tasks.deliver(id, destination ? { destination_id: destination } : {});
      const d = task.delivery;
      print(sctx, task, () =>
        d
          ? `${task.task_id}  delivery ${d.status} to ${d.destination_id}${d.failed.map((f) => `\n  not delivered: ${f.key}: ${f.error}`).join("")}`
          : `${task.task_id}  no delivery`,
      );
      return d?.status === "failed" ? 1 : 0;
    }
    case "wait": {
      const id = one(sctx, "task_id");
      const out = ctx.opts.string("out");
      const timeout = ctx.opts.number("timeout");
      ctx.opts.done("tasks wait");
      const final = await followTask(ctx.client, id, {
        io: ctx.io,
        json: ctx.json,
        ...(timeout ? { timeoutMs: timeout * 1000 } : {}),
        interrupt: ctx.io.interrupt,
      });
      return finishTask(ctx.client, final, { io: ctx.io, json: ctx.json, ...(out ? { out } : {}) });
    }
    default:
      throw new UsageError("tasks takes list, get <id>, cancel <id>, wait <id>, deliver <id> or delete-outputs <id>");
  }
}

function describeTask(t: TaskEnvelope, resolve: (link: string) => string): string {
  const wait = describeWait(t.progress);
  const lines = [
    `task       ${t.task_id}`,
    `status     ${t.status}  ${t.progress.percent}%  ${[t.progress.stage, t.progress.message].filter(Boolean).join(": ")}${wait ? `  (${wait})` : ""}`,
    `capability ${t.capability}`,
    `model      ${t.model}${t.resolved_model && t.resolved_model !== t.model ? ` → ${t.resolved_model}` : ""}`,
    `created    ${t.created_at}${t.completed_at ? `  completed ${t.completed_at}` : ""}`,
    `credits    charged ${t.billing.charged_credits}, net ${t.billing.net_charged_credits}`,
  ];
  for (const a of t.output?.artifacts ?? []) {
    const link = a.signed_url ?? a.url;
    const gone = a.expired ? "(expired)" : "(deleted)";
    const until = a.expires_at && !a.expired ? `  until ${a.expires_at}` : "";
    lines.push(`output ${a.index}   ${a.artifact_id}  ${a.content_type}  ${link ? resolve(link) : gone}${until}`);
  }
  const text = (t.output as { text?: unknown } | null)?.text;
  if (typeof text === "string") lines.push(`text       ${text}`);
  if (t.error) lines.push(`error      ${t.error.code}: ${t.error.message}`);
  return lines.join("\n");
}

// ---------------------------------------------------------------- catalog, account

async function models(ctx: Ctx): Promise<number> {
  ctx.opts.done("models");
  if (ctx.args.length) {
    const model = await ctx.client.models.get(one(ctx, "model"));
    ctx.io.stdout.write(`${JSON.stringify(model, null, 2)}\n`);
    return 0;
  }
  const list = await ctx.client.models.list();
  print(ctx, list, () =>
    table(
      ["model", "capabilities", "status", "available"],
      list.data.map((m) => [m.id, m.capabilities.join(","), m.status, m.available ? "yes" : "no"]),
    ),
  );
  return 0;
}

async function capabilityCommand(ctx: Ctx): Promise<number> {
  ctx.opts.done("capabilities");
  if (ctx.args.length) {
    const detail = await ctx.client.catalog.getCapability(one(ctx, "capability"));
    ctx.io.stdout.write(`${JSON.stringify(detail, null, 2)}\n`);
    return 0;
  }
  const list = await ctx.client.catalog.listCapabilities();
  print(ctx, list, () =>
    table(
      ["capability", "endpoint", "status"],
      (list.data as Record<string, unknown>[]).map((c) => [c.capability as string, c.endpoint as string, c.status as string]),
    ),
  );
  return 0;
}

async function voices(ctx: Ctx): Promise<number> {
  const q = query(ctx, "listVoices");
  ctx.opts.done("voices");
  const list = await ctx.client.voices.list(q);
  print(ctx, list, () =>
    table(
      ["voice_id", "name", "language", "gender", "category"],
      list.data.map((v) => [v.voice_id, v.display_name, v.language, v.gender, v.category]),
    ),
  );
  return 0;
}

async function balance(ctx: Ctx): Promise<number> {
  ctx.opts.done("balance");
  const b = await ctx.client.balance.get();
  print(
    ctx,
    b,
    () => `available ${b.available_credits} credits · reserved ${b.reserved_credits} · ${b.mode} key · as of ${b.as_of}`,
  );
  return 0;
}

async function usage(ctx: Ctx): Promise<number> {
  const q = query(ctx, "getUsage");
  ctx.opts.done("usage");
  const u = await ctx.client.usage.get(q as never);
  // Its scalar fields, then each of its lists as a table of the rows' scalar columns.
  print(ctx, u, () => {
    const entries = Object.entries(u as Record<string, unknown>);
    const scalars = entries.filter(([, v]) => v === null || typeof v !== "object").map(([k, v]) => `${k}: ${v}`);
    const tables = entries
      .filter((e): e is [string, Record<string, unknown>[]] => Array.isArray(e[1]) && e[1].length > 0)
      .map(([name, rows]) => {
        const head = Object.keys(rows[0] ?? {}).filter((k) => rows.every((r) => r[k] === null || typeof r[k] !== "object"));
        return `\n${name}:\n${table(
          head,
          rows.map((r) => head.map((h) => r[h] as string)),
        )}`;
      });
    const objects = entries
      .filter((e): e is [string, Record<string, unknown>] => !!e[1] && typeof e[1] === "object" && !Array.isArray(e[1]))
      .map(
        ([name, o]) =>
          `${name}: ${Object.entries(o)
            .map(([k, v]) => `${k} ${v}`)
            .join(", ")}`,
      );
    return [...scalars, ...objects].join("\n") + tables.join("");
  });
  return 0;
}

// ---------------------------------------------------------------- files

async function upload(ctx: Ctx): Promise<number> {
  ctx.opts.done("upload");
  if (!ctx.args.length) throw new UsageError("upload needs at least one file");
  for (const file of ctx.args) {
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) throw new UsageError(`${file}: no such file`);
  }
  const results = [];
  for (const file of ctx.args) {
    const a = await ctx.client.uploads.fromFile(file);
    results.push(a);
    if (!ctx.json) {
      const facts = [
        a.kind,
        a.content_type,
        `${a.bytes} bytes`,
        a.width && a.height ? `${a.width}×${a.height}` : "",
        a.duration_seconds ? `${a.duration_seconds} s` : "",
      ];
      ctx.io.stdout.write(`${a.artifact_id}  ${facts.filter(Boolean).join(" · ")}  ${file}\n`);
    }
  }
  if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(results.length === 1 ? results[0] : results, null, 2)}\n`);
  return 0;
}

async function download(ctx: Ctx): Promise<number> {
  const out = ctx.opts.string("out");
  ctx.opts.done("download");
  const id = one(ctx, "artifact_id");
  const { join, dirname } = await import("node:path");
  const { rename } = await import("node:fs/promises");
  // --out names the file, or the folder to save <artifact_id>.<ext> in (default: here).
  const isDir = !out || !!(await stat(out).catch(() => null))?.isDirectory();
  const temp = isDir ? join(out ?? ".", `${id}.download`) : join(dirname(out), `.${id}.download`);
  const saved = await ctx.client.artifacts.download(id, temp);
  const path = isDir ? join(out ?? ".", `${id}.${extensionFor(saved.contentType)}`) : (out as string);
  await rename(temp, path);
  print(
    ctx,
    { path, artifact_id: id, content_type: saved.contentType, bytes: saved.bytes },
    () => `saved ${path} (${mediaFacts({ content_type: saved.contentType, bytes: saved.bytes })})`,
  );
  return 0;
}

async function artifacts(ctx: Ctx): Promise<number> {
  const [sub, ...rest] = ctx.args;
  if (sub !== "delete") throw new UsageError("artifacts takes delete <artifact_id>");
  const id = one({ ...ctx, args: rest }, "artifact_id");
  ctx.opts.done("artifacts delete");
  await ctx.client.artifacts.delete(id);
  print(ctx, { artifact_id: id, deleted: true }, () => `deleted ${id}`);
  return 0;
}
