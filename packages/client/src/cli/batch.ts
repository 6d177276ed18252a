/**
 * `media-api batch run <file.jsonl> --operation <capability>`: uploads the JSON lines file, starts
 * a batch from it, draws its progress until it ends, and saves its results file. `batch get` and
 * `batch cancel` read and stop one. Progress goes to stderr with --json, so stdout stays JSON.
 * `drawn` is the last progress line drawn, so that the command does not print it again.
 */
import type { BatchEnvelope, MediaClient } from "../client.js";
import { UsageError } from "./args.js";
import type { Out } from "./progress.js";

const BAR = 30;

/** `[#######-----]  412/1000  succeeded 400  failed 2  canceled 10  running 20`. */
export function describeBatch(b: BatchEnvelope): string {
  const c = b.counts;
  const ended = c.succeeded + c.failed + c.canceled;
  const filled = c.total === 0 ? BAR : Math.round((ended / c.total) * BAR);
  return `[${"#".repeat(filled)}${"-".repeat(BAR - filled)}] ${ended}/${c.total}  ${b.status}  succeeded ${c.succeeded}  failed ${c.failed}  canceled ${c.canceled}  running ${c.running}`;
}

export interface BatchRunOptions {
  file: string;
  operation: string;
  concurrency?: number;
  maxCredits?: string;
  out?: string;
  idempotencyKey?: string;
  wait: boolean;
  pollMs?: number;
}

export async function runBatch(
  client: MediaClient,
  o: BatchRunOptions,
  io: { stdout: Out; stderr: Out; json: boolean },
): Promise<{ batch: BatchEnvelope; saved: string | null; drawn: string }> {
  if (!o.operation) throw new UsageError("--operation is missing (the capability every line runs, e.g. text_to_image)");
  const log = io.json ? io.stderr : io.stdout;
  const upload = await client.uploads.fromFile(o.file, { contentType: "application/jsonl" });
  log.write(`uploaded ${o.file} → ${upload.artifact_id} (${(upload as { lines?: number }).lines ?? "?"} lines)\n`);
  const created = await client.batches.create(
    {
      operation: o.operation as never,
      input_file_id: upload.artifact_id,
      ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
      ...(o.maxCredits !== undefined ? { max_credits: o.maxCredits } : {}),
    },
    o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {},
  );
  log.write(`batch ${created.batch_id}\n`);
  if (!o.wait) return { batch: created, saved: null, drawn: "" };
  let last = "";
  const draw = (b: BatchEnvelope) => {
    const line = describeBatch(b);
    if (line === last) return;
    last = line;
    log.write(log.isTTY ? `\r${line}` : `${line}\n`);
  };
  const done = await client.batches.wait(created, { onProgress: draw, ...(o.pollMs ? { pollIntervalMs: o.pollMs } : {}) });
  if (log.isTTY) log.write("\n");
  if (!done.output_file_id) return { batch: done, saved: null, drawn: last };
  const path = o.out ?? `${done.batch_id}.results.jsonl`;
  await client.artifacts.download(done.output_file_id, path);
  log.write(`results saved to ${path}\n`);
  return { batch: done, saved: path, drawn: last };
}
