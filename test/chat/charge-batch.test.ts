/**
 * Chat charges gathered per tenant and written together: one send for the calls an isolate
 * settles within the window (or as soon as the batch is full), awaited only by the request that
 * sends it; every owner is told its outcome; a batch that cannot be written is reported to each.
 * On the account's side, a batch is charged in order as far as the balance goes, idempotently.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Settlement } from "../../src/accounts/ledger-answers";
import { BATCH_MAX, type ChargeItem, type ChargeResult, chargeInBatch } from "../../src/chat/charge-batch";
import { newTenant } from "../helpers/api";
import { ledger } from "./helpers";

const captured = (item: ChargeItem): Settlement => ({
  task_id: item.id,
  status: "captured",
  reserved: item.amount,
  captured: item.amount,
  refunded: "0",
});

describe("chat charge batches", () => {
  it("gathers the charges of a window into one send, awaited by the request that opened the batch", async () => {
    const sent: ChargeItem[][] = [];
    const told: (ChargeResult | null)[] = [];
    const send = async (items: ChargeItem[]) => {
      sent.push(items);
      return { settlements: items.map(captured), balance: "7" };
    };
    const tenant = `ten_batch_${crypto.randomUUID()}`;
    const opener = chargeInBatch(tenant, { id: "a", amount: "1" }, send, (r) => told.push(r));
    // The others are not kept waiting on a send made by another request.
    await chargeInBatch(tenant, { id: "b", amount: "2" }, send, (r) => told.push(r));
    await chargeInBatch(tenant, { id: "c", amount: "3" }, send, (r) => told.push(r));
    expect(sent).toHaveLength(0);
    await opener;
    expect(sent.map((b) => b.map((i) => i.id))).toEqual([["a", "b", "c"]]);
    expect(told.map((r) => r?.settlement.task_id)).toEqual(["a", "b", "c"]);
    expect(told.every((r) => r?.balance === "7")).toBe(true);
  });

  it("sends a full batch at once, from the request that filled it; the opener's timer then finds it gone", async () => {
    const sent: string[][] = [];
    const send = async (items: ChargeItem[]) => {
      sent.push(items.map((i) => i.id));
      return { settlements: items.map(captured), balance: "0" };
    };
    const tenant = `ten_batch_${crypto.randomUUID()}`;
    const waits = Array.from({ length: BATCH_MAX + 1 }, (_, i) =>
      chargeInBatch(tenant, { id: `i${i}`, amount: "1" }, send, () => {}),
    );
    await Promise.all(waits);
    expect(sent[0]).toHaveLength(BATCH_MAX);
    // The one after the full batch opened the next.
    expect(sent[1]).toEqual([`i${BATCH_MAX}`]);
  });

  it("tells every owner when the batch could not be written", async () => {
    const told: (ChargeResult | null)[] = [];
    const tenant = `ten_batch_${crypto.randomUUID()}`;
    const send = async (): Promise<{ settlements: Settlement[]; balance: string }> => {
      throw new Error("account unreachable");
    };
    const opener = chargeInBatch(tenant, { id: "a", amount: "1" }, send, (r) => told.push(r));
    await chargeInBatch(tenant, { id: "b", amount: "1" }, send, (r) => told.push(r));
    await opener;
    expect(told).toEqual([null, null]);
  });

  it("the account charges a batch in order as far as the balance goes, once per id", async () => {
    const t = await newTenant({ credits: "5" });
    const account = env.ACCOUNTS.getByName(t.tenant_id);
    const items = [
      { id: "chat_req_b1", amount: "2" },
      { id: "chat_req_b2", amount: "2" },
      { id: "chat_req_b3", amount: "2" },
      { id: "chat_req_b4", amount: "2" },
    ];
    const first = await account.chargeBatch(items);
    expect(first.settlements.map((s) => s.captured)).toEqual(["2", "2", "1", "0"]);
    expect(first.balance).toBe("0");
    // The same batch again (a retry after a lost answer) charges nothing more.
    const again = await account.chargeBatch(items);
    expect(again.settlements.map((s) => s.captured)).toEqual(["2", "2", "1", "0"]);
    const l = await ledger(t.tenant_id);
    expect(l.balance).toBe("0");
    const usage = await account.usage({ mode: "live", from: "2000-01-01", to: "2100-01-01", group_by: "model" });
    expect(usage).toEqual([]); // these charges carried no usage note
    expect(l.recomputed).toEqual(l.totals);
    expect(l.totals.captured).toBe("5");
  });

  it("a batch's usage is one row per model counting its calls, which the report reads as one each", async () => {
    const t = await newTenant({ credits: "100" });
    const account = env.ACCOUNTS.getByName(t.tenant_id);
    const note = (model: string, input: number) => ({
      mode: "live" as const,
      kind: "completion" as const,
      capability: "chat_completion",
      model,
      outcome: "succeeded" as const,
      counted: true,
      counters: { input_tokens: input, output_tokens: 1 },
    });
    await account.chargeBatch([
      { id: "chat_req_u1", amount: "1", usage: note("m-a", 10) },
      { id: "chat_req_u2", amount: "2", usage: note("m-a", 20) },
      { id: "chat_req_u3", amount: "4", usage: note("m-b", 5) },
    ]);
    const rows = await account.usage({ mode: "live", from: "2000-01-01", to: "2100-01-01", group_by: "model" });
    const byModel = Object.fromEntries(rows.map((r) => [r.key, r]));
    expect(byModel["m-a"]).toMatchObject({ completions: 2, succeeded: 2, input_tokens: 30, output_tokens: 2 });
    expect(byModel["m-b"]).toMatchObject({ completions: 1, input_tokens: 5, output_tokens: 1 });
    expect(Number(byModel["m-a"]?.credits)).toBe(3);
  });
});
