import { expect } from "vitest";
import { call, type TestTenant } from "../helpers/api";
import { newKey } from "../helpers/tasks";

export function createBatch(t: TestTenant, body: Record<string, unknown>, key: string | null = newKey()) {
  return call("/v1/batches", { key: t.api_key, body, headers: key === null ? {} : { "Idempotency-Key": key } });
}

export const getBatch = (t: TestTenant, id: string) => call(`/v1/batches/${id}`, { key: t.api_key });

/** `n` text_to_image items, `custom_id` `item-<i>`. */
export function imageItems(
  n: number,
  body: (i: number) => Record<string, unknown> = (i) => ({ prompt: `a lighthouse, variant ${i}` }),
) {
  return Array.from({ length: n }, (_, i) => ({ custom_id: `item-${i}`, body: body(i) }));
}

/** Polls like a client until the batch has ended (its alarm and its tasks' alarms run by themselves). */
export async function waitForBatch(
  t: TestTenant,
  id: string,
  done = (b: any) => ["completed", "canceled"].includes(b.status),
  // Within the test's own timeout, so that a batch that does not end says where it stopped.
  ms = 25_000,
) {
  const until = Date.now() + ms;
  for (;;) {
    const res = await getBatch(t, id);
    expect(res.status, res.text).toBe(200);
    if (done(res.json)) return res.json;
    if (Date.now() > until) throw new Error(`batch ${id} did not end: ${JSON.stringify(res.json.counts)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every item of a batch, page by page. */
export async function allItems(t: TestTenant, id: string, query = "") {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const res = await call(`/v1/batches/${id}/items?limit=1000${query}${cursor ? `&cursor=${cursor}` : ""}`, { key: t.api_key });
    expect(res.status, res.text).toBe(200);
    items.push(...res.json.data);
    cursor = res.json.next_cursor;
  } while (cursor);
  return items;
}

/** The output file's lines, read with the owner's key. */
export async function outputLines(t: TestTenant, batch: any) {
  const res = await call(`/v1/artifacts/${batch.output_file_id}`, { key: t.api_key });
  expect(res.status, res.text).toBe(200);
  return res.text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}
