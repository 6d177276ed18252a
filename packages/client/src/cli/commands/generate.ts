/** `media-api generate`: a request from flags and media inputs, an optional quote first, then the task followed to its end. */
import { stat } from "node:fs/promises";
import { operationForCapability } from "../../client.js";
import { OPERATIONS } from "../../generated/operations.js";
import { kindOf, sniffMediaType, typeByName } from "../../media-types.js";
import type { OperationRow } from "../../operation-row.js";
import { UsageError } from "../args.js";
import {
  applyFields,
  applyRouting,
  assignInputs,
  checkOneModel,
  type InputSource,
  type MediaKind,
  placeInputs,
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
  applyRouting(body, opts);
  const { fields, media } = splitMediaFlags(row, opts.rest());
  applyFields(body, row, fields, sets, capability);
  checkOneModel(body);
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
