/**
 * The soak's batch from an uploaded file: 2,000 text items (video_prompt_enhance on the sandbox)
 * in a JSON lines upload, named by one `POST /v1/batches` with concurrency 100. It starts once the
 * last crash is behind (so that every item is owed a success) while the traffic goes on, on a
 * tenant of its own (a test-mode key), apart from the tenants whose tasks and ledgers the checker
 * accounts for. The batch is followed to its end, the most items seen running at once kept; its
 * envelope, its items and its output file's lines go to the history for check.ts: every item
 * succeeded, never more than the concurrency at once, an exact output file in item order.
 * (It was the 2,000-item test of test/batches/input-file.test.ts, which keeps a smaller one.)
 */
import type { FileBatchRecord, History } from "./history.ts";
import type { SoakServer } from "./server.ts";

export const SOAK_FILE_BATCH_ITEMS = 2000;
export const SOAK_FILE_BATCH_CONCURRENCY = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const line = (i: number) =>
  JSON.stringify({ custom_id: `row-${i}`, body: { prompt: `a slow pan over hills at dawn, shot ${i}` } });

/** A request to the server, tried again (at most `tries` times) while it answers 5xx or not at all. */
async function send(
  server: SoakServer,
  path: string,
  init: { key: string; method?: string; body?: string; headers?: Record<string, string> },
  tries = 5,
): Promise<{ status: number; text: string; json: any }> {
  for (let n = 1; ; n++) {
    try {
      const r = await fetch(`${server.base}${path}`, {
        method: init.method ?? (init.body === undefined ? "GET" : "POST"),
        headers: { Authorization: `Bearer ${init.key}`, ...(init.headers ?? {}) },
        ...(init.body === undefined ? {} : { body: init.body }),
        signal: AbortSignal.timeout(60_000),
      });
      const text = await r.text();
      let json: any = null;
      try {
        json = JSON.parse(text);
      } catch {}
      if (r.status < 500 || n >= tries) return { status: r.status, text, json };
    } catch (e) {
      if (n >= tries) throw e;
    }
    await sleep(1000);
  }
}

export async function runSoakFileBatch(server: SoakServer, history: History, until: number): Promise<void> {
  const record: FileBatchRecord = {
    type: "file_batch",
    at: Date.now(),
    batch_id: null,
    planned: SOAK_FILE_BATCH_ITEMS,
    concurrency: SOAK_FILE_BATCH_CONCURRENCY,
    most_running: 0,
    status: null,
    counts: null,
    items: [],
    output_lines: null,
    error: null,
  };
  try {
    const tenant = await server.admin("POST", "/admin/v1/tenants", { name: "soak files", credits: "100" });
    if (tenant.status >= 300) throw new Error(`tenant: ${tenant.status} ${JSON.stringify(tenant.json)}`);
    const made = await server.admin("POST", `/admin/v1/tenants/${tenant.json.tenant_id}/api-keys`, { mode: "test" });
    if (made.status >= 300) throw new Error(`test key: ${made.status} ${JSON.stringify(made.json)}`);
    const key = made.json.api_key as string;
    const file = await send(server, "/v1/uploads", {
      key,
      body: Array.from({ length: SOAK_FILE_BATCH_ITEMS }, (_, i) => line(i)).join("\n"),
      headers: { "Content-Type": "application/jsonl" },
    });
    if (file.status !== 201) throw new Error(`upload: ${file.status} ${file.text.slice(0, 300)}`);
    const created = await send(server, "/v1/batches", {
      key,
      body: JSON.stringify({
        operation: "video_prompt_enhance",
        input_file_id: file.json.artifact_id,
        concurrency: SOAK_FILE_BATCH_CONCURRENCY,
      }),
      headers: { "Content-Type": "application/json", "Idempotency-Key": "soak-file-batch-1" },
    });
    if (created.status !== 202 && created.status !== 200)
      throw new Error(`batch: ${created.status} ${created.text.slice(0, 300)}`);
    const batchId = created.json.batch_id as string;
    record.batch_id = batchId;
    let envelope: any = created.json;
    while (Date.now() < until) {
      const a = await send(server, `/v1/batches/${batchId}`, { key });
      if (a.status === 200) {
        envelope = a.json;
        record.most_running = Math.max(record.most_running, Number(envelope.counts?.running ?? 0));
      }
      if (["completed", "canceled"].includes(envelope?.status)) break;
      await sleep(250);
    }
    record.status = envelope?.status ?? null;
    record.counts = envelope?.counts ?? null;
    let cursor: string | null = null;
    do {
      const page = await send(server, `/v1/batches/${batchId}/items?limit=1000${cursor ? `&cursor=${cursor}` : ""}`, { key });
      if (page.status !== 200) throw new Error(`items: ${page.status} ${page.text.slice(0, 300)}`);
      for (const i of page.json.data as { custom_id: string; task_id: string | null; status: string }[])
        record.items.push({ custom_id: i.custom_id, task_id: i.task_id, status: i.status });
      cursor = page.json.next_cursor ?? null;
    } while (cursor);
    if (envelope?.output_file_id) {
      const out = await send(server, `/v1/artifacts/${envelope.output_file_id}`, { key });
      if (out.status !== 200) throw new Error(`output file: ${out.status} ${out.text.slice(0, 300)}`);
      record.output_lines = out.text
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => {
          const o = JSON.parse(l) as {
            custom_id: string;
            task_id: string;
            status: string;
            output?: { text?: unknown };
            error?: unknown;
          };
          return {
            custom_id: o.custom_id,
            task_id: o.task_id,
            status: o.status,
            text: typeof o.output?.text === "string",
            error: o.error !== undefined,
          };
        });
    }
  } catch (e) {
    record.error = e instanceof Error ? e.message : String(e);
  }
  record.at = Date.now();
  history.write(record);
}
