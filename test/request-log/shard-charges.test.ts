/**
 * An hour shard applies the ledger's facts a batch at a time: each entry's charge is the exact sum
 * of its ledger rows, written again (a later `seq`) only when it changes, a fact told twice counts
 * once, an entry the ledger speaks for first is rebuilt, and the entry that arrives after it takes
 * its place with the ledger's charge (src/request-log/log-object.ts).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { LogRow } from "../../src/request-log/entry";
import type { LedgerFact } from "../../src/request-log/ledger-facts";
import { hourOf } from "../../src/request-log/shards";

const tenant = `tenant_shard_${Date.now()}`;
const at = Date.now();
const hour = hourOf(at);
const shard = () => env.REQUEST_LOG.getByName(`${tenant}:h:${hour}`);
/** An entry's write order (the shard answers its rows with their `seq`). */
const seqOf = (entry: unknown) => (entry as { seq: number }).seq;

function row(requestId: string, over: Partial<LogRow> = {}): LogRow {
  return {
    request_id: requestId,
    at,
    method: "POST",
    route: "POST /v1/chat/completions",
    status: 200,
    error_code: null,
    duration_ms: 3,
    key_id: "key_1",
    mode: "live",
    door: "rest",
    model: "gpt-6-luna",
    task_id: null,
    batch_id: null,
    charged: null,
    settled: false,
    user_agent: "test",
    replay_of: null,
    recovered: false,
    attempts: null,
    request_body: null,
    response_body: null,
    ...over,
  };
}

function fact(chargeId: string, requestId: string, amount: string): LedgerFact {
  return {
    charge_id: chargeId,
    request_id: requestId,
    amount,
    created_at: at,
    key_id: "key_1",
    mode: "live",
    model: "gpt-6-luna",
    capability: "chat_completion",
  };
}

describe("an hour shard's charges", () => {
  it("sums each entry's ledger rows exactly, rewrites only what changed, rebuilds the missing, and gives way to the late entry", async () => {
    await shard().append(tenant, hour, [row("req_a"), row("req_b"), row("req_c")], 30);
    const before = await shard().page({ limit: 10 });
    const seqIn = (rows: { request_id: string; seq: number }[], id: string) => rows.find((r) => r.request_id === id)?.seq;

    await shard().ledgerFacts(
      tenant,
      hour,
      [
        fact("chat_a", "req_a", "0.1"),
        fact("chat_a_excess", "req_a", "0.2"),
        fact("chat_b", "req_b", "0.000000001"),
        // The ledger speaks for a request whose entry has not come (yet).
        fact("chat_d", "req_d", "1.5"),
      ],
      30,
      false,
    );
    const a = await shard().byId("req_a");
    expect(a).toMatchObject({ charged: "0.3", settled: true, recovered: false, user_agent: "test" });
    expect(await shard().byId("req_b")).toMatchObject({ charged: "0.000000001", settled: true });
    // Nothing settled for c: it stays as it was, not written again.
    const c = await shard().byId("req_c");
    expect(c).toMatchObject({ charged: null, settled: false });
    expect(seqOf(c)).toBe(seqIn(before.rows, "req_c"));
    expect(seqOf(a)).toBeGreaterThan(seqIn(before.rows, "req_a") as number);
    expect(await shard().byId("req_d")).toMatchObject({ charged: "1.5", settled: true, recovered: true });

    // The same facts told again (the account's forwarding overlaps): nothing changes, nothing is rewritten.
    await shard().ledgerFacts(tenant, hour, [fact("chat_a", "req_a", "0.1"), fact("chat_a_excess", "req_a", "0.2")], 30, false);
    expect(await shard().byId("req_a")).toMatchObject({ charged: "0.3", seq: seqOf(a) });

    // d's own entry arrives: it takes the ledger's charge and the rebuilt one goes.
    await shard().append(tenant, hour, [row("req_d", { model: "late-model" })], 30);
    const page = await shard().page({ limit: 10 });
    const ds = page.rows.filter((r) => r.request_id === "req_d");
    expect(ds).toHaveLength(1);
    expect(ds[0]).toMatchObject({ charged: "1.5", settled: true, recovered: false, model: "late-model" });
    expect(page.rows).toHaveLength(4);

    // Facts for entries present elsewhere: answered and applied only for those held here.
    const found = await shard().factsIfPresent([fact("chat_c", "req_c", "2"), fact("chat_x", "req_x", "9")]);
    expect(found).toEqual(["req_c"]);
    expect(await shard().byId("req_c")).toMatchObject({ charged: "2", settled: true });
    expect(await shard().byId("req_x")).toBeNull();
  });
});
