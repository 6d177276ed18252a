/**
 * The soak's batch: 500 sandbox images in one `POST /v1/batches`, created early in the traffic so
 * that both crashes fall while it runs. The create is sent again with the same Idempotency-Key
 * until it is answered (a crash may take its answer); the batch is then followed to its end, and
 * its envelope, its items and its output file's lines go to the history for check.ts.
 */
import type { BatchRecord, History } from "./history.ts";
import type { Tenant, World } from "./traffic.ts";

export const SOAK_BATCH_ITEMS = 500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runSoakBatch(world: World, tenant: Tenant, history: History, startAt: number): Promise<void> {
  await sleep(Math.max(0, startAt - Date.now()));
  const key = tenant.live_keys[0] as string;
  const items = Array.from({ length: SOAK_BATCH_ITEMS }, (_, i) => ({
    custom_id: `item-${String(i).padStart(4, "0")}`,
    body: {
      model: "seedream-4.0",
      prompt: `a paper boat on a pond, soak batch item ${i}`,
      canvas: { type: "preset", tier: "1K", aspect: "1:1" },
    },
  }));
  const body = { operation: "text_to_image", items, concurrency: 25, metadata: { soak: "batch" } };
  let batchId: string | null = null;
  while (batchId === null && Date.now() < world.hardStop) {
    const a = await world.exchange("batch", tenant, "batch_create", "POST", "/v1/batches", {
      key,
      body,
      idem: "soak-batch-1",
      timeoutMs: 60_000,
    });
    if (a.status === 202 || a.status === 200) batchId = a.json?.batch_id ?? null;
    else if (a.status !== null && a.status < 500 && a.status !== 409 && a.status !== 429) break;
    else await sleep(1000);
  }
  const record: BatchRecord = {
    type: "batch",
    at: Date.now(),
    tenant: tenant.name,
    batch_id: batchId,
    planned: SOAK_BATCH_ITEMS,
    status: null,
    counts: null,
    items: [],
    output_lines: null,
  };
  if (batchId === null) {
    history.write(record);
    return;
  }
  // Followed until it ends: through the traffic, the crashes and (at most 3 minutes) after.
  const until = world.trafficEnd + 180_000;
  let envelope: any = null;
  while (Date.now() < until) {
    const a = await world.exchange("batch", tenant, "batch_read", "GET", `/v1/batches/${batchId}`, { key });
    if (a.status === 200) envelope = a.json;
    if (envelope && ["completed", "canceled"].includes(envelope.status)) break;
    await sleep(2000);
  }
  record.status = envelope?.status ?? null;
  record.counts = envelope?.counts ?? null;
  let cursor: string | null = null;
  do {
    const page = await world.exchange(
      "batch",
      tenant,
      "batch_read",
      "GET",
      `/v1/batches/${batchId}/items?limit=1000${cursor ? `&cursor=${cursor}` : ""}`,
      { key },
    );
    if (page.status !== 200) break;
    for (const i of page.json.data as { custom_id: string; task_id: string | null; status: string }[])
      record.items.push({ custom_id: i.custom_id, task_id: i.task_id, status: i.status });
    cursor = page.json.has_more ? page.json.next_cursor : null;
  } while (cursor);
  if (envelope?.output_file_url) {
    try {
      const res = await fetch(envelope.output_file_url, { headers: { Authorization: `Bearer ${key}` } });
      const text = await res.text();
      record.output_lines = text
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => {
          const line = JSON.parse(l) as { custom_id: string; task_id: string; status: string };
          return { custom_id: line.custom_id, task_id: line.task_id, status: line.status };
        });
    } catch {
      record.output_lines = null;
    }
  }
  record.at = Date.now();
  history.write(record);
}
