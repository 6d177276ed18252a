/**
 * The request log's retention: an hour's entries go by the hour shard's own alarm once the hour plus
 * the tenant's `request_log_retention_days` has passed (no scan), and the directory forgets the
 * hour; the operator's setting decides the end of hours logged after it.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DAY_MS, HOUR_MS, hourOf } from "../../src/request-log/shards";
import { admin, call, expectError, newTenant, type TestTenant } from "../helpers/api";

async function loggedRead(t: TestTenant): Promise<{ id: string; hour: number }> {
  const res = await call("/v1/models", { key: t.api_key });
  const id = res.headers.get("X-Request-Id") as string;
  for (let i = 0; i < 250; i++) {
    if ((await call(`/v1/requests/${id}`, { key: t.api_key })).status === 200) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { id, hour: hourOf(Date.now()) };
}

const shard = (t: TestTenant, hour: number) => env.REQUEST_LOG.getByName(`${t.tenant_id}:h:${hour}`);
const directory = (t: TestTenant) => env.REQUEST_LOG.getByName(`${t.tenant_id}:hours`);

describe("request log retention", () => {
  it("sets each hour's end from the tenant's retention, and deletes the hour by its alarm", async () => {
    const t = await newTenant({ permissions: ["catalog:read", "logs:read"] });
    const set = await admin(`/admin/v1/tenants/${t.tenant_id}/settings`, { request_log_retention_days: 3 });
    expect(set.status, set.text).toBe(200);
    const { id, hour } = await loggedRead(t);
    // The lookups above are logged too, in batches a moment after each: let them land before the hour ends.
    await new Promise((r) => setTimeout(r, 500));
    const end = await runInDurableObject(shard(t, hour), async (_o, state) => state.storage.getAlarm());
    expect(end).toBe((hour + 1) * HOUR_MS + 3 * DAY_MS);

    // The hour's end has come: its alarm deletes the shard, and the directory forgets the hour.
    await runInDurableObject(shard(t, hour), async (_o, state) => {
      state.storage.sql.exec("UPDATE shard SET expires_at = ?", Date.now() - 1);
    });
    await runInDurableObject(directory(t), async (_o, state) => {
      state.storage.sql.exec("UPDATE hours SET expires_at = ? WHERE hour = ?", Date.now() - 1, hour);
    });
    expect(await runDurableObjectAlarm(shard(t, hour))).toBe(true);
    const deletedAt = Date.now();
    expect(await runDurableObjectAlarm(directory(t))).toBe(true);
    // The read's entry went with its hour. (An entry batched late lands in a fresh shard of this very
    // hour, which the test made end early: only what was there before is looked at.)
    const left = await runInDurableObject(
      shard(t, hour),
      async (_o, state) => state.storage.sql.exec("SELECT COUNT(*) AS n FROM entries WHERE request_id = ?", id).one().n,
    );
    expect(left).toBe(0);
    const expired = await runInDurableObject(directory(t), async (_o, state) =>
      state.storage.sql.exec("SELECT hour FROM hours WHERE expires_at <= ?", deletedAt).toArray(),
    );
    expect(expired).toEqual([]);
    // (The lookup below is itself logged, into this very hour, which the test made end early.)
    expectError(await call(`/v1/requests/${id}`, { key: t.api_key }), 404, "not_found");
  });

  it("refuses a retention outside 1–365 days", async () => {
    const t = await newTenant();
    expectError(
      await admin(`/admin/v1/tenants/${t.tenant_id}/settings`, { request_log_retention_days: 0 }),
      422,
      "invalid_request",
      "/request_log_retention_days",
    );
    expectError(
      await admin(`/admin/v1/tenants/${t.tenant_id}/settings`, { request_log_retention_days: 366 }),
      422,
      "invalid_request",
      "/request_log_retention_days",
    );
  });
});
