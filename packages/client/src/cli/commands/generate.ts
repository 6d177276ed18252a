/** `media-api generate`: a request from flags and media inputs, an optional quote first, then the task followed to its end. */
import { stat } from "node:fs/promises";
import { type MediaClient, operationForCapability } from "../../client.js";
import { OPERATIONS, type OperationId } from "../../generated/operations.js";
import { kindOf, sniffMediaType, typeByName } from "../../media-types.js";
import type { OperationRow } from "../../operation-row.js";
import type { ResultOf } from "../../types.js";
import { UsageError } from "../args.js";
import {
  applyFields,
  applyRouting,
  assignInputs,
  checkOneModel,
  type InputSource,
  type MediaKind,
  placeInputs,
  readBody,
  splitInput,
  splitMediaFlags,
} from "../body.js";
import { type Ctx, print, requireKeyNotice } from "../context.js";
import { table } from "../format.js";
import { capabilities, fieldHelp, HELP } from "../help.js";
import { fallbackLines, finishTask, followTask } from "../tasks.js";

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

/**
 * A create's body from the command line: `--body`, the routing flags, `--set` and the field
 * flags, then the media inputs (local files uploaded first). Every input is checked and placed
 * before anything is uploaded. Speech without `--voice` gets the model's default voice.
 */
export async function buildCreateBody(
  ctx: Ctx,
  id: OperationId,
  capability: string,
  amend: (body: Record<string, unknown>) => void = () => {},
): Promise<Record<string, unknown>> {
  const { opts, io, client, json } = ctx;
  const row = OPERATIONS[id] as OperationRow;
  const body = await readBody(opts.string("body"));
  const sets = opts.strings("set");
  const inputs = opts.strings("media");
  applyRouting(body, opts);
  const { fields, media } = splitMediaFlags(row, opts.rest());
  applyFields(body, row, fields, sets, capability);
  checkOneModel(body);
  amend(body);

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
  if (id === "createSpeech" && body.voice === undefined) {
    const voice = await defaultVoice(client, body);
    body.voice = voice.voice_id;
    log.write(`voice ${voice.voice_id} (${voice.display_name}): ${voice.why}; --voice picks another (media-api voices)\n`);
  }
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
  return body;
}

/**
 * The voice speech takes when none is given: the first ready voice the catalog lists for the
 * model (for `auto`, for a live speech model), preferring one that speaks `language` when given.
 */
export async function defaultVoice(
  client: MediaClient,
  body: Record<string, unknown>,
): Promise<{ voice_id: string; display_name: string; why: string }> {
  const named = typeof body.model === "string" && body.model !== "auto" ? body.model : undefined;
  const model = named ?? (Array.isArray(body.models) && typeof body.models[0] === "string" ? body.models[0] : undefined);
  let models: Set<string>;
  if (model) models = new Set([model]);
  else {
    const list = await client.models.list();
    models = new Set(list.data.filter((m) => m.available && m.capabilities.includes("text_to_speech")).map((m) => m.id));
  }
  const voices = (await client.voices.list()).data.filter(
    (v) => (v.status === undefined || v.status === "ready") && v.compatible_models.some((m) => models.has(m)),
  );
  const language = typeof body.language === "string" ? body.language.toLowerCase() : undefined;
  const speaks = (v: (typeof voices)[number]) =>
    !language ||
    [v.language, ...(v.languages_supported ?? [])].some((l) => {
      const tag = l.toLowerCase();
      return tag === language || tag.split("-")[0] === language.split("-")[0];
    });
  const voice = voices.find(speaks) ?? voices[0];
  if (!voice)
    throw new UsageError(
      `no voice in the catalog for ${model ?? "a live speech model"}: pass --voice <voice_id> (media-api voices lists them)`,
    );
  const why = model ? `the default voice of ${model}` : "the default voice of the live speech models";
  return { voice_id: voice.voice_id, display_name: voice.display_name, why };
}

export async function generate(ctx: Ctx): Promise<number> {
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
    io.stdout.write(fieldHelp(`generate ${capability}`, row, id));
    return 0;
  }
  if (!client.transport.apiKey) requireKeyNotice();

  // The command's own options first (GENERATE_OPTIONS): every option left is a request field.
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
  const body = await buildCreateBody(ctx, id, capability, (b) => {
    if (retentionDays !== undefined) b.output_retention_days = Number(retentionDays);
  });

  if (quoteFirst) {
    const agreed = await quoteAndConfirm(ctx, capability, body, { askAbove, yes });
    if (!agreed) return 1;
  }
  const task = await client.create(id, body as never, idempotencyKey ? { idempotencyKey } : {});
  if (noWait) {
    print(ctx, task, () => `${task.task_id}  ${task.status}  (follow it: media-api tasks wait ${task.task_id})`);
    return 0;
  }
  if (!json) {
    const model = task.models?.length ? `models ${task.models.join(", ")} → ${task.resolved_model}` : `model ${task.model}`;
    io.stdout.write(`task ${task.task_id} ${task.status} · ${model}\n`);
    for (const line of fallbackLines(task)) io.stdout.write(`${line}\n`);
  }
  const final = await followTask(client, task, {
    io,
    json,
    ...(timeout ? { timeoutMs: timeout * 1000 } : {}),
    interrupt: io.interrupt,
  });
  return finishTask(client, final, { io, json, out });
}

/** A quote: its id, model, most credits and expiry, then its lines as a table. */
export function describeQuote(q: ResultOf<"createQuote">): string {
  return `quote ${q.quote_id} · model ${q.resolved_model} · at most ${q.credits} credits · until ${q.expires_at}\n${table(
    ["meter", "quantity", "unit", "unit credits", "credits"],
    q.lines.map((l) => [l.meter, l.quantity, l.unit, l.unit_credits, l.credits]),
  )}`;
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
  else log.write(`${describeQuote(q)}\n`);
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
