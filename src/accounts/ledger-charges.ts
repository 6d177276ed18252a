import { type Decimal, dec, fmt } from "../lib/decimal";
import type { AccountContext } from "../tenancy/account-context";
import { bumpFamilySpend, familyChain, limitedStandings } from "./key-family";
import { bumpKeySpend } from "./key-spend";
import type { ChargeItem, Settlement } from "./ledger-answers";
import type { LedgerStore } from "./ledger-store";
import { wakeForLog } from "./log-forward";
import type { AlertRecorder, SpendAlerts } from "./spend-alerts";
import { recordUsageBatch, type UsageNote } from "./usage";

/**
 * Several charges of calls that held nothing (chat calls settled together by one isolate), in one
 * write: each as far as the balance left by the ones before it goes (and, for a key with a credit
 * limit, as far as that limit goes), each idempotent per id, recorded as a reservation captured at
 * once so the ledger's rows and totals read as for any other charge. The totals are read and
 * written once for the whole batch, and each key's spend once per key. Answers each charge's
 * settlement, in order, and the balance.
 */
export function chargeBatch(
  ctx: AccountContext,
  ledger: LedgerStore,
  alerts: SpendAlerts,
  items: ChargeItem[],
): { settlements: Settlement[]; balance: string } {
  const sql = ctx.sql;
  const nowMs = Date.now();
  const at = new Date(nowMs).toISOString();
  const settlements: Settlement[] = [];
  // The request log hears of these charges from the alarm soon after (src/accounts/log-forward.ts).
  wakeForLog(ctx, nowMs);
  // Per key of the batch: its chain, what it charged and its alerts to record; per limited
  // lineage of those chains: what its limit leaves, shared by every key of its family.
  const keys = new Map<string, { chain: string[]; alerts: AlertRecorder | null; spent: Decimal }>();
  const left = new Map<string, Decimal>();
  const keyOf = (keyId: string) => {
    let k = keys.get(keyId);
    if (!k) {
      const chain = familyChain(sql, keyId);
      for (const s of limitedStandings(sql, chain, nowMs))
        if (!left.has(s.lineage) && s.remaining !== null) left.set(s.lineage, dec(s.remaining));
      k = { chain, alerts: alerts.for(keyId, at), spent: dec(0) };
      keys.set(keyId, k);
    }
    return k;
  };
  const usages: { id: string; credits: Decimal; note: UsageNote }[] = [];
  ctx.transaction(() => {
    const t = ledger.totals();
    let balance = dec(t.granted).minus(t.captured).minus(t.reserved);
    let captured = dec(t.captured);
    for (const { id, amount, usage, key_id: keyId, request_id: requestId } of items) {
      let kept = balance.lte(0) ? dec(0) : balance.lt(amount) ? balance : dec(amount);
      const key = keyId ? keyOf(keyId) : null;
      for (const lineage of key?.chain ?? []) {
        const room = left.get(lineage);
        if (room && kept.gt(room)) kept = room;
      }
      const keptText = fmt(kept);
      const written = sql.exec(
        "INSERT INTO reservations (task_id, amount, status, captured_amount, created_at, settled_at, key_id, request_id) VALUES (?, ?, 'captured', ?, ?, ?, ?, ?) ON CONFLICT (task_id) DO NOTHING",
        id,
        keptText,
        keptText,
        at,
        at,
        keyId ?? null,
        requestId ?? null,
      ).rowsWritten;
      if (written === 0) {
        // Charged before (a repeated batch): its first outcome stands.
        settlements.push(ledger.settlement(id) as Settlement);
        continue;
      }
      balance = balance.minus(kept);
      captured = captured.plus(kept);
      if (key) {
        key.spent = key.spent.plus(kept);
        for (const lineage of key.chain) {
          const room = left.get(lineage);
          if (room) left.set(lineage, room.minus(kept));
        }
      }
      if (usage) usages.push({ id, credits: kept, note: usage });
      settlements.push({ task_id: id, status: "captured", reserved: keptText, captured: keptText, refunded: "0" });
    }
    ledger.setTotals({ ...t, captured: fmt(captured) });
    recordUsageBatch(sql, at, usages);
    for (const [keyId, key] of keys) {
      if (key.spent.gt(0)) {
        bumpKeySpend(sql, keyId, at, dec(0), key.spent);
        bumpFamilySpend(sql, key.chain, at, dec(0), key.spent);
      }
    }
    // After every key's figures moved: a family's alert reads all of them.
    for (const key of keys.values()) key.alerts?.record();
  });
  if ([...keys.values()].some((k) => k.alerts)) alerts.mail();
  return { settlements, balance: ledger.balance() };
}

/**
 * Charges `amount` for a call that held nothing (a chat call admitted on a balance known to
 * cover it), as far as the balance goes, in one write. Idempotent per id.
 */
export function chargeOne(
  ctx: AccountContext,
  ledger: LedgerStore,
  alerts: SpendAlerts,
  item: { id: string; amount: string; usage?: UsageNote | undefined; key_id?: string | undefined },
): { settlement: Settlement; balance: string } {
  const { id, amount, usage, key_id: keyId } = item;
  const { settlements, balance } = chargeBatch(ctx, ledger, alerts, [
    { id, amount, ...(usage ? { usage } : {}), ...(keyId ? { key_id: keyId } : {}) },
  ]);
  return { settlement: settlements[0] as Settlement, balance };
}
