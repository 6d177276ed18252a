/**
 * The delivery log: every delivery of the tenant — to its endpoints and to its tasks' callbacks —
 * listed newest first with filters and a cursor, and each one read with every attempt, as the
 * task object that made them recorded it. Receivers run on 127.0.0.1.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, waitFor } from "../helpers/tasks";

let n = 0;
const hook = (mode: string, query = "") => {
  const name = `l${Date.now()}-${++n}`;
  return { name, url: `${env.RECEIVER_URL}/hook/${mode}/${name}${query}` };
};
const webhookTenant = () => newTenant({ credits: "10000", permissions: ["tasks:read", "tasks:write", "webhooks:manage"] });
const list = (t: TestTenant, query = "") => call(`/v1/webhook-deliveries${query}`, { key: t.api_key });
const detail = (t: TestTenant, id: string) => call(`/v1/webhook-deliveries/${id}`, { key: t.api_key });

async function newEndpoint(t: TestTenant, url: string, events: string[]) {
  const res = await call("/v1/webhook-endpoints", { key: t.api_key, body: { url, events } });
  expect(res.status, res.text).toBe(201);
  return res.json as { endpoint_id: string; secret: string };
}

/** The log's page for a task once `ready` holds (the task object reports after its attempts). */
async function logOf(t: TestTenant, taskId: string, ready: (rows: any[]) => boolean) {
  for (let i = 0; i < 100; i++) {
    const res = await list(t, `?task_id=${taskId}`);
    expect(res.status, res.text).toBe(200);
    if (ready(res.json.data)) return res.json.data as any[];
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("the log did not reach the state expected");
}

let t: TestTenant;
let taskId: string;
let ok: { endpoint_id: string };
let failing: { endpoint_id: string };
let rows: any[];
beforeAll(async () => {
  t = await webhookTenant();
  ok = await newEndpoint(t, hook("ok").url, ["*"]);
  failing = await newEndpoint(t, hook("fail", "?times=100").url, ["task.succeeded"]);
  const created = await createImage(t, { prompt: "log me", callback_url: hook("ok").url });
  expect(created.status, created.text).toBe(202);
  taskId = created.json.task_id;
  await waitFor(t, taskId);
  rows = await logOf(t, taskId, (r) => r.length === 3 && r.filter((x) => x.status === "succeeded").length === 2);
});

describe("GET /v1/webhook-deliveries", () => {
  it("lists endpoint deliveries and the callback's, each under the task's event", () => {
    expect(rows.map((r) => [r.target, r.endpoint_id, r.status]).sort()).toEqual(
      [
        ["callback", null, "succeeded"],
        ["endpoint", ok.endpoint_id, "succeeded"],
        ["endpoint", failing.endpoint_id, "pending"],
      ].sort(),
    );
    for (const r of rows) {
      expect(r).toMatchObject({
        object: "webhook_delivery",
        delivery_id: expect.stringMatching(/^whd_/),
        task_id: taskId,
        event_id: rows[0].event_id,
        event_type: "task.succeeded",
      });
    }
    expect(rows.find((r) => r.status === "pending").finished_at).toBeNull();
    expect(rows.find((r) => r.target === "callback").finished_at).toEqual(expect.any(String));
  });

  it("filters by endpoint, status and task", async () => {
    const byEndpoint = await list(t, `?endpoint_id=${failing.endpoint_id}`);
    expect(byEndpoint.json.data.map((r: any) => r.endpoint_id)).toEqual([failing.endpoint_id]);
    const pending = await list(t, "?status=pending");
    expect(pending.json.data.map((r: any) => r.endpoint_id)).toEqual([failing.endpoint_id]);
    const succeeded = await list(t, `?status=succeeded&task_id=${taskId}`);
    expect(succeeded.json.data.map((r: any) => r.target).sort()).toEqual(["callback", "endpoint"]);
    expect((await list(t, "?task_id=task_none")).json.data).toEqual([]);
  });

  it("pages with a cursor, newest first, and refuses a cursor not its own", async () => {
    const seen: string[] = [];
    let query = "?limit=1";
    for (let i = 0; i < 3; i++) {
      const page = await list(t, query);
      expect(page.status).toBe(200);
      expect(page.json.data).toHaveLength(1);
      seen.push(page.json.data[0].delivery_id);
      expect(page.json.has_more).toBe(i < 2);
      if (i < 2) query = `?limit=1&cursor=${page.json.next_cursor}`;
      else expect(page.json.next_cursor).toBeNull();
    }
    expect(new Set(seen)).toEqual(new Set(rows.map((r) => r.delivery_id)));
    const first = await list(t, "?limit=1");
    const other = await webhookTenant();
    expectError(await list(other, `?cursor=${first.json.next_cursor}`), 400, "invalid_cursor", "/cursor");
    expectError(await list(t, "?cursor=nonsense"), 400, "invalid_cursor", "/cursor");
  });

  it("refuses bad filters with the field named", async () => {
    expectError(await list(t, "?status=delivered"), 422, "invalid_request", "/status");
    expectError(await list(t, "?limit=0"), 422, "invalid_request", "/limit");
    expectError(await list(t, "?since=yesterday"), 422, "invalid_request");
  });

  it("needs `webhooks:manage`", async () => {
    const reader = await newTenant({ permissions: ["tasks:read"] });
    expectError(await list(reader), 403, "forbidden");
    expectError(await detail(reader, rows[0].delivery_id), 403, "forbidden");
  });
});

describe("GET /v1/webhook-deliveries/{delivery_id}", () => {
  it("shows every attempt of a failing delivery", async () => {
    const id = rows.find((r) => r.endpoint_id === failing.endpoint_id).delivery_id;
    const res = await detail(t, id);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      object: "webhook_delivery",
      delivery_id: id,
      target: "endpoint",
      status: "pending",
      attempt_count: 1,
      last_error: "receiver answered HTTP 500",
      next_attempt_at: expect.any(String),
    });
    expect(res.json.attempts).toEqual([
      {
        attempt: 1,
        attempted_at: expect.any(String),
        http_status: 500,
        duration_ms: expect.any(Number),
        error: "receiver answered HTTP 500",
        cause: "http_500",
        location: null,
        response_excerpt: "boom",
      },
    ]);
  });

  it("shows the callback's attempts", async () => {
    const id = rows.find((r) => r.target === "callback").delivery_id;
    const res = await detail(t, id);
    expect(res.json).toMatchObject({
      target: "callback",
      endpoint_id: null,
      status: "succeeded",
      attempt_count: 1,
      next_attempt_at: null,
    });
    expect(res.json.attempts).toMatchObject([{ attempt: 1, http_status: 200, error: null, location: null }]);
  });

  it("is 404 for another tenant's delivery and an unknown id", async () => {
    const other = await webhookTenant();
    expectError(await detail(other, rows[0].delivery_id), 404, "not_found");
    expectError(await detail(t, "whd_unknown"), 404, "not_found");
  });
});
