/**
 * Crash safety: the task object is reset (ctx.abort) or its alarm run twice at every step, and
 * each task still ends with one reservation, exactly one capture or release, one provider
 * submission and one callback webhook-id.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, newTenant, type TestTenant } from "../helpers/api";
import { useCrashDrills } from "../helpers/crash-drills";
import { createImage, expectLedgerBalanced, fastForward, getTask, newKey, runAlarm, taskEvents, waitFor } from "../helpers/tasks";

useCrashDrills();

let t: TestTenant;
let signingKey: string;
beforeAll(async () => {
  t = await newTenant({ credits: "10000" });
  signingKey = (await admin(`/admin/v1/tenants/${t.tenant_id}/callback-signing-keys`, {})).json.id;
});

let n = 0;
function receiver() {
  const name = `crash${Date.now()}-${++n}`;
  return { name, url: `${env.RECEIVER_URL}/hook/ok/${name}` };
}

async function expectOneOfEverything(taskId: string, receiverName: string) {
  const events = await taskEvents(taskId);
  expect(events.filter((e) => e.kind === "provider_submit")).toHaveLength(1);
  const l = await expectLedgerBalanced(t.tenant_id);
  expect(l.open_reservations).toBe(0);
  const reservations = events.filter((e) => e.kind === "reserve").map((e) => e.detail.reservation_id);
  expect(new Set(reservations).size).toBe(1);
  const deliveries: { headers: Record<string, string> }[] = await (
    await fetch(`${env.RECEIVER_URL}/deliveries/${receiverName}`)
  ).json();
  expect(deliveries.length).toBeGreaterThanOrEqual(1);
  expect(new Set(deliveries.map((d) => d.headers["webhook-id"])).size).toBe(1);
}

/** Drives a task like its alarm would after a crash: keep running it until it is done. */
async function drive(taskId: string) {
  for (let i = 0; i < 30; i++) {
    const task = (await getTask(t, taskId)).json;
    if (task.status === "succeeded" && task.callback?.status === "delivered") return task;
    await fastForward(taskId).catch(() => undefined);
  }
  return (await getTask(t, taskId)).json;
}

describe("a crash at every step", () => {
  it.each(["submit", "store", "capture", "callback"])("after %s: the task completes once", async (point) => {
    const r = receiver();
    const created = await createImage(t, {
      prompt: `crash after ${point}`,
      callback_url: r.url,
      callback_signing_key_id: signingKey,
      metadata: { drill_crash_after: point },
    });
    expect(created.status, created.text).toBe(202);
    const done = await drive(created.json.task_id);
    expect(done.status).toBe("succeeded");
    expect(done.callback.status).toBe("delivered");
    const events = await taskEvents(created.json.task_id);
    expect(events.filter((e) => e.kind === "capture").length).toBeGreaterThanOrEqual(1);
    await expectOneOfEverything(created.json.task_id, r.name);
    // The ledger captured this task exactly once.
    const settled = events.filter((e) => e.kind === "capture").map((e) => e.detail.captured);
    expect(new Set(settled).size).toBe(1);
    expect(done.billing.net_charged_credits).toBe(settled[0]);
  });

  it("after reserve (mid-admission): the client's retry with the same key adopts the reservation", async () => {
    const key = newKey();
    const r = receiver();
    const body = { prompt: "crash mid-admission", callback_url: r.url, metadata: { drill_crash_after: "reserve" } };
    const first = await createImage(t, body, key);
    expect(first.status).toBe(500);
    expect(first.json.error).toMatchObject({ code: "internal_error", retryable: true });
    // The crash took the admission with it: nothing wedges the key, and the retry holds the same credits.
    const retry = await createImage(t, body, key);
    expect(retry.status, retry.text).toBe(202);
    const done = await drive(retry.json.task_id);
    expect(done.status).toBe("succeeded");
    await expectOneOfEverything(retry.json.task_id, r.name);
  });

  it("after reserve with no retry: the account gives the hold back when its lease ends, and unlists the task", async () => {
    const tenant = await newTenant({ credits: "1000" });
    const key = newKey();
    const first = await createImage(tenant, { prompt: "abandoned", metadata: { drill_crash_after: "reserve" } }, key);
    expect(first.status).toBe(500);
    expect((await expectLedgerBalanced(tenant.tenant_id)).open_reservations).toBe(1);
    const { runInDurableObject, runDurableObjectAlarm } = await import("cloudflare:test");
    const account = env.ACCOUNTS.getByName(tenant.tenant_id);
    await runInDurableObject(account, async (_o, state) => {
      state.storage.sql.exec("UPDATE reservations SET lease_until = ?", Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(account)).toBe(true);
    const l = await expectLedgerBalanced(tenant.tenant_id);
    expect(l.open_reservations).toBe(0);
    expect(l.balance).toBe("1000");
    const list = await call("/v1/tasks", { key: tenant.api_key });
    expect(list.json.data).toEqual([]);
  });

  it("a committed task keeps its hold when the admission lease ends", async () => {
    const tenant = await newTenant({ credits: "1000" });
    const created = await createImage(tenant, { prompt: "kept", metadata: { sandbox_fault: "hang" } });
    expect(created.status).toBe(202);
    const { runInDurableObject, runDurableObjectAlarm } = await import("cloudflare:test");
    const account = env.ACCOUNTS.getByName(tenant.tenant_id);
    await runInDurableObject(account, async (_o, state) => {
      state.storage.sql.exec("UPDATE reservations SET lease_until = ? WHERE lease_until IS NOT NULL", Date.now() - 1);
    });
    await runDurableObjectAlarm(account);
    const l = await expectLedgerBalanced(tenant.tenant_id);
    expect(l.open_reservations).toBe(1);
    await runInDurableObject(account, async (_o, state) => {
      expect(state.storage.sql.exec("SELECT lease_until FROM reservations").toArray()).toEqual([{ lease_until: null }]);
    });
  });
});

describe("the admission lease of a committed hold", () => {
  it("ends with the tenant's next hold, which tells the account of the tasks committed since", async () => {
    const tenant = await newTenant({ credits: "1000" });
    const first = await createImage(tenant, { prompt: "first", metadata: { sandbox_fault: "hang" } });
    expect(first.status).toBe(202);
    const { runInDurableObject } = await import("cloudflare:test");
    const account = env.ACCOUNTS.getByName(tenant.tenant_id);
    const leases = () =>
      runInDurableObject(account, async (_o, state) =>
        state.storage.sql
          .exec<{ task_id: string; lease_until: number | null }>(
            "SELECT task_id, lease_until FROM reservations ORDER BY created_at",
          )
          .toArray(),
      );
    const [held] = await leases();
    expect(held?.lease_until).not.toBeNull();
    const second = await createImage(tenant, { prompt: "second", metadata: { sandbox_fault: "hang" } });
    expect(second.status).toBe(202);
    // The first task's hold needs no sweep any more; the second's lease covers its own admission until the next hold.
    const after = await leases();
    expect(after.find((r) => r.task_id === held?.task_id)?.lease_until).toBeNull();
    expect(after.filter((r) => r.lease_until !== null)).toHaveLength(1);
    const l = await expectLedgerBalanced(tenant.tenant_id);
    expect(l.open_reservations).toBe(2);
  });
});

describe("alarms that run twice", () => {
  it("repeat nothing at any step", async () => {
    const r = receiver();
    const created = await createImage(t, { prompt: "twice", callback_url: r.url, callback_signing_key_id: signingKey });
    const id = created.json.task_id;
    for (let i = 0; i < 6; i++) await runAlarm(id, 2);
    const done = await waitFor(t, id, (x) => x.callback?.status === "delivered");
    await runAlarm(id, 2);
    expect(done.status).toBe("succeeded");
    await expectOneOfEverything(id, r.name);
    const events = await taskEvents(id);
    expect(events.filter((e) => e.kind === "capture")).toHaveLength(1);
    expect(events.filter((e) => e.kind === "callback_attempt")).toHaveLength(1);
  });
});

describe("concurrency", () => {
  it("20 concurrent creates with one key give one task and one reservation", async () => {
    const tenant = await newTenant({ credits: "1000" });
    const key = newKey();
    const results = await Promise.all(Array.from({ length: 20 }, () => createImage(tenant, { prompt: "race" }, key)));
    const ok = results.filter((r) => r.status === 202);
    const busy = results.filter((r) => r.status === 409);
    expect(ok.length + busy.length).toBe(20);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const b of busy) expect(b.json.error.code).toBe("request_in_progress");
    expect(new Set(ok.map((r) => r.json.task_id)).size).toBe(1);
    const l = await expectLedgerBalanced(tenant.tenant_id);
    expect(l.reservations).toBe(1);
  });

  it("two keys racing for a balance that covers one: exactly one 402", async () => {
    const probe = await newTenant({ credits: "1000" });
    const priced = await createImage(probe, { prompt: "price" });
    const price = priced.json.billing.charged_credits;
    const tenant = await newTenant({ credits: price });
    const [a, b] = await Promise.all([createImage(tenant, { prompt: "race" }), createImage(tenant, { prompt: "race" })]);
    expect([a.status, b.status].sort()).toEqual([202, 402]);
    const l = await expectLedgerBalanced(tenant.tenant_id);
    expect(l.balance).toBe("0");
  });
});
