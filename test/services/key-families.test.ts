/**
 * A key's limit covers its family: whatever a key and the keys it created (and theirs) hold and
 * spend in its period counts against its limit, exactly, under concurrency; and a tenant holds at
 * most MAX_ACTIVE_KEYS keys, whichever door makes them.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_ACTIVE_KEYS, MAX_FAMILY_DEPTH } from "../../src/accounts/key-family";
import { dec, fmt, sum } from "../../src/lib/decimal";
import { admin, call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { freshEmail, signIn, tenantWithOwner } from "../helpers/console";
import { createImage, expectLedgerBalanced as ledgerBalanced, waitFor } from "../helpers/tasks";

const QUEUED = { prompt: "wait in line", metadata: { sandbox_fault: "stay_queued" } };
const MANAGE = ["catalog:read", "tasks:read", "tasks:write", "chat", "keys:manage"];

async function expectLedgerBalanced(tenantId: string) {
  const l = await ledgerBalanced(tenantId);
  expect(l.key_spend_mismatches).toEqual([]);
}

/** A key the operator issues, with limits. */
async function operatorKey(t: TestTenant, body: Record<string, unknown>): Promise<TestTenant> {
  const k = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, body);
  expect(k.status, JSON.stringify(k.json)).toBe(201);
  return { ...t, api_key: k.json.api_key, key_id: k.json.key_id };
}

/** A key made by `parent` through `POST /v1/keys`. */
async function childOf(parent: TestTenant, body: Record<string, unknown>): Promise<TestTenant> {
  const k = await call("/v1/keys", { key: parent.api_key, body });
  expect(k.status, JSON.stringify(k.json)).toBe(201);
  return { ...parent, api_key: k.json.api_key, key_id: k.json.key_id };
}

/** Reserved plus captured by the holds of the given keys, summed from the ledger's rows. */
async function heldBy(tenantId: string, keyIds: string[]): Promise<string> {
  const rows = await runInDurableObject(env.ACCOUNTS.getByName(tenantId), (_o, state) =>
    state.storage.sql
      .exec<{ key_id: string; amount: string; status: string; captured_amount: string }>(
        "SELECT key_id, amount, status, captured_amount FROM reservations WHERE key_id IS NOT NULL",
      )
      .toArray(),
  );
  return fmt(
    sum(
      rows
        .filter((r) => keyIds.includes(r.key_id))
        .map((r) => (r.status === "open" ? r.amount : r.status === "captured" ? r.captured_amount : "0")),
    ),
  );
}

/** What one queued image task holds, learned from a key without limits. */
async function taskPrice(t: TestTenant): Promise<string> {
  const probe = await createImage(t, QUEUED);
  expect(probe.status).toBe(202);
  await call(`/v1/tasks/${probe.json.task_id}/cancel`, { key: t.api_key, method: "POST", body: {} });
  return probe.json.billing.charged_credits as string;
}

describe("a key's credit limit bounds its family", () => {
  it("children made by a limited key spend together at most its limit, exactly, under concurrent creates", async () => {
    const t = await newTenant({ credits: "100000" });
    const price = await taskPrice(t);
    const N = 4;
    const limit = fmt(dec(price).times(N));
    const parent = await operatorKey(t, { permissions: MANAGE, limits: { credits: limit, period: "day" } });
    // The parent spends one task's worth, then hands out three keys each limited as it is.
    expect((await createImage(parent, QUEUED)).status).toBe(202);
    const children = [];
    for (let i = 0; i < 3; i++)
      children.push(await childOf(parent, { name: `child-${i}`, limits: { credits: limit, period: "day" } }));

    // 10 concurrent creates from each child: the family has N - 1 tasks' worth left, and no more is admitted.
    const results = await Promise.all(children.flatMap((c) => Array.from({ length: 10 }, () => createImage(c, QUEUED))));
    expect(results.filter((r) => r.status === 202)).toHaveLength(N - 1);
    for (const r of results.filter((x) => x.status !== 202)) {
      expectError(r, 402, "insufficient_balance");
      expect(r.json.error.details).toMatchObject({
        reason: "key_spend_limit",
        remaining_credits: "0",
        limited_by_key_id: parent.key_id,
        resets_at: expect.stringMatching(/T00:00:00.000Z$/),
      });
    }
    const family = [parent.key_id, ...children.map((c) => c.key_id)];
    expect(await heldBy(t.tenant_id, family)).toBe(limit);
    // The parent itself is refused too: its children used what was left.
    const own = await createImage(parent, QUEUED);
    expectError(own, 402, "insufficient_balance");
    expect(own.json.error.details.limited_by_key_id).toBeUndefined();

    // The parent's figures count its family; a child's own figures count only its own (and what is left to it is the family's).
    const parentView = (await call(`/v1/keys/${parent.key_id}`, { key: parent.api_key })).json;
    expect(parentView).toMatchObject({ reserved_credits: limit, spent_credits: "0", remaining_credits: "0" });
    for (const c of children) expect((await call("/v1/key", { key: c.api_key })).json.remaining_credits).toBe("0");

    // A cancel gives its hold back to every limit of its chain: exactly one more fits, from any of them.
    const first = results.find((r) => r.status === 202)!.json;
    const cancel = await call(`/v1/tasks/${first.task_id}/cancel`, { key: t.api_key, method: "POST", body: {} });
    expect(cancel.status, JSON.stringify(cancel.json)).toBe(200);
    const again = await Promise.all([...children, parent].flatMap((c) => [createImage(c, QUEUED), createImage(c, QUEUED)]));
    expect(again.filter((r) => r.status === 202)).toHaveLength(1);
    expect(await heldBy(t.tenant_id, family)).toBe(limit);
    // The tenant's other keys are not part of the family.
    expect((await createImage(t, QUEUED)).status).toBe(202);
    await expectLedgerBalanced(t.tenant_id);
  });

  it("grandchildren count against every ancestor; a capture is counted once in each figure of the chain", async () => {
    const t = await newTenant({ credits: "100000" });
    const price = await taskPrice(t);
    const top = await operatorKey(t, { permissions: MANAGE, limits: { credits: fmt(dec(price).times(3)), period: "month" } });
    const mid = await childOf(top, { permissions: MANAGE, limits: { credits: fmt(dec(price).times(2)), period: "month" } });
    const leaf = await childOf(mid, {
      permissions: ["tasks:read", "tasks:write"],
      limits: { credits: fmt(dec(price).times(2)), period: "month" },
    });
    const leaf2 = await childOf(mid, {
      permissions: ["tasks:read", "tasks:write"],
      limits: { credits: fmt(dec(price).times(2)), period: "month" },
    });

    // The middle key's limit binds its two children together before the top one's does.
    const first = await Promise.all(Array.from({ length: 6 }, (_, i) => createImage(i % 2 ? leaf : leaf2, QUEUED)));
    expect(first.filter((r) => r.status === 202)).toHaveLength(2);
    const refused = first.find((r) => r.status === 402)!;
    expect(refused.json.error.details.limited_by_key_id).toBe(mid.key_id);
    // The top key has one task's worth left, which it may spend itself.
    expect((await createImage(top, QUEUED)).status).toBe(202);
    expectError(await createImage(top, QUEUED), 402, "insufficient_balance");

    // A task that succeeds keeps what it used in every figure of its chain.
    const t2 = await newTenant({ credits: "100000" });
    const a = await operatorKey(t2, { permissions: MANAGE, limits: { credits: "1000", period: "week" } });
    const b = await childOf(a, { permissions: MANAGE, limits: { credits: "1000", period: "week" } });
    const c = await childOf(b, { permissions: ["tasks:read", "tasks:write"], limits: { credits: "1000", period: "week" } });
    const done = await waitFor(c, (await createImage(c, { prompt: "a lighthouse" })).json.task_id);
    expect(done.status).toBe("succeeded");
    const net = done.billing.net_charged_credits as string;
    for (const k of [a, b, c]) {
      const view = (await call("/v1/key", { key: k.api_key })).json;
      expect(view, k.key_id).toMatchObject({
        spent_credits: net,
        reserved_credits: "0",
        remaining_credits: fmt(dec("1000").minus(net)),
      });
    }
    await expectLedgerBalanced(t.tenant_id);
    await expectLedgerBalanced(t2.tenant_id);
  });

  it("a limit set on the parent after its children were made binds them at their next hold", async () => {
    const t = await newTenant({ credits: "100000" });
    const price = await taskPrice(t);
    const parent = await operatorKey(t, { permissions: MANAGE });
    const child = await childOf(parent, { permissions: ["tasks:read", "tasks:write"] });
    expect((await createImage(child, QUEUED)).status).toBe(202);
    const set = await admin(`/admin/v1/api-keys/${parent.key_id}/limits`, {
      limits: { credits: fmt(dec(price).times(2)), period: "total" },
    });
    expect(set.status, JSON.stringify(set.json)).toBe(200);
    expect((await createImage(child, QUEUED)).status).toBe(202);
    const over = await createImage(child, QUEUED);
    expectError(over, 402, "insufficient_balance");
    expect(over.json.error.details).toMatchObject({ limited_by_key_id: parent.key_id, resets_at: null });
    await expectLedgerBalanced(t.tenant_id);
  });

  it("a rotation keeps the family: the new key's figures are the old one's, its children still count against it", async () => {
    const t = await newTenant({ credits: "100000" });
    const price = await taskPrice(t);
    const limit = fmt(dec(price).times(2));
    const parent = await operatorKey(t, { permissions: MANAGE, limits: { credits: limit, period: "day" } });
    const child = await childOf(parent, { limits: { credits: limit, period: "day" } });
    expect((await createImage(child, QUEUED)).status).toBe(202);
    const rotated = await admin(`/admin/v1/api-keys/${parent.key_id}/rotate`, { grace: "1h" });
    expect(rotated.status, JSON.stringify(rotated.json)).toBe(200);
    const next = { ...t, api_key: rotated.json.key.api_key as string, key_id: rotated.json.key.key_id as string };
    expect((await call("/v1/key", { key: next.api_key })).json).toMatchObject({
      reserved_credits: price,
      remaining_credits: price,
    });
    // The old key (in its grace period) and the new one share one limit with the child.
    const burst = await Promise.all([createImage(parent, QUEUED), createImage(next, QUEUED), createImage(child, QUEUED)]);
    expect(burst.filter((r) => r.status === 202)).toHaveLength(1);
    expect(await heldBy(t.tenant_id, [parent.key_id, next.key_id, child.key_id])).toBe(limit);
    await expectLedgerBalanced(t.tenant_id);
  });

  it("a revoked parent's limit still binds the keys it made", async () => {
    const t = await newTenant({ credits: "100000" });
    const price = await taskPrice(t);
    const limit = fmt(dec(price).times(2));
    const parent = await operatorKey(t, { permissions: MANAGE, limits: { credits: limit, period: "total" } });
    const child = await childOf(parent, { limits: { credits: limit, period: "total" } });
    expect((await createImage(parent, QUEUED)).status).toBe(202);
    expect((await call(`/v1/keys/${parent.key_id}`, { key: parent.api_key, method: "DELETE" })).status).toBe(200);
    // The parent's hold stays, and with it the family's figure: one task's worth is left to the child.
    expect((await createImage(child, QUEUED)).status).toBe(202);
    const over = await createImage(child, QUEUED);
    expectError(over, 402, "insufficient_balance");
    expect(over.json.error.details.limited_by_key_id).toBe(parent.key_id);
  });
});

describe("how many keys a tenant holds", () => {
  /** Fills the tenant up to `count` active keys, written straight into its account object. */
  async function fillKeys(tenantId: string, count: number) {
    await runInDurableObject(env.ACCOUNTS.getByName(tenantId), (_o, state) => {
      const sql = state.storage.sql;
      const have = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM api_keys WHERE status != 'revoked'").toArray()[0]!.n;
      for (let i = have; i < count; i++) {
        sql.exec(
          "INSERT INTO api_keys (key_id, key_hash, region, mode, permissions, status, created_at, lineage, ancestors) VALUES (?, ?, 'us', 'live', '[]', 'active', ?, ?, '[]')",
          `key_filler${i}`,
          `hash-filler-${i}`,
          new Date().toISOString(),
          `key_filler${i}`,
        );
      }
    });
  }

  it(`at ${MAX_ACTIVE_KEYS} active keys a new one is refused at every door with 409 conflict; a revocation makes room`, async () => {
    const t = await newTenant({ permissions: MANAGE });
    await fillKeys(t.tenant_id, MAX_ACTIVE_KEYS);
    const byKey = await call("/v1/keys", { key: t.api_key, body: { name: "one too many" } });
    expectError(byKey, 409, "conflict");
    expect(byKey.json.error.details).toMatchObject({ reason: "too_many_keys", max_active_keys: MAX_ACTIVE_KEYS });
    const byOperator = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, {});
    expectError(byOperator, 409, "conflict");
    expect(byOperator.json.error.details.reason).toBe("too_many_keys");
    // Nothing was written for the refused keys.
    const count = await runInDurableObject(
      env.ACCOUNTS.getByName(t.tenant_id),
      (_o, state) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM api_keys").toArray()[0]!.n,
    );
    expect(count).toBe(MAX_ACTIVE_KEYS);
    // A revoked key no longer counts.
    await runInDurableObject(env.ACCOUNTS.getByName(t.tenant_id), (_o, state) => {
      state.storage.sql.exec("UPDATE api_keys SET status = 'revoked' WHERE key_id = 'key_filler1'");
    });
    expect((await call("/v1/keys", { key: t.api_key, body: {} })).status).toBe(201);
    expectError(await call("/v1/keys", { key: t.api_key, body: {} }), 409, "conflict");
  });

  it("the console's keys page refuses one more the same way", async () => {
    const email = freshEmail("key-cap");
    const tenant = await tenantWithOwner(email);
    const browser = await signIn(email);
    await fillKeys(tenant.tenant_id, MAX_ACTIVE_KEYS);
    const keys = await browser.get("/console/keys");
    const token = /action="\/console\/keys"[\s\S]*?name="_form" value="([0-9A-Za-z]{22})"/.exec(keys.text)?.[1] as string;
    const posted = await browser.post("/console/keys", { name: "one too many", permissions: "catalog:read", _form: token });
    expect(posted.status).toBe(409);
    expect(posted.text).toContain(`already has ${MAX_ACTIVE_KEYS} active keys`);
  });

  it(`keys made by keys are at most ${MAX_FAMILY_DEPTH} generations below the first`, async () => {
    const t = await newTenant({ permissions: MANAGE });
    let k: TestTenant = t;
    for (let i = 0; i < MAX_FAMILY_DEPTH; i++) k = await childOf(k, { permissions: MANAGE });
    const deeper = await call("/v1/keys", { key: k.api_key, body: { permissions: MANAGE } });
    expectError(deeper, 409, "conflict");
    expect(deeper.json.error.details).toMatchObject({ reason: "family_too_deep", max_depth: MAX_FAMILY_DEPTH });
  });
});
