/**
 * The request log after the drain: every entry of each tenant's live keys (GET /v1/requests, every
 * page), of which those that carry credits go to the history for the checker to hold against the
 * ledger's rows (check.ts, "log"). Read once the ledger has told the log what it settled: the
 * account forwards its settlements about a second after each (src/accounts/log-forward.ts).
 */
import type { History } from "./history.ts";
import type { SoakServer } from "./server.ts";
import type { World } from "./traffic.ts";

/** Long enough for the accounts' last forwarding run (a second after the last settlement) and the log's batches. */
const QUIET_MS = 5_000;

export async function readRequestLogs(world: World, server: SoakServer, history: History): Promise<void> {
  await new Promise((r) => setTimeout(r, QUIET_MS));
  for (const t of world.tenants) {
    const charged: { request_id: string; charged: string; settled: boolean; recovered: boolean; route: string }[] = [];
    let read = 0;
    let cursor: string | null = null;
    do {
      const url: string = `${server.base}/v1/requests?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const res = await fetch(url, { headers: { Authorization: `Bearer ${t.log_key}` } });
      if (res.status !== 200) throw new Error(`GET /v1/requests for ${t.name}: ${res.status} ${await res.text()}`);
      const page = (await res.json()) as {
        data: { request_id: string; route: string; recovered: boolean; credits: { charged: string; settled: boolean } | null }[];
        next_cursor: string | null;
      };
      read += page.data.length;
      for (const e of page.data)
        if (e.credits)
          charged.push({
            request_id: e.request_id,
            charged: e.credits.charged,
            settled: e.credits.settled,
            recovered: e.recovered,
            route: e.route,
          });
      cursor = page.next_cursor;
    } while (cursor);
    history.write({ type: "request_log", at: Date.now(), tenant: t.name, tenant_id: t.tenant_id, read, charged });
  }
}
