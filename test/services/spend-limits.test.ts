/**
 * A key's credit limit holds under any concurrency: admission reads the key's reserved and
 * captured credits and holds in one synchronous method of the account object, so no pattern of
 * parallel creates and chats spends one credit over. Checked from the ledger's own rows.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { dec, fmt, sum } from "../../src/lib/decimal";
import { admin, call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, expectLedgerBalanced as ledgerBalanced, waitFor } from "../helpers/tasks";

/** The tenant's ledger balanced, and every key's running figures equal to its reservation rows. */
async function expectLedgerBalanced(tenantId: string) {
  const l = await ledgerBalanced(tenantId);
  expect(l.key_spend_mismatches).toEqual([]);
  return l;
}

/** A second key of the tenant, with limits, as the operator issues it. */
async function limitedKey(t: TestTenant, limits: Record<string, unknown>): Promise<TestTenant> {
  const k = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, { limits });
  expect(k.status, JSON.stringify(k.json)).toBe(201);
  return { ...t, api_key: k.json.api_key, key_id: k.json.key_id };
}

/** Reserved plus captured by the key's holds, summed from the ledger's rows. */
async function keyHeld(tenantId: string, keyId: string): Promise<string> {
  const rows = await runInDurableObject(env.ACCOUNTS.getByName(tenantId), (_o, state) =>
    state.storage.sql
      .exec<{ amount: string; status: string; captured_amount: string }>(
        "SELECT amount, status, captured_amount FROM reservations WHERE key_id = ?",
        keyId,
      )
      .toArray(),
  );
  return fmt(sum(rows.map((r) => (r.status === "open" ? r.amount : r.status === "captured" ? r.captured_amount : "0"))));
}

/** Samples keyHeld until `done` settles; returns every sample. */
async function sampleWhile(tenantId: string, keyId: string, done: Promise<unknown>): Promise<string[]> {
  const samples: string[] = [];
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  while (!finished) {
    samples.push(await keyHeld(tenantId, keyId));
    await new Promise((r) => setTimeout(r, 5));
  }
  samples.push(await keyHeld(tenantId, keyId));
  return samples;
}

// One model named: `auto` would follow route health, which other files' tasks in the shared
// runtime move, and a different model's price would change how many tasks a limit holds.
const QUEUED = { model: "flux-2-pro", prompt: "wait in line", metadata: { sandbox_fault: "stay_queued" } };

/** What one queued image task holds, learned from a key without limits. */
async function taskPrice(t: TestTenant): Promise<string> {
  const probe = await createImage(t, QUEUED);
  expect(probe.status).toBe(202);
  const price = probe.json.billing.charged_credits as string;
  await call(`/v1/tasks/${probe.json.task_id}/cancel`, { key: t.api_key, method: "POST", body: {} });
  return price;
}

describe("a key's credit limit under concurrency", () => {
  it("50 concurrent creates against exactly N tasks' worth: N admitted, the rest 402 key_spend_limit, never over", async () => {
    const t = await newTenant({ credits: "100000" });
    const price = await taskPrice(t);
    const N = 7;
    const limit = fmt(dec(price).times(N));
    const k = await limitedKey(t, { credits: limit, period: "month" });
    const burst = Promise.all(Array.from({ length: 50 }, () => createImage(k, QUEUED)));
    const samples = await sampleWhile(t.tenant_id, k.key_id, burst);
    const results = await burst;
    const admitted = results.filter((r) => r.status === 202);
    expect(admitted).toHaveLength(N);
    for (const r of results.filter((x) => x.status !== 202)) {
      expectError(r, 402, "insufficient_balance");
      expect(r.json.error.details).toMatchObject({
        reason: "key_spend_limit",
        remaining_credits: "0",
        resets_at: expect.stringMatching(/-01T00:00:00.000Z$/),
      });
    }
    for (const s of samples) expect(dec(s).lte(limit), `${s} > ${limit}`).toBe(true);
    expect(await keyHeld(t.tenant_id, k.key_id)).toBe(limit);

    // A cancel gives its hold back: exactly one more fits, then the limit holds again.
    await call(`/v1/tasks/${admitted[0]!.json.task_id}/cancel`, { key: k.api_key, method: "POST", body: {} });
    const again = await Promise.all(Array.from({ length: 5 }, () => createImage(k, QUEUED)));
    expect(again.filter((r) => r.status === 202)).toHaveLength(1);
    expect(await keyHeld(t.tenant_id, k.key_id)).toBe(limit);
    const own = (await call("/v1/key", { key: k.api_key })).json;
    expect(own).toMatchObject({ reserved_credits: limit, spent_credits: "0", remaining_credits: "0" });
    // The tenant's other keys are not bound by it.
    expect((await createImage(t, QUEUED)).status).toBe(202);
    await expectLedgerBalanced(t.tenant_id);
  });

  it("a mix of creates and streamed chats never passes the limit; refusals hold nothing", async () => {
    const t = await newTenant({ credits: "100000" });
    const price = await taskPrice(t);
    const limit = fmt(dec(price).times(3));
    const k = await limitedKey(t, { credits: limit, period: "day" });
    const chat = () =>
      call("/v1/chat/completions", {
        key: k.api_key,
        body: { model: "gpt-6-luna", messages: [{ role: "user", content: "Say something" }], max_tokens: 50, stream: true },
      });
    const burst = Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? chat() : createImage(k, QUEUED))));
    const samples = await sampleWhile(t.tenant_id, k.key_id, burst);
    const results = await burst;
    for (const r of results) {
      if (r.status === 402) expect(r.json.error.details.reason).toBe("key_spend_limit");
      else expect([200, 202]).toContain(r.status);
    }
    expect(results.some((r) => r.status === 402)).toBe(true);
    for (const s of samples) expect(dec(s).lte(limit), `${s} > ${limit}`).toBe(true);
    // After every chat settled.
    await expect.poll(async () => dec(await keyHeld(t.tenant_id, k.key_id)).lte(limit)).toBe(true);
    await expectLedgerBalanced(t.tenant_id);
  });

  it("a limited key's chat is held before it goes upstream, even when the tenant's balance is known to cover it", async () => {
    const t = await newTenant({ credits: "100000" });
    const ask = { model: "gpt-6-luna", messages: [{ role: "user", content: "Say something" }], max_tokens: 50 };
    // The tenant's balance is now known to this isolate: an unlimited key's next call would not be held.
    expect((await call("/v1/chat/completions", { key: t.api_key, body: ask })).status).toBe(200);
    const k = await limitedKey(t, { credits: "0.000001", period: "total" });
    const res = await call("/v1/chat/completions", { key: k.api_key, body: { ...ask, stream: true } });
    expectError(res, 402, "insufficient_balance");
    expect(res.json.error.details).toMatchObject({ reason: "key_spend_limit", remaining_credits: "0.000001", resets_at: null });
    expect(await keyHeld(t.tenant_id, k.key_id)).toBe("0");
  });

  it("a task that succeeds keeps what it used; a failure gives its hold back; the key's spend follows", async () => {
    const t = await newTenant({ credits: "100000" });
    const k = await limitedKey(t, { credits: "1000", period: "week" });
    const done = await waitFor(k, (await createImage(k, { prompt: "a lighthouse" })).json.task_id);
    expect(done.status).toBe("succeeded");
    const failed = await createImage(k, { prompt: "fails", metadata: { sandbox_fault: "provider_error" } });
    if (failed.status === 202) await waitFor(k, failed.json.task_id);
    const own = (await call("/v1/key", { key: k.api_key })).json;
    expect(own.spent_credits).toBe(done.billing.net_charged_credits);
    expect(own.reserved_credits).toBe("0");
    expect(own.remaining_credits).toBe(fmt(dec("1000").minus(done.billing.net_charged_credits)));
    expect(own.period_started_at).toMatch(/T00:00:00.000Z$/);
    expect(new Date(own.period_started_at).getUTCDay()).toBe(1);
  });
});

describe("a key's model and capability lists", () => {
  it("a concrete model outside: 403 model_not_allowed; auto skips it; the catalog shows only what it may use", async () => {
    const t = await newTenant();
    const k = await limitedKey(t, { models: ["flux-2-pro"] });
    const refused = await createImage(k, { prompt: "x", model: "gpt-image-2" });
    expectError(refused, 403, "forbidden", "/model");
    expect(refused.json.error.details.reason).toBe("model_not_allowed");
    const auto = await createImage(k, { prompt: "x" });
    expect(auto.status, JSON.stringify(auto.json)).toBe(202);
    expect(auto.json.resolved_model).toBe("flux-2-pro");
    const models = (await call("/v1/models", { key: k.api_key })).json.data.map((m: any) => m.id);
    expect(models).toEqual(["flux-2-pro"]);
    expectError(await call("/v1/catalog/models/gpt-image-2", { key: k.api_key }), 404, "not_found");
  });

  it("auto with nothing left says no_eligible_model, each candidate not_allowed_for_key", async () => {
    const t = await newTenant();
    // A chat model only: every image candidate is left out.
    const k = await limitedKey(t, { models: ["gpt-6-luna"] });
    const res = await createImage(k, { prompt: "x" });
    expectError(res, 422, "no_eligible_model");
    const reasons = new Set(res.json.error.details.candidate_failures.map((f: any) => f.code));
    expect(reasons).toEqual(new Set(["not_allowed_for_key"]));
  });

  it("prompt enhancement runs only on an enhancer the key's list allows", async () => {
    const t = await newTenant();
    const enhance = (k: TestTenant, body: Record<string, unknown> = {}) =>
      call("/v1/videos/prompts/enhance", {
        key: k.api_key,
        headers: { "Idempotency-Key": crypto.randomUUID() },
        body: { prompt: "a slow pan over a harbour at dawn", target_model: "seedance-2.0", ...body },
      });
    // Nothing of the list enhances: passed over as auto passes over any model the key may not use.
    const imagesOnly = await limitedKey(t, { models: ["flux-2-pro"] });
    const refused = await enhance(imagesOnly);
    expectError(refused, 422, "no_eligible_model");
    expect(refused.json.error.details.candidate_failures).toEqual([
      expect.objectContaining({ model: "video-prompt-enhancer", code: "not_allowed_for_key" }),
    ]);
    // Naming the enhancer outside the list is the concrete model's refusal.
    const named = await enhance(imagesOnly, { model: "video-prompt-enhancer" });
    expectError(named, 403, "forbidden", "/model");
    expect(named.json.error.details.reason).toBe("model_not_allowed");
    // A list that holds the enhancer is served by it.
    const withEnhancer = await limitedKey(t, { models: ["flux-2-pro", "video-prompt-enhancer"] });
    const served = await enhance(withEnhancer);
    expect(served.status, JSON.stringify(served.json)).toBe(202);
    expect(served.json.resolved_model).toBe("video-prompt-enhancer");
    await expectLedgerBalanced(t.tenant_id);
  });

  it("a capability outside: 403 capability_not_allowed, chat included", async () => {
    const t = await newTenant();
    const k = await limitedKey(t, { capabilities: ["text_to_image"] });
    const chat = await call("/v1/chat/completions", {
      key: k.api_key,
      body: { model: "gpt-6-luna", messages: [{ role: "user", content: "hi" }] },
    });
    expectError(chat, 403, "forbidden", "/model");
    expect(chat.json.error.details.reason).toBe("capability_not_allowed");
    expect((await createImage(k, { prompt: "x" })).status).toBe(202);
    const caps = (await call("/v1/catalog/capabilities", { key: k.api_key })).json.data.map((c: any) => c.capability);
    expect(caps).toEqual(["text_to_image"]);
  });
});
