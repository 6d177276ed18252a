import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, waitFor } from "../helpers/tasks";

let t: TestTenant;
const ids: string[] = [];
beforeAll(async () => {
  t = await newTenant({ credits: "10000" });
  for (let i = 0; i < 5; i++) {
    const res = await createImage(t, { prompt: `task ${i}`, canvas: { type: "preset", tier: "1K", aspect: "1:1" } });
    ids.push(res.json.task_id);
    await new Promise((r) => setTimeout(r, 5));
  }
  await waitFor(t, ids[4] as string);
  await waitFor(t, ids[3] as string);
});
const list = (q = "") => call(`/v1/tasks${q}`, { key: t.api_key });

describe("GET /v1/tasks", () => {
  it("lists the tenant's tasks newest first", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ object: "list", has_more: false, next_cursor: null });
    expect(res.json.data.map((x: any) => x.task_id)).toEqual([...ids].reverse());
    for (const task of res.json.data) expect(task.object).toBe("task");
  });

  it("pages with an opaque cursor", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.json.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.json.data.map((x: any) => x.task_id));
      cursor = res.json.next_cursor;
      expect(res.json.has_more).toBe(cursor !== null);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
  });

  it("filters by status and capability", async () => {
    const succeeded = (await list("?status=succeeded")).json.data;
    expect(succeeded.length).toBeGreaterThanOrEqual(2);
    expect(succeeded.every((x: any) => x.status === "succeeded")).toBe(true);
    expect((await list("?capability=text_to_video")).json.data).toEqual([]);
    expect((await list("?capability=text_to_image")).json.data).toHaveLength(5);
  });

  it("filters by a creation window", async () => {
    const all = (await list()).json.data;
    const middle = all[2].created_at;
    const after = (await list(`?created_after=${encodeURIComponent(middle)}`)).json.data;
    expect(after.every((x: any) => x.created_at > middle)).toBe(true);
    const before = (await list(`?created_before=${encodeURIComponent(middle)}`)).json.data;
    expect(before.every((x: any) => x.created_at < middle)).toBe(true);
    expect(after.length + before.length).toBe(4);
  });

  it("a reversed or malformed window: 422 invalid_window", async () => {
    expectError(await list("?created_after=2026-02-01T00:00:00Z&created_before=2026-01-01T00:00:00Z"), 422, "invalid_window");
    expectError(await list("?created_after=yesterday"), 422, "invalid_window", "/created_after");
  });

  it("a malformed or foreign cursor: 400 invalid_cursor", async () => {
    expectError(await list("?cursor=garbage"), 400, "invalid_cursor", "/cursor");
    const cursor = (await list("?limit=1")).json.next_cursor;
    const other = await newTenant();
    await createImage(other, { prompt: "other" });
    expectError(await call(`/v1/tasks?cursor=${cursor}`, { key: other.api_key }), 400, "invalid_cursor");
  });

  it("bad parameters: 422 invalid_request", async () => {
    expectError(await list("?limit=0"), 422, "invalid_request", "/limit");
    expectError(await list("?limit=101"), 422, "invalid_request", "/limit");
    expectError(await list("?status=done"), 422, "invalid_request", "/status");
    expectError(await list("?sort=asc"), 422, "invalid_request");
  });

  it("never shows another tenant's tasks", async () => {
    const other = await newTenant();
    expect((await call("/v1/tasks", { key: other.api_key })).json.data).toEqual([]);
  });
});

describe("GET /v1/tasks and key modes", () => {
  it("lists only the tasks of the calling key's mode: test work never shows to a live key, nor the reverse", async () => {
    const live = await newTenant({ credits: "1000" });
    const made = await call(`/admin/v1/tenants/${live.tenant_id}/api-keys`, { key: ADMIN_TOKEN, body: { mode: "test" } });
    expect(made.status).toBe(201);
    const test: TestTenant = { ...live, api_key: made.json.api_key, key_id: made.json.key_id };
    const canvas = { type: "preset", tier: "1K", aspect: "1:1" };
    const liveTask = (await createImage(live, { prompt: "live work", canvas })).json.task_id;
    const testTask = (await createImage(test, { prompt: "test work", canvas })).json.task_id;
    await waitFor(live, liveTask);
    await waitFor(test, testTask);

    const ofLive = await call("/v1/tasks", { key: live.api_key });
    const ofTest = await call("/v1/tasks", { key: test.api_key });
    expect(ofLive.json.data.map((x: any) => x.task_id)).toEqual([liveTask]);
    expect(ofTest.json.data.map((x: any) => x.task_id)).toEqual([testTask]);
    expect(ofTest.json.data[0].provider.mode).toBe("test");
  });
});
