/** The usage text, and the field list of one capability (`generate <capability> --help`). */
import { OPERATIONS } from "../generated/operations.js";
import type { OperationRow } from "../operation-row.js";
import { DEFAULT_BASE_URL } from "../transport.js";
import { table } from "./format.js";

export const HELP = `media-api — the media generation API from the command line

Usage:
  media-api generate <capability> --prompt "…" [--model <id> | --models <id,id,…>] [--<field> <value> …]
                     [--media <file|url|field=…> …] [--out <dir>] [--no-wait] [--timeout <s>]
                     [--provider-order <p,p,…>] [--provider-only <p,…>] [--provider-ignore <p,…>]
                     [--sort price|latency] [--no-fallbacks]
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
  media-api requests list [--status 200|4xx|5xx] [--route "POST /v1/…"] [--model …] [--task-id …]
                     [--key-id …] [--error-code …] [--since <time>] [--until <time>] [--limit N] [--cursor …]
  media-api requests show <request_id>  (the entry and its provider attempts as a time line)
  media-api requests replay <request_id> [--model <id>] [--idempotency-key K]

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

export function fieldHelp(capability: string, row: OperationRow): string {
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
