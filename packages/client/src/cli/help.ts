/** The usage text, and the field list of one capability (`generate <capability> --help`). */
import { OPERATIONS, type OperationId } from "../generated/operations.js";
import type { OperationRow } from "../operation-row.js";
import { DEFAULT_BASE_URL } from "../transport.js";
import { kebab } from "./args.js";

/** Each command's synopsis lines. */
export const USAGE: Readonly<Record<string, string>> = {
  generate: `  media-api generate <capability> --prompt "…" [--model <id> | --models <id,id,…>] [--<field> <value> …]
                     [--media <file|url|field=…> …] [--out <dir>] [--no-wait] [--timeout <s>]
                     [--provider-order <p,p,…>] [--provider-only <p,…>] [--provider-ignore <p,…>]
                     [--sort price|latency] [--no-fallbacks] [--quote [--ask-above C] [--yes]]
  media-api generate <capability> --help        (its fields: type, default, allowed values, description)`,
  quotes: `  media-api quotes create <capability> --prompt "…" [--<field> <value> …]   (prices a create; creates nothing)`,
  chat: `  media-api chat "<prompt>" [--model <id>] [--system "…"] [--messages-file <file.json>] [--stream]
                     [--max-tokens N] [--temperature T] [--<field> <value> …]`,
  batch: `  media-api batch run <file.jsonl> --operation <capability> [--concurrency N] [--max-credits C]
                     [--out results.jsonl] [--idempotency-key K] [--no-wait]
  media-api batch get|cancel <batch_id>`,
  tasks: `  media-api tasks list [--status …] [--capability …] [--limit N] [--cursor …]
  media-api tasks get|cancel|wait|delete-outputs <task_id> [--out <dir>]
  media-api tasks deliver <task_id> [--destination <destination_id>]`,
  models: "  media-api models [<model>]",
  capabilities: "  media-api capabilities [<capability>]",
  voices: "  media-api voices [--language en] [--gender female] [--category preset] [--q text]",
  balance: "  media-api balance",
  usage: "  media-api usage [--from …] [--to …] [--group-by day|capability|model]",
  status: "  media-api status                       (providers' and models' health; no key needed)",
  upload: "  media-api upload <file> …",
  download: "  media-api download <artifact_id> [--out <file|dir>]",
  artifacts: "  media-api artifacts delete <artifact_id>",
  keys: `  media-api keys list [--limit N] [--cursor …]
  media-api keys get|revoke <key_id>
  media-api keys create [--name …] [--permissions p,p,…] [--mode live|test] [--limits.credits C --limits.period month]
  media-api keys update <key_id> [--name …] [--limits.credits C] [--disabled | --no-disabled]
  media-api keys rotate <key_id> [--keep-old]   (a new key like it; the old one revoked unless --keep-old)`,
  webhooks: `  media-api webhooks endpoints [list]
  media-api webhooks endpoints create --url <https://…> --events task.succeeded,task.failed [--description …]
  media-api webhooks endpoints update <endpoint_id> [--url …] [--events …] [--enabled | --no-enabled]
  media-api webhooks endpoints get|test|delete <endpoint_id>
  media-api webhooks endpoints rotate-secret <endpoint_id> [--overlap-seconds N]
  media-api webhooks deliveries [--endpoint-id …] [--task-id …] [--status pending|succeeded|failed] [--limit N]
  media-api webhooks delivery|resend <delivery_id>`,
  "provider-keys": `  media-api provider-keys list
  media-api provider-keys put <provider> --key <the provider's key> [--mode prefer|fallback|only] [--models m,…]
  media-api provider-keys remove <provider>`,
  "storage-destinations": `  media-api storage-destinations list
  media-api storage-destinations create --endpoint <https://…> --bucket … --region … --access-key-id …
                     --secret-access-key … [--prefix …] [--path-style] [--default]
  media-api storage-destinations get|delete <destination_id>
  media-api storage-destinations update <destination_id> --default | --no-default
  media-api storage-destinations test <destination_id> [--task <task_id>]   (writes that task's outputs to it)`,
  requests: `  media-api requests list [--status 200|4xx|5xx] [--route "POST /v1/…"] [--model …] [--task-id …]
                     [--key-id …] [--error-code …] [--since <time>] [--until <time>] [--limit N] [--cursor …]
  media-api requests get <request_id>    (also: show; the entry and its provider attempts as a time line)
  media-api requests replay <request_id> [--model <id>] [--idempotency-key K]`,
};

/** The commands, in the order the usage lists them. */
export const COMMANDS = Object.keys(USAGE);

/** The operation whose body a subcommand sends, for its help's field list. */
const BODIES: Readonly<Record<string, OperationId>> = {
  "keys create": "createKey",
  "keys update": "updateKey",
  chat: "createChatCompletion",
  "webhooks endpoints": "createWebhookEndpoint",
  "provider-keys put": "setProviderKey",
  "storage-destinations create": "createStorageDestination",
  "storage-destinations update": "updateStorageDestination",
};

/** `media-api <command> [<subcommand>] --help`: its synopsis and, where it sends a body, that body's fields. */
export function commandHelp(command: string, sub?: string): string {
  const id = BODIES[`${command} ${sub ?? ""}`.trim()] ?? BODIES[command];
  const fields = id
    ? `\n${fieldHelp(`${command}${sub && BODIES[`${command} ${sub}`] ? ` ${sub}` : ""}`, OPERATIONS[id] as OperationRow, id)}`
    : "";
  const more = command === "quotes" ? `\nThe fields are those of the capability: media-api generate <capability> --help.\n` : "";
  return `Usage:\n${USAGE[command]}\n${fields}${more}\nOptions of every command: --json, --base-url <url>, --api-key <key>. media-api --help lists every command.\n`;
}

export const HELP = `media-api — the media generation API from the command line

Usage:
${Object.values(USAGE).join("\n")}

Generate:
  <capability> is one of: ${capabilities().join(", ")}.
  Fields of the request are flags, in kebab-case: --count 2, --canvas.tier 1K, --generate-audio,
  --no-watermark, --max-credits 2.5 (the API's snake_case spelling, --max_credits, is taken too);
  --set field=value does the same; --body '{…}' (or --body @file.json) gives a whole body first.
  A list field takes comma-separated values (--events a,b) or JSON.
  --media takes a local file (uploaded first), an https URL, a data: URI or artifact:<id>; it goes
  to the field that takes its kind (--media first-frame=a.png, or --first-frame a.png, names the
  field). Every output is saved as <out>/<task_id>-<index>.<ext> (default: the current directory).
  text_to_speech without --voice speaks with the model's default voice (the first the catalog lists for it).
  media-api generate <capability> --help lists the capability's fields; media-api <command> --help any command's.
  --quote prices the request first (POST /v1/quotes) and prints the quote; the task is then created
  under it, so it runs on the quoted model and costs at most the quoted credits. Above
  --ask-above <credits> (default 0: any spend) it asks first; with no terminal to ask, it refuses
  unless --yes is given. --max-credits <credits> caps any request. --destination <destination_id>
  writes the outputs to that storage destination too (default: the tenant's default destination).
  --retention-days <n> keeps the outputs n days (1 to 365, at most the tenant's retention, which is
  also the default); then they are deleted (media-api tasks delete-outputs <task_id> does it sooner).

Routing (generate, and the quote of --quote):
  --models <id,id,…>        instead of --model: 1 to 5 concrete model ids (not auto), tried in this
                            order; the first that can serve does. The outcome names the model that
                            served and each one passed over, with why. Not with --model.
  --provider-order <p,…>    providers to try first, in this order (names as media-api models shows them)
  --provider-only <p,…>     use these providers and no other
  --provider-ignore <p,…>   never use these providers
  --sort price|latency      order the other routes by their price for the request, or by measured latency
  --no-fallbacks            only the providers of --provider-order (without it, only the first route)
                            may serve; the others are never tried

Options:
  --json              machine-readable JSON only on stdout (progress goes to stderr)
  --base-url <url>    default $MEDIA_API_BASE_URL, else ${DEFAULT_BASE_URL}
  --api-key <key>     default $MEDIA_API_KEY
  --version, --help

Exit codes: 0 success, 1 API error or a task that did not succeed, 2 usage error.
`;

export function capabilities(): string[] {
  return (Object.values(OPERATIONS) as OperationRow[])
    .map((r) => r.capability)
    .filter((c): c is string => !!c)
    .sort();
}

/** Wraps text at `width` columns, each line after `indent`. */
function wrap(text: string, indent: string, width = 100): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines;
}

const show = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/**
 * Fields the command line fills when they are not given, though the API requires them: what it
 * fills them with.
 */
export const CLI_DEFAULTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  createSpeech: { voice: "the model's default voice: the first voice the catalog lists for it (media-api voices)" },
  setProviderKey: { mode: "prefer" },
  createChatCompletion: { messages: "the prompt argument (after --messages-file and --system)" },
};

/**
 * One operation's body fields, each as its flag (kebab-case) with its type, whether it is
 * required, its default, the values it allows, its range and its description, as the OpenAPI
 * document gives them (through the generated table).
 */
export function fieldHelp(title: string, row: OperationRow, operationId?: string): string {
  const fields = Object.entries(row.fields ?? {}).filter(([f]) => !f.endsWith(".*"));
  const media = new Map((row.media ?? []).map((m) => [m.field, m]));
  const filled = (operationId && CLI_DEFAULTS[operationId]) || {};
  const out = [`${title}: ${row.method} ${row.path} — ${row.summary}`, ""];
  if (fields.length === 0) out.push("It takes no body fields.");
  for (const [f, types] of fields) {
    const m = media.get(f);
    const doc = row.docs?.[f] ?? {};
    const type = m
      ? `media (${m.shape === "one" ? "one" : m.shape === "many" ? "a list" : "references"}: a file, URL, data: URI or artifact:<id>)`
      : types.length
        ? types.join("|")
        : "any JSON";
    const facts: string[] = [];
    if (row.required?.includes(f)) facts.push(filled[f] ? "required by the API" : "required");
    if (doc.default !== undefined) facts.push(`default ${show(doc.default)}`);
    if (filled[f]) facts.push(`default ${filled[f]}`);
    if (doc.enum?.length) facts.push(`${types.includes("array") ? "each one of" : "one of"}: ${doc.enum.map(show).join(", ")}`);
    if (doc.minimum !== undefined || doc.maximum !== undefined)
      facts.push(
        doc.minimum !== undefined && doc.maximum !== undefined
          ? `${doc.minimum} to ${doc.maximum}`
          : doc.minimum !== undefined
            ? `at least ${doc.minimum}`
            : `at most ${doc.maximum}`,
      );
    out.push(`  --${kebab(f)}  ${type}${facts.length ? `  (${facts.join("; ")})` : ""}`);
    if (doc.description) out.push(...wrap(doc.description, "      "));
  }
  const maps = Object.keys(row.fields ?? {})
    .filter((f) => f.endsWith(".*"))
    .map((f) => `--${kebab(f.slice(0, -2))}.<key>`);
  if (maps.length) out.push("", `Map entries: ${maps.join(", ")} <value>.`);
  out.push(
    "",
    "Every field is also --set field=value (dotted when nested), or part of --body '{…}' (or --body @file.json).",
    "Flags are kebab-case (--max-credits); the API's snake_case (--max_credits) is taken too.",
  );
  return `${out.join("\n")}\n`;
}
