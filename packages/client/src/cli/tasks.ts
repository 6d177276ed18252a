/** Following a task with a live view, and what the command line does once it ended. */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { MediaClient } from "../client.js";
import { extensionFor } from "../media-types.js";
import { outputArtifacts, type TaskEnvelope } from "../types.js";
import { bytes, mediaFacts } from "./format.js";
import { type Out, ProgressView } from "./progress.js";

export interface Io {
  stdout: Out;
  stderr: Out;
}

export class Interrupted extends Error {
  override readonly name = "Interrupted";
}

/** Follows a task to its end, drawing its progress (on stderr with --json, so stdout stays JSON). */
export async function followTask(
  client: MediaClient,
  task: string | TaskEnvelope,
  o: { io: Io; json: boolean; timeoutMs?: number; interrupt?: AbortSignal | undefined },
): Promise<TaskEnvelope> {
  const taskId = typeof task === "string" ? task : task.task_id;
  const view = new ProgressView(o.json ? o.io.stderr : o.io.stdout, taskId);
  if (typeof task !== "string") view.update(task);
  try {
    return await client.tasks.wait(task, {
      onProgress: (u) => view.update(u),
      ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
      ...(o.interrupt ? { signal: o.interrupt } : {}),
    });
  } catch (e) {
    if (o.interrupt?.aborted) {
      throw new Interrupted(`stopped following ${taskId}; the task goes on: media-api tasks wait ${taskId}`);
    }
    throw e;
  } finally {
    view.stop();
  }
}

export interface SavedOutput {
  path: string;
  artifact_id: string;
  index: number;
  content_type: string;
  bytes: number;
  signed_url?: string;
  signed_url_expires_at?: string;
  url?: string;
}

/** Every output artifact as `<out>/<task_id>-<index>.<ext>`. */
export async function saveOutputs(client: MediaClient, task: TaskEnvelope, out: string): Promise<SavedOutput[]> {
  const artifacts = outputArtifacts(task);
  if (artifacts.length) await mkdir(out, { recursive: true });
  const saved: SavedOutput[] = [];
  for (const [i, a] of artifacts.entries()) {
    const index = a.index ?? i;
    const path = join(out, `${task.task_id}-${index}.${extensionFor(a.content_type)}`);
    const file = await client.artifacts.download(a, path);
    saved.push({
      path,
      artifact_id: a.artifact_id,
      index,
      content_type: file.contentType,
      bytes: file.bytes,
      ...(a.signed_url ? { signed_url: client.transport.resolve(a.signed_url) } : {}),
      ...(a.signed_url_expires_at ? { signed_url_expires_at: a.signed_url_expires_at } : {}),
      ...(a.url ? { url: client.transport.resolve(a.url) } : {}),
    });
  }
  return saved;
}

function seconds(task: TaskEnvelope): string {
  const start = Date.parse(task.created_at);
  const end = task.completed_at ? Date.parse(task.completed_at) : Number.NaN;
  return Number.isNaN(start) || Number.isNaN(end) ? "" : ` in ${((end - start) / 1000).toFixed(1)} s`;
}

/** One line per listed model the task passed over: `passed over <model> — <reason>: <message>`. */
export function fallbackLines(task: TaskEnvelope): string[] {
  return (task.model_fallbacks ?? []).map((f) => `  passed over ${f.model} — ${f.reason}${f.message ? `: ${f.message}` : ""}`);
}

/**
 * Prints the outcome (and the listed models passed over on the way); saves the outputs when `out` is given. 0 when the task succeeded, 1 when
 * it failed or was canceled (its error on stderr).
 */
export async function finishTask(
  client: MediaClient,
  task: TaskEnvelope,
  o: { io: Io; json: boolean; out?: string },
): Promise<number> {
  const files = task.status === "succeeded" && o.out !== undefined ? await saveOutputs(client, task, o.out) : [];
  if (o.json) o.io.stdout.write(`${JSON.stringify({ task, files }, null, 2)}\n`);
  if (task.status !== "succeeded") {
    const why = task.error ? `${task.error.message}\n  code: ${task.error.code}` : `the task ended ${task.status}`;
    o.io.stderr.write(`task ${task.task_id} ${task.status}: ${why}\n`);
    if (!o.json) for (const line of fallbackLines(task)) o.io.stderr.write(`${line}\n`);
    return 1;
  }
  if (o.json) return 0;
  const w = (line: string) => o.io.stdout.write(`${line}\n`);
  w(`✓ ${task.task_id} succeeded${seconds(task)} · model ${task.resolved_model} · ${task.billing.net_charged_credits} credits`);
  for (const line of fallbackLines(task)) w(line);
  for (const f of files) {
    const a = outputArtifacts(task).find((x) => x.artifact_id === f.artifact_id);
    w(`  saved ${f.path}  (${mediaFacts({ ...a, content_type: f.content_type, bytes: f.bytes })})`);
    if (f.signed_url)
      w(`        ${f.signed_url}${f.signed_url_expires_at ? `  (link valid until ${f.signed_url_expires_at})` : ""}`);
  }
  if (o.out === undefined) {
    for (const a of outputArtifacts(task)) {
      const link = a.signed_url ?? a.url;
      w(`  output ${a.index}: ${a.content_type} ${bytes(a.bytes)}  ${link ? client.transport.resolve(link) : a.artifact_id}`);
    }
  }
  const text = (task.output as { text?: unknown } | null)?.text;
  if (typeof text === "string") w(`\n${text}`);
  for (const warning of task.warnings ?? []) w(`  note: ${warning.message}`);
  return 0;
}
