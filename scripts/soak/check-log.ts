/**
 * The checker's "log" property: the request log agrees with the bill. Every settled ledger row of
 * a tenant names its request; for every request the ledger charged (the sum of its rows' captured
 * credits, above zero), the log has an entry with exactly that charge, settled; and every entry
 * with a charge above zero is such a request. Entries the log rebuilt from the ledger (their own
 * lost with a killed isolate) count as entries, and are reported.
 */
import Big from "big.js";
import type { LedgerRowsRecord, RequestLogRecord } from "./history.ts";

export interface LogCheck {
  lines: string[];
  failures: { what: string; items: string[] }[];
}

export function checkLogAgainstLedger(logs: RequestLogRecord[], ledgers: LedgerRowsRecord[], tenants: string[]): LogCheck {
  const lines: string[] = [];
  const failures: LogCheck["failures"] = [];
  const failSome = (what: string, items: string[]) => {
    if (items.length > 0) failures.push({ what, items });
  };
  for (const tenant of tenants) {
    const log = logs.find((l) => l.tenant === tenant);
    const rows = ledgers.find((l) => l.tenant === tenant);
    if (!log || !rows) {
      failures.push({ what: `${tenant}: the log or the ledger's rows were not read`, items: [tenant] });
      continue;
    }
    failSome(
      `${tenant}: settled ledger rows that name no request`,
      rows.rows.filter((r) => r.request_id === null).map((r) => r.id),
    );
    const billed = new Map<string, Big>();
    for (const r of rows.rows) {
      if (r.request_id === null || r.status !== "captured") continue;
      billed.set(r.request_id, (billed.get(r.request_id) ?? new Big(0)).plus(r.captured));
    }
    const logged = new Map(log.charged.map((e) => [e.request_id, e]));
    const missing: string[] = [];
    const differ: string[] = [];
    for (const [id, sum] of billed) {
      if (sum.eq(0)) continue;
      const e = logged.get(id);
      if (!e) missing.push(`${id} (${sum.toString()})`);
      else if (!e.settled || !new Big(e.charged).eq(sum))
        differ.push(`${id}: log ${e.charged}${e.settled ? "" : " unsettled"}, ledger ${sum.toString()}`);
    }
    const unbilled = log.charged
      .filter((e) => new Big(e.charged).gt(0) && !billed.has(e.request_id))
      .map((e) => `${e.request_id} (${e.charged}, ${e.route})`);
    failSome(`${tenant}: requests the ledger charged that the log does not show charged`, missing);
    failSome(`${tenant}: requests whose logged charge is not the ledger's`, differ);
    failSome(`${tenant}: logged charges the ledger does not hold`, unbilled);
    const recovered = log.charged.filter((e) => e.recovered).length;
    const charged = [...billed.values()].filter((s) => s.gt(0)).length;
    lines.push(
      `  ${tenant.padEnd(7)} ${String(log.read).padStart(6)} entries, ${String(charged).padStart(5)} requests charged, every one logged with its charge: ${missing.length + differ.length + unbilled.length === 0 ? "yes" : "NO"}${recovered ? ` (${recovered} rebuilt from the ledger)` : ""}`,
    );
  }
  return { lines, failures };
}
