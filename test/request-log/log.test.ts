/**
 * The request log through the public API: every authenticated call is listed for its tenant with
 * its route, status, key, model, task and charge; a task's attempts follow the task; a chat call's
 * upstream calls are its attempts; filters, the cursor, the permission and the scope (another
 * tenant's or another mode's request reads as not there).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { destinationBody, newBucket } from "../destinations/s3";
import { admin, call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, waitFor } from "../helpers/tasks";

const ALL = ["catalog:read", "tasks:read", "tasks:write", "chat", "logs:read"];

/** The log is written just after each answer, in batches: a client polls for what it expects. */
async function logOf(t: TestTenant, query: string, ready: (rows: any[]) => boolean) {
  for (let i = 0; i < 250; i++) {
    const res = await call(`/v1/requests${query}`, { key: t.api_key });
    expect(res.status, res.text).toBe(200);
    if (ready(res.json.data)) return res.json;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the log did not show what was expected for ${query}`);
}

async function detail(t: TestTenant, id: string, ready: (d: any) => boolean = () => true) {
  // The ledger tells the log what it settled from the account's alarm, about a second after.
  for (let i = 0; i < 250; i++) {
    const res = await call(`/v1/requests/${id}`, { key: t.api_key });
    if (res.status === 200 && ready(res.json)) return res.json;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`request ${id} did not reach the state expected`);
}

/** The tenant's ledger rows as stored: what the bill is made of. */
async function ledgerRows(tenantId: string): Promise<{ request_id: string | null; captured_amount: string }[]> {
  // The chat charges of an isolate are written in batches: wait for the window to pass.
  await new Promise((r) => setTimeout(r, 100));
  return runInDurableObject(env.ACCOUNTS.getByName(tenantId), async (_o, state) =>
    state.storage.sql
      .exec<{ request_id: string | null; captured_amount: string }>("SELECT request_id, captured_amount FROM reservations")
      .toArray(),
  );
}

let t: TestTenant;
let createId: string;
let taskId: string;
beforeAll(async () => {
  t = await newTenant({ credits: "1000", permissions: ALL });
  const created = await createImage(t, { model: "flux-2-pro", prompt: "a lighthouse" }, undefined, {
    "User-Agent": "log-test/1.0",
  });
  expect(created.status, created.text).toBe(202);
  createId = created.headers.get("X-Request-Id") as string;
  taskId = created.json.task_id;
  await waitFor(t, taskId);
});

describe("GET /v1/requests", () => {
  it("lists a create with its route, status, key, model, task and user agent", async () => {
    const page = await logOf(t, `?task_id=${taskId}`, (rows) => rows.length === 1);
    const [entry] = page.data;
    expect(entry).toMatchObject({
      object: "request",
      request_id: createId,
      method: "POST",
      route: "POST /v1/images/generations",
      status: 202,
      error_code: null,
      key_id: t.key_id,
      mode: "live",
      door: "rest",
      model: "flux-2-pro",
      task_id: taskId,
      batch_id: null,
      user_agent: "log-test/1.0",
      replay_of: null,
      recovered: false,
    });
    expect(entry.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(entry.created_at)).not.toBeNaN();
  });

  it("shows a task's final charge once it settled, and its attempts in the detail", async () => {
    const task = (await call(`/v1/tasks/${taskId}`, { key: t.api_key })).json;
    const d = await detail(t, createId, (x) => x.credits?.settled === true);
    expect(d.credits).toEqual({ charged: task.billing.net_charged_credits, settled: true });
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ provider: task.provider.name, key: "platform", outcome: "succeeded", error: null });
    expect(d.attempts[0].upstream_model).toBe(task.provider.upstream_model);
    expect(d.attempts[0].duration_ms).toBeGreaterThanOrEqual(0);
    const listed = await logOf(t, `?task_id=${taskId}`, (rows) => rows[0]?.credits?.settled === true);
    expect(listed.data[0].credits).toEqual({ charged: task.billing.net_charged_credits, settled: true });
  });

  it("shows a task's stages after the provider: storing its outputs, delivering them, each callback attempt", async () => {
    const u = await newTenant({ credits: "100", permissions: [...ALL, "storage:manage"] });
    const bucket = await newBucket();
    const dst = await call("/v1/storage-destinations", { key: u.api_key, body: destinationBody(bucket) });
    expect(dst.status, dst.text).toBe(201);
    const hook = `log-stages-${Date.now()}`;
    const created = await createImage(u, {
      model: "flux-2-pro",
      prompt: "a lighthouse with a callback",
      output_destination_id: dst.json.destination_id,
      callback_url: `${env.RECEIVER_URL}/hook/ok/${hook}`,
    });
    expect(created.status, created.text).toBe(202);
    await waitFor(u, created.json.task_id);
    const id = created.headers.get("X-Request-Id") as string;
    const d = await detail(u, id, (x) => x.stages?.some((s: any) => s.name === "deliver_callback" && s.outcome !== "pending"));
    expect(d.stages.map((s: any) => `${s.name}:${s.outcome}`)).toEqual([
      "store_outputs:succeeded",
      "deliver_outputs:succeeded",
      "deliver_callback:succeeded",
    ]);
    for (const s of d.stages) {
      expect(s.duration_ms).toBeGreaterThanOrEqual(0);
      expect(s.error).toBeNull();
    }
    // One time line: the provider's job ends, then its outputs are stored, delivered, and the callback sent.
    const attemptEnd = Date.parse(d.attempts[0].started_at) + d.attempts[0].duration_ms;
    const starts = d.stages.map((s: any) => Date.parse(s.started_at));
    expect(starts[0]).toBeGreaterThanOrEqual(attemptEnd);
    expect(starts[1]).toBeGreaterThanOrEqual(starts[0]);
    expect(starts[2]).toBeGreaterThanOrEqual(starts[1]);
    // A request that made no task has none.
    const chat = await call("/v1/chat/completions", {
      key: u.api_key,
      body: { model: "gpt-6-luna", messages: [{ role: "user", content: "hi" }], max_tokens: 5 },
    });
    expect((await detail(u, chat.headers.get("X-Request-Id") as string)).stages).toEqual([]);
  });

  it("logs refused requests with their error code, and filters by status class and error code", async () => {
    const refused = await call("/v1/images/generations", {
      key: t.api_key,
      body: { model: "flux-2-pro" },
      headers: { "Idempotency-Key": `k-${Date.now()}` },
    });
    expect(refused.status).toBe(422);
    const id = refused.headers.get("X-Request-Id") as string;
    const page = await logOf(t, "?status=4xx", (rows) => rows.some((r) => r.request_id === id));
    const entry = page.data.find((r: any) => r.request_id === id);
    expect(entry).toMatchObject({ status: 422, error_code: refused.json.error.code, task_id: null, credits: null });
    expect(page.data.every((r: any) => r.status >= 400 && r.status < 500)).toBe(true);
    const byCode = await logOf(t, `?error_code=${refused.json.error.code}`, (rows) => rows.length > 0);
    expect(byCode.data.every((r: any) => r.error_code === refused.json.error.code)).toBe(true);
  });

  it("logs a chat call with its model, upstream attempt and charge", async () => {
    const res = await call("/v1/chat/completions", {
      key: t.api_key,
      body: { model: "gpt-6-luna", messages: [{ role: "user", content: "hello log" }], max_tokens: 50 },
      headers: { "X-Request-Id": `client-chat-${Date.now()}` },
    });
    expect(res.status, res.text).toBe(200);
    const id = res.headers.get("X-Request-Id") as string;
    expect(id).toMatch(/^client-chat-/);
    const d = await detail(t, id, (x) => x.credits !== null);
    expect(d).toMatchObject({
      route: "POST /v1/chat/completions",
      status: 200,
      model: "gpt-6-luna",
      credits: { charged: res.headers.get("X-Credits-Charged"), settled: true },
    });
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ outcome: "succeeded", http_status: 200, key: "platform", error: null });
    expect(d).not.toHaveProperty("request_body");
  });

  it("waits for a stream's end: its charge is what the stream cost", async () => {
    const res = await call("/v1/chat/completions", {
      key: t.api_key,
      body: { model: "gpt-6-luna", stream: true, messages: [{ role: "user", content: "stream log" }], max_tokens: 50 },
    });
    expect(res.status).toBe(200);
    const d = await detail(t, res.headers.get("X-Request-Id") as string, (x) => x.credits !== null);
    expect(d.credits.settled).toBe(true);
    expect(Number(d.credits.charged)).toBeGreaterThan(0);
  });

  it("pages newest first with an opaque cursor, and filters by route", async () => {
    for (let i = 0; i < 3; i++) expect((await call("/v1/models", { key: t.api_key })).status).toBe(200);
    // Under load the three entries may come in separate batches: wait for all of them first.
    await logOf(t, "?route=GET%20/v1/models", (rows) => rows.length >= 3);
    const first = await logOf(t, "?route=GET%20/v1/models&limit=2", (rows) => rows.length === 2);
    expect(first.has_more).toBe(true);
    const second = await logOf(t, `?route=GET%20/v1/models&limit=2&cursor=${first.next_cursor}`, (rows) => rows.length >= 1);
    const ids = [...first.data, ...second.data].map((r: any) => r.request_id);
    expect(new Set(ids).size).toBe(ids.length);
    const times = [...first.data, ...second.data].map((r: any) => Date.parse(r.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect([...first.data, ...second.data].every((r: any) => r.route === "GET /v1/models")).toBe(true);
  });

  it("refuses a bad filter or cursor with the error envelope", async () => {
    expectError(await call("/v1/requests?status=abc", { key: t.api_key }), 422, "invalid_request", "/status");
    expectError(await call("/v1/requests?limit=101", { key: t.api_key }), 422, "invalid_request", "/limit");
    expectError(await call("/v1/requests?cursor=nope", { key: t.api_key }), 400, "invalid_cursor");
  });
});

describe("the log and the ledger", () => {
  it("names the request in the ledger row of each charge", async () => {
    const res = await call("/v1/chat/completions", {
      key: t.api_key,
      body: { model: "gpt-6-luna", messages: [{ role: "user", content: "ledger names me" }], max_tokens: 20 },
    });
    const id = res.headers.get("X-Request-Id") as string;
    const d = await detail(t, id, (x) => x.credits !== null);
    const rows = await ledgerRows(t.tenant_id);
    const charge = rows.filter((r) => r.request_id === id);
    expect(charge.reduce((sum, r) => sum + Number(r.captured_amount), 0)).toBeCloseTo(Number(d.credits.charged), 9);
    const task = rows.filter((r) => r.request_id === createId);
    expect(task).toHaveLength(1);
  });
});

describe("an entry lost with its isolate", () => {
  it("is rebuilt from the ledger, with the charge the ledger holds", async () => {
    const lost = `lost-${Date.now()}`;
    // A charge whose request's entry never reached the log (the isolate ended within its window).
    await env.ACCOUNTS.getByName(t.tenant_id).chargeBatch([
      { id: `chat_${lost}_00000000`, amount: "0.25", key_id: t.key_id, request_id: lost },
    ]);
    const d = await detail(t, lost);
    expect(d).toMatchObject({
      request_id: lost,
      recovered: true,
      route: "POST (unknown)",
      key_id: t.key_id,
      credits: { charged: "0.25", settled: true },
    });
  });
});

describe("who sees what", () => {
  it("needs logs:read", async () => {
    const other = await newTenant({ permissions: ["tasks:read"] });
    expectError(await call("/v1/requests", { key: other.api_key }), 403, "forbidden");
  });

  it("answers another tenant's request id as not there", async () => {
    const other = await newTenant({ permissions: ALL });
    expectError(await call(`/v1/requests/${createId}`, { key: other.api_key }), 404, "not_found");
  });

  it("keeps a test key to test-mode entries", async () => {
    const k = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, { permissions: ALL, mode: "test" });
    expect(k.status).toBe(201);
    const testKey = { ...t, api_key: k.json.api_key, key_id: k.json.key_id };
    expectError(await call(`/v1/requests/${createId}`, { key: testKey.api_key }), 404, "not_found");
    const page = await logOf(testKey, "", (rows) => rows.length > 0);
    expect(page.data.every((r: any) => r.mode === "test")).toBe(true);
  });
});

describe("POST /v1/requests/{id}/replay", () => {
  it("runs a create again as a new task of the same key, its entry naming the original", async () => {
    const res = await call(`/v1/requests/${createId}/replay`, {
      key: t.api_key,
      body: {},
      headers: { "Idempotency-Key": `r-${Date.now()}` },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.json.object).toBe("task");
    expect(res.json.task_id).not.toBe(taskId);
    const id = res.headers.get("X-Request-Id") as string;
    const d = await detail(t, id);
    expect(d).toMatchObject({ replay_of: createId, route: "POST /v1/images/generations", task_id: res.json.task_id });
  });

  it("runs a create on another model when asked", async () => {
    const res = await call(`/v1/requests/${createId}/replay`, {
      key: t.api_key,
      body: { model: "seedream-4.0" },
      headers: { "Idempotency-Key": `r2-${Date.now()}` },
    });
    if (res.status === 202) expect(res.json.resolved_model).toBe("seedream-4.0");
    else expectError(res, res.status, res.json.error.code);
  });

  it("refuses what is not a create or a chat call, and a chat call whose body was not kept", async () => {
    const listed = await logOf(t, "?route=GET%20/v1/models&limit=1", (rows) => rows.length === 1);
    const again = (n: string) => ({ key: t.api_key, body: {}, headers: { "Idempotency-Key": `r-${n}-${Date.now()}` } });
    const notCreate = await call(`/v1/requests/${listed.data[0].request_id}/replay`, again("models"));
    expectError(notCreate, 422, "invalid_request", "request_id");
    const chat = await logOf(t, "?route=POST%20/v1/chat/completions&limit=1", (rows) => rows.length === 1);
    const notKept = await call(`/v1/requests/${chat.data[0].request_id}/replay`, again("chat"));
    expect(notKept.json.error.message, notKept.text).toContain("not logged whole");
    expectError(notKept, 422, "invalid_request", "request_id");
  });

  it("needs an Idempotency-Key, as every create does", async () => {
    expectError(await call(`/v1/requests/${createId}/replay`, { key: t.api_key, body: {} }), 422, "invalid_request");
  });
});
