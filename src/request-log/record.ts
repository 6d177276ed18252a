/**
 * Entries on their way to the log, gathered per isolate: one RPC for every entry of a tenant's hour
 * that this isolate finished within WINDOW_MS (at most MAX), sent after the answer by the request
 * that opened the batch (its `waitUntil`), as the chat charges are (src/chat/charge-batch.ts). A
 * request adds its entry and returns: nothing is written on its path. A batch that cannot be
 * written is tried once more, then dropped with a line in the Worker's log; entries lost with an
 * isolate that died within the window are lost as the window's chat charges are (docs/request-log.md).
 */
import type { Env } from "../env";
import type { LogRow } from "./entry";
import { hourShard } from "./log-stub";
import { hourOf } from "./shards";

export const WINDOW_MS = 50;
export const MAX = 200;

interface Batch {
  tenantId: string;
  hour: number;
  retentionDays: number;
  rows: LogRow[];
}

const batches = new Map<string, Batch>();

/** Adds `row` to its tenant's batch; `waitUntil` keeps the opening request alive until the batch is sent. */
export function recordEntry(
  env: Env,
  tenantId: string,
  retentionDays: number,
  row: LogRow,
  waitUntil: (p: Promise<unknown>) => void,
): void {
  const hour = hourOf(row.at);
  const name = `${tenantId}:${hour}`;
  const batch = batches.get(name);
  if (batch) {
    batch.rows.push(row);
    batch.retentionDays = retentionDays;
    if (batch.rows.length >= MAX) {
      batches.delete(name);
      waitUntil(send(env, batch));
    }
    return;
  }
  const opened: Batch = { tenantId, hour, retentionDays, rows: [row] };
  batches.set(name, opened);
  waitUntil(
    new Promise<void>((resolve) => {
      setTimeout(() => {
        if (batches.get(name) !== opened) return resolve();
        batches.delete(name);
        void send(env, opened).then(resolve);
      }, WINDOW_MS);
    }),
  );
}

async function send(env: Env, batch: Batch): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await hourShard(env, batch.tenantId, batch.hour).append(batch.tenantId, batch.hour, batch.rows, batch.retentionDays);
      return;
    } catch (err) {
      if (attempt === 1)
        console.warn(`request log: ${batch.rows.length} entries of ${batch.tenantId} not written: ${String(err)}`);
    }
  }
}
