/**
 * Sends asked for by hand cannot be turned into an amplifier: a recover leaves alone what is
 * already waiting for a retry (ten recovers in a row send each failed delivery once), and
 * resends, recovers and test events spend an hourly budget per endpoint and per tenant, kept in
 * the account object, past which they answer 429 `rate_limited`. A recover's deliveries are
 * paced. Receivers run on 127.0.0.1; the task objects' webhook clocks are pinned where a retry's
 * own schedule must not interfere.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AccountObject } from "../../src/accounts/account-object";
import { accountMigrations } from "../../src/accounts/account-schema";
import { accountFor } from "../../src/accounts/account-stub";
import { migrate } from "../../src/storage/migrations";
import {
  ENDPOINT_SENDS_PER_HOUR,
  PACING_MS,
  SEND_WINDOW_MS,
  settleSends,
  TENANT_SENDS_PER_HOUR,
  takeSends,
} from "../../src/webhooks/send-budget";
import { createBatch, imageItems, waitForBatch } from "../batches/helpers";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { rebuildAt } from "../helpers/storage";
import { createImage, taskStub, waitFor } from "../helpers/tasks";

let n = 0;
const hook = (mode: string, query = "") => {
  const name = `b${Date.now()}-${++n}`;
  return { name, url: `${env.RECEIVER_URL}/hook/${mode}/${name}${query}` };
};
const received = async (name: string): Promise<unknown[]> => (await fetch(`${env.RECEIVER_URL}/deliveries/${name}`)).json();
const webhookTenant = () => newTenant({ credits: "10000", permissions: ["tasks:read", "tasks:write", "webhooks:manage"] });
const accountOf = (t: TestTenant) => accountFor(env, t.tenant_id) as DurableObjectStub<AccountObject>;

async function newEndpoint(t: TestTenant, url: string, enabled = true) {
  const res = await call("/v1/webhook-endpoints", { key: t.api_key, body: { url, events: ["task.succeeded"], enabled } });
  expect(res.status, res.text).toBe(201);
  return res.json as { endpoint_id: string };
}
const enable = (t: TestTenant, endpointId: string) =>
  call(`/v1/webhook-endpoints/${endpointId}`, { key: t.api_key, method: "PATCH", body: { enabled: true } });
const recover = (t: TestTenant, endpointId: string, since: string) =>
  call(`/v1/webhook-endpoints/${endpointId}/recover`, { key: t.api_key, body: { since } });
const resend = (t: TestTenant, id: string) => call(`/v1/webhook-deliveries/${id}/resend`, { key: t.api_key, method: "POST" });
const testEvent = (t: TestTenant, endpointId: string) =>
  call(`/v1/webhook-endpoints/${endpointId}/test`, { key: t.api_key, method: "POST" });

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 150; i++) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("the state expected was not reached");
}

/**
 * `count` tasks whose `task.succeeded` went to a disabled endpoint: each delivery is failed
 * without an attempt, and is what a recover sends once the endpoint is enabled.
 */
async function failedDeliveries(t: TestTenant, endpointId: string, count: number) {
  const tasks: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = (await createImage(t, { prompt: `missed ${i}` })).json.task_id as string;
    await waitFor(t, id);
    tasks.push(id);
  }
  const rows = await until(
    async () => (await call(`/v1/webhook-deliveries?endpoint_id=${endpointId}`, { key: t.api_key })).json.data as any[],
    (r) => r.length === count && r.every((d) => d.status === "failed"),
  );
  return { tasks, deliveries: rows.map((r) => r.delivery_id as string) };
}

/** Pins the webhook clock of each task object: an attempt's retry is then never due during the test. */
async function pinClocks(tasks: string[], at: number) {
  for (const id of tasks) {
    await runInDurableObject(taskStub(id), (obj) => {
      (obj as unknown as { runner: { clock: () => number } }).runner.clock = () => at;
    });
  }
}

const runAlarms = async (tasks: string[]) => {
  for (const id of tasks) await runDurableObjectAlarm(taskStub(id));
};

/** Sends already taken from a budget, as if granted `agoMs` ago (endpoint null: a callback's, the tenant's budget only). */
async function spent(t: TestTenant, endpointId: string | null, count: number, agoMs: number) {
  await runInDurableObject(accountOf(t), (_o, state) => {
    state.storage.sql.exec(
      "INSERT INTO webhook_manual_sends (grant_id, endpoint_id, kind, at_ms, count) VALUES (?, ?, 'resend', ?, ?)",
      `wsg_seed${++n}`,
      endpointId,
      Date.now() - agoMs,
      count,
    );
  });
}

describe("recover leaves pending deliveries alone", () => {
  it("ten recovers in a row send each failed delivery once", async () => {
    const t = await webhookTenant();
    const h = hook("fail", "?times=1000");
    const ep = await newEndpoint(t, h.url, false);
    const since = new Date(Date.now() - 60_000).toISOString();
    const { tasks } = await failedDeliveries(t, ep.endpoint_id, 3);
    await enable(t, ep.endpoint_id);
    await pinClocks(tasks, Date.now() + 60_000);

    const answers: any[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await recover(t, ep.endpoint_id, since);
      expect(res.status, res.text).toBe(200);
      answers.push(res.json);
      await runAlarms(tasks);
      if (i === 0)
        await until(
          () => received(h.name),
          (got) => got.length === 3,
        );
    }
    // The receiver answers 500 throughout: each delivery was attempted once, its retry scheduled.
    expect(await received(h.name)).toHaveLength(3);
    expect(answers[0]).toMatchObject({ deliveries: 3, skipped_pending: 0, left_out: 0, limited_by: null, has_more: false });
    for (const a of answers.slice(1)) {
      expect(a).toMatchObject({ deliveries: 0, skipped_pending: 3, left_out: 0, limited_by: null, has_more: false });
    }
  });
});

describe("recover reaches every holder", () => {
  it("a batch's batch.completed delivery is queued by its batch object, once", async () => {
    const t = await webhookTenant();
    const h = hook("ok");
    const res = await call("/v1/webhook-endpoints", {
      key: t.api_key,
      body: { url: h.url, events: ["batch.completed"], enabled: false },
    });
    const ep = res.json as { endpoint_id: string };
    const since = new Date(Date.now() - 60_000).toISOString();
    const batch = await createBatch(t, { operation: "text_to_image", items: imageItems(1) });
    expect(batch.status, batch.text).toBe(202);
    await waitForBatch(t, batch.json.batch_id, (b) => b.status === "completed");
    const [row] = await until(
      async () => (await call(`/v1/webhook-deliveries?endpoint_id=${ep.endpoint_id}`, { key: t.api_key })).json.data as any[],
      (r) => r.length === 1 && r[0].status === "failed",
    );
    expect(row.task_id).toBe(batch.json.batch_id);
    await enable(t, ep.endpoint_id);
    expect((await recover(t, ep.endpoint_id, since)).json).toMatchObject({ deliveries: 1, skipped_pending: 0 });
    // Pending, or already delivered: either way not queued again.
    expect((await recover(t, ep.endpoint_id, since)).json).toMatchObject({ deliveries: 0, left_out: 0 });
    // Once the log has it succeeded, there is nothing left to recover.
    await until(
      async () => (await call(`/v1/webhook-deliveries?endpoint_id=${ep.endpoint_id}`, { key: t.api_key })).json.data as any[],
      (r) => r[0]?.status === "succeeded",
    );
    expect((await recover(t, ep.endpoint_id, since)).json).toMatchObject({ deliveries: 0, skipped_pending: 0, left_out: 0 });
    expect(await received(h.name)).toHaveLength(1);
  });
});

describe("budgets of sends by hand", () => {
  it("a recover queues what the endpoint's budget leaves, then 429; resends and tests are refused; another endpoint is not", async () => {
    const t = await webhookTenant();
    const h = hook("ok");
    const ep = await newEndpoint(t, h.url, false);
    const since = new Date(Date.now() - 60_000).toISOString();
    const { tasks, deliveries } = await failedDeliveries(t, ep.endpoint_id, 3);
    await enable(t, ep.endpoint_id);
    // Nothing is attempted during the test: the pinned clock is before every due time.
    await pinClocks(tasks, Date.now() - 60_000);
    await spent(t, ep.endpoint_id, ENDPOINT_SENDS_PER_HOUR - 2, 10 * 60_000);

    const partial = await recover(t, ep.endpoint_id, since);
    expect(partial.status, partial.text).toBe(200);
    expect(partial.json).toMatchObject({
      deliveries: 2,
      skipped_pending: 0,
      left_out: 1,
      limited_by: "endpoint_budget",
      has_more: true,
    });

    const refused = await recover(t, ep.endpoint_id, since);
    const error = expectError(refused, 429, "rate_limited");
    expect(error.message).toMatch(/endpoint's budget of 500 sends by hand per hour/);
    expect(error.details).toEqual({
      budget: "webhook_endpoint_sends",
      limit: ENDPOINT_SENDS_PER_HOUR,
      window_seconds: SEND_WINDOW_MS / 1000,
      endpoint_id: ep.endpoint_id,
    });
    // The seeded sends leave the window 50 minutes from now: the first room for one more.
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(49 * 60);
    expect(retryAfter).toBeLessThanOrEqual(50 * 60);
    expect(refused.headers.get("X-RateLimit-Limit")).toBe(String(ENDPOINT_SENDS_PER_HOUR));
    expect(refused.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(refused.headers.get("X-RateLimit-Reset")).toBe(String(retryAfter));

    expectError(await resend(t, deliveries[0] as string), 429, "rate_limited");
    expectError(await testEvent(t, ep.endpoint_id), 429, "rate_limited");
    expect(await received(h.name)).toHaveLength(0);

    // Another endpoint of the tenant has its own budget.
    const other = hook("ok");
    const ep2 = await newEndpoint(t, other.url);
    const tried = await testEvent(t, ep2.endpoint_id);
    expect(tried.status, tried.text).toBe(200);
    expect(await received(other.name)).toHaveLength(1);
  });

  it("the tenant's budget covers every endpoint and callbacks; another tenant is unaffected", async () => {
    const t = await webhookTenant();
    const cb = hook("ok");
    const id = (await createImage(t, { prompt: "call me", callback_url: cb.url })).json.task_id as string;
    await waitFor(t, id, (x) => x.callback?.status === "delivered");
    const [row] = await until(
      async () => (await call(`/v1/webhook-deliveries?task_id=${id}`, { key: t.api_key })).json.data as any[],
      (r) => r.length === 1 && r[0].status === "succeeded",
    );
    const h = hook("ok");
    const ep = await newEndpoint(t, h.url);
    await spent(t, null, TENANT_SENDS_PER_HOUR, 5 * 60_000);

    const refused = expectError(await testEvent(t, ep.endpoint_id), 429, "rate_limited");
    expect(refused.message).toMatch(/tenant's budget of 2000 webhook sends by hand per hour/);
    expect(refused.details).toMatchObject({ budget: "tenant_webhook_sends", limit: TENANT_SENDS_PER_HOUR });
    expectError(await resend(t, row.delivery_id), 429, "rate_limited");
    expect(await received(h.name)).toHaveLength(0);
    expect(await received(cb.name)).toHaveLength(1);

    const u = await webhookTenant();
    const mine = hook("ok");
    const res = await testEvent(u, (await newEndpoint(u, mine.url)).endpoint_id);
    expect(res.status, res.text).toBe(200);
    expect(await received(mine.name)).toHaveLength(1);
  });

  it("concurrent calls cannot pass a budget: one send left, eight at once, one goes", async () => {
    const t = await webhookTenant();
    const h = hook("ok");
    const ep = await newEndpoint(t, h.url);
    await spent(t, ep.endpoint_id, ENDPOINT_SENDS_PER_HOUR - 1, 60_000);
    const answers = await Promise.all(Array.from({ length: 8 }, () => testEvent(t, ep.endpoint_id)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 429, 429, 429, 429, 429, 429, 429]);
    expect(await received(h.name)).toHaveLength(1);
  });

  it("a recover's deliveries are due 200 ms apart", async () => {
    const t = await webhookTenant();
    const ep = await newEndpoint(t, hook("ok").url, false);
    const since = new Date(Date.now() - 60_000).toISOString();
    const { tasks, deliveries } = await failedDeliveries(t, ep.endpoint_id, 3);
    await enable(t, ep.endpoint_id);
    await pinClocks(tasks, Date.now() - 60_000);
    expect((await recover(t, ep.endpoint_id, since)).json.deliveries).toBe(3);
    const due: number[] = [];
    for (const d of deliveries) {
      const res = await call(`/v1/webhook-deliveries/${d}`, { key: t.api_key });
      expect(res.json.status).toBe("pending");
      due.push(Date.parse(res.json.next_attempt_at));
    }
    due.sort((a, b) => a - b);
    expect([due[1]! - due[0]!, due[2]! - due[1]!]).toEqual([PACING_MS, PACING_MS]);
  });
});

describe("the budget's store", () => {
  it("counts over a sliding hour, per endpoint and per tenant, and paces recovers one after another", async () => {
    const stub = env.ACCOUNTS.getByName(`send-budget-${Date.now()}`);
    await runInDurableObject(stub, (_o, state) => {
      const sql = state.storage.sql;
      const t0 = 1_800_000_000_000;
      const take = (endpoint_id: string | null, wanted: number, nowMs: number, paced = false) =>
        takeSends(sql, { endpoint_id, kind: "recover", wanted, paced, nowMs });

      expect(take("we_a", ENDPOINT_SENDS_PER_HOUR, t0)).toMatchObject({ granted: ENDPOINT_SENDS_PER_HOUR, limited_by: null });
      expect(take("we_a", 1, t0 + 1000)).toMatchObject({ granted: 0, limited_by: "endpoint", remaining: 0, retry_after: 3599 });
      // An hour after the grant it no longer counts.
      expect(take("we_a", 1, t0 + SEND_WINDOW_MS + 1)).toMatchObject({ granted: 1, limited_by: null });

      // Three more endpoints nearly fill the tenant's budget; a fifth gets what is left, then nothing.
      for (const e of ["we_b", "we_c", "we_d"]) expect(take(e, 500, t0 + SEND_WINDOW_MS + 2).granted).toBe(500);
      expect(take("we_e", 500, t0 + SEND_WINDOW_MS + 3)).toMatchObject({ granted: 499, limited_by: "tenant" });
      expect(take(null, 1, t0 + SEND_WINDOW_MS + 4)).toMatchObject({ granted: 0, limited_by: "tenant" });
      expect(TENANT_SENDS_PER_HOUR).toBe(2000);

      // Pacing: a recover starts after the previous one's last delivery to the endpoint.
      const t1 = t0 + 3 * SEND_WINDOW_MS;
      const first = take("we_p", 3, t1, true);
      expect(first.start_at).toBe(t1);
      const second = take("we_p", 2, t1 + 10, true);
      expect(second.start_at).toBe(t1 + 3 * PACING_MS);
      // The first queued only one (the others were pending): its share of sends and time comes back.
      settleSends(sql, first.grant_id, 1, t1 + PACING_MS);
      settleSends(sql, second.grant_id, 2, second.start_at + 2 * PACING_MS);
      expect(take("we_p", 1, t1 + 20, true).start_at).toBe(t1 + 5 * PACING_MS);
      const used = sql.exec<{ n: number }>("SELECT SUM(count) AS n FROM webhook_manual_sends WHERE endpoint_id = 'we_p'").one().n;
      expect(used).toBe(4);
    });
  });

  it("an account object at the previous schema version gains the table, keeping its endpoints", async () => {
    const migrations = accountMigrations(env);
    const latest = migrations[migrations.length - 1]?.version as number;
    const step = migrations.find((m) => m.name.startsWith("webhook_manual_sends"));
    expect(step).toBeDefined();
    const stub = env.ACCOUNTS.getByName(`send-budget-migration-${Date.now()}`);
    await runInDurableObject(stub, async (_o, state) => {
      await rebuildAt(state.storage, migrations, (step?.version as number) - 1);
      const sql = state.storage.sql;
      sql.exec(
        `INSERT INTO webhook_endpoints (endpoint_id, url, events, enabled, secret_sealed, created_at, updated_at)
         VALUES ('we_old', 'https://example.com/hook', '["*"]', 1, 'v1.x', 't', 't')`,
      );
      expect(await migrate(state.storage, migrations)).toBe(latest);
      expect(sql.exec("SELECT endpoint_id FROM webhook_endpoints").toArray()).toEqual([{ endpoint_id: "we_old" }]);
      expect(takeSends(sql, { endpoint_id: "we_old", kind: "test", wanted: 1, paced: false, nowMs: Date.now() }).granted).toBe(1);
    });
  });
});
