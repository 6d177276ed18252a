/**
 * The batch row of `npm run bench`: tasks started per second by one batch against the same number
 * of individual creates, in the same run. The sandbox is slowed there, so tasks stay running: a
 * batch of N items with concurrency N has started them all once none is queued.
 */
const ITEMS = Number(process.env.BENCH_BATCH_ITEMS ?? 100);

export interface BatchRow {
  items: number;
  batch: { seconds: number; tasksPerSecond: number };
  creates: { seconds: number; tasksPerSecond: number; concurrency: number };
}

export async function measureBatchRow(base: string, auth: Record<string, string>, concurrency = 16): Promise<BatchRow> {
  const body = { prompt: "bench", canvas: { type: "preset", tier: "1K", aspect: "1:1" } };
  const stamp = Date.now();
  // Individual creates, `concurrency` at a time.
  let next = 0;
  const c0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ITEMS) {
        const i = next++;
        const res = await fetch(`${base}/v1/images/generations`, {
          method: "POST",
          headers: { ...auth, "Content-Type": "application/json", "Idempotency-Key": `bench-one-${stamp}-${i}` },
          body: JSON.stringify(body),
        });
        await res.arrayBuffer();
        if (res.status !== 202) throw new Error(`create answered ${res.status}`);
      }
    }),
  );
  const createSeconds = (performance.now() - c0) / 1000;
  // One batch of as many items, all allowed in flight: timed until none is queued.
  const b0 = performance.now();
  const created = await fetch(`${base}/v1/batches`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json", "Idempotency-Key": `bench-batch-${stamp}` },
    body: JSON.stringify({
      operation: "text_to_image",
      concurrency: Math.min(ITEMS, 100),
      items: Array.from({ length: ITEMS }, (_, i) => ({ custom_id: `b${i}`, body })),
    }),
  });
  const batch = (await created.json()) as { batch_id?: string };
  if (created.status !== 202 || !batch.batch_id) throw new Error(`batch answered ${created.status}`);
  for (;;) {
    const read = (await (await fetch(`${base}/v1/batches/${batch.batch_id}`, { headers: auth })).json()) as {
      counts: { queued: number };
    };
    if (read.counts.queued === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const batchSeconds = (performance.now() - b0) / 1000;
  await fetch(`${base}/v1/batches/${batch.batch_id}/cancel`, { method: "POST", headers: auth });
  return {
    items: ITEMS,
    batch: { seconds: batchSeconds, tasksPerSecond: ITEMS / batchSeconds },
    creates: { seconds: createSeconds, tasksPerSecond: ITEMS / createSeconds, concurrency },
  };
}

export function printBatchRow(r: BatchRow): void {
  console.log(
    `\ntasks started: one batch of ${r.items} items vs ${r.items} creates (${r.creates.concurrency} connections), same run`,
  );
  console.log(
    `  batch    ${r.batch.tasksPerSecond.toFixed(1).padStart(8)} tasks/s  (${r.batch.seconds.toFixed(2)} s, validation included)`,
  );
  console.log(`  creates  ${r.creates.tasksPerSecond.toFixed(1).padStart(8)} tasks/s  (${r.creates.seconds.toFixed(2)} s)`);
  const ratio = r.batch.tasksPerSecond / r.creates.tasksPerSecond;
  console.log(
    `  ${ratio >= 1 ? "pass" : "FAIL"}  batch ÷ creates              ${ratio.toFixed(2).padStart(6)}×  (target ≥ 1.00×)`,
  );
}
