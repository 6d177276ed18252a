/**
 * The request log's exports through the public API: OTLP/HTTP JSON traces posted to a collector
 * (the tests' receiver on 127.0.0.1, which records every post and can fail the first N), JSON
 * Lines files written to a storage destination (the fake S3), the schedule driven by the
 * directory object's alarm, retries, cursors, the URL policy, the permission and the scope.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { AwsClient } from "aws4fetch";
import { describe, expect, it } from "vitest";
import { destinationBody, failNext, newBucket, objectsIn } from "../destinations/s3";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { waitFor } from "../helpers/tasks";

const ALL = ["catalog:read", "chat", "logs:read", "logs:manage", "storage:manage"];

interface Post {
  path: string;
  headers: Record<string, string>;
  body: string;
}

const posts = async (name: string): Promise<Post[]> => (await fetch(`${env.RECEIVER_URL}/deliveries/${name}`)).json();
const collector = (name: string, failTimes = 0) =>
  failTimes ? `${env.RECEIVER_URL}/hook/fail/${name}?times=${failTimes}` : `${env.RECEIVER_URL}/hook/ok/${name}`;

const directory = (t: TestTenant) => env.REQUEST_LOG.getByName(`${t.tenant_id}:hours`);

/** As if the minute had passed: the export is due, and the directory's alarm runs. */
async function alarmRun(t: TestTenant): Promise<void> {
  await runInDurableObject(directory(t), async (_o, state) => {
    state.storage.sql.exec("UPDATE log_exports SET next_run_at = 0");
    if ((await state.storage.getAlarm()) === null) await state.storage.setAlarm(Date.now() + 60_000);
  });
  expect(await runDurableObjectAlarm(directory(t))).toBe(true);
}

/**
 * Entries are written just after each answer, and a chat call's charge about a second later, once
 * the ledger has told the log: wait until the log has these requests as they end up.
 */
async function logged(t: TestTenant, ids: string[]): Promise<void> {
  for (let i = 0; i < 250; i++) {
    const all = await Promise.all(ids.map((id) => call(`/v1/requests/${id}`, { key: t.api_key })));
    const done = (r: (typeof all)[number]) =>
      r.status === 200 && (r.json.route !== "POST /v1/chat/completions" || r.json.status !== 200 || r.json.credits !== null);
    if (all.every(done)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`requests ${ids.join(", ")} were not logged`);
}

async function chat(t: TestTenant, text: string): Promise<string> {
  const res = await call("/v1/chat/completions", {
    key: t.api_key,
    body: { model: "gpt-6-luna", messages: [{ role: "user", content: text }], max_tokens: 20 },
  });
  expect(res.status, res.text).toBe(200);
  return res.headers.get("X-Request-Id") as string;
}

async function createExport(t: TestTenant, body: unknown) {
  const res = await call("/v1/log-exports", { key: t.api_key, body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

type Attr = { key: string; value: Record<string, unknown> };
const attr = (span: { attributes: Attr[] }, key: string) => {
  const a = span.attributes.find((x) => x.key === key);
  return a ? Object.values(a.value)[0] : undefined;
};
const spansIn = (post: Post) =>
  JSON.parse(post.body).resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans)) as any[];
const requestIdsIn = (ps: Post[]) =>
  ps
    .flatMap(spansIn)
    .filter((s) => !s.parentSpanId)
    .map((s) => attr(s, "request.id") as string);

describe("OTLP exports", () => {
  it("posts a trace per request: the request, its admission and each provider attempt, with the custom header", async () => {
    const t = await newTenant({ permissions: ALL });
    const name = `otlp-shape-${Date.now()}`;
    const e = await createExport(t, { kind: "otlp", url: collector(name), headers: { "X-Collector-Key": "sekret-123" } });
    expect(e).toMatchObject({
      object: "log_export",
      kind: "otlp",
      mode: "live",
      url: collector(name),
      header_names: ["X-Collector-Key"],
      destination_id: null,
      last_success_at: null,
      last_error: null,
      delivered_count: 0,
    });
    expect(JSON.stringify(e)).not.toContain("sekret-123");
    const chatId = await chat(t, "export me");
    const refused = await call("/v1/chat/completions", { key: t.api_key, body: { model: "gpt-6-luna" } });
    expect(refused.status).toBe(422);
    const refusedId = refused.headers.get("X-Request-Id") as string;
    await logged(t, [chatId, refusedId]);

    const run = await call(`/v1/log-exports/${e.export_id}/run`, { key: t.api_key, method: "POST" });
    expect(run.status, run.text).toBe(200);
    expect(run.json.last_error).toBeNull();
    expect(run.json.delivered_count).toBeGreaterThanOrEqual(2);
    expect(Date.parse(run.json.last_success_at)).not.toBeNaN();

    const [post] = await posts(name);
    expect(post?.headers["content-type"]).toBe("application/json");
    expect(post?.headers["x-collector-key"]).toBe("sekret-123");
    const body = JSON.parse(post?.body as string);
    expect(body.resourceSpans[0].resource.attributes).toContainEqual({ key: "tenant.id", value: { stringValue: t.tenant_id } });
    expect(body.resourceSpans[0].scopeSpans[0].scope.name).toBe("media-gateway.request-log");
    const spans = spansIn(post as Post);
    for (const s of spans) {
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(s.startTimeUnixNano).toMatch(/^\d{19}$/);
      expect(BigInt(s.endTimeUnixNano) >= BigInt(s.startTimeUnixNano)).toBe(true);
    }

    const detail = (await call(`/v1/requests/${chatId}`, { key: t.api_key })).json;
    const root = spans.find((s) => !s.parentSpanId && attr(s, "request.id") === chatId);
    expect(root.name).toBe("POST /v1/chat/completions");
    expect(root.kind).toBe(2);
    expect(attr(root, "http.request.method")).toBe("POST");
    expect(attr(root, "http.route")).toBe("/v1/chat/completions");
    expect(attr(root, "http.response.status_code")).toBe("200");
    expect(attr(root, "gen_ai.operation.name")).toBe("chat");
    expect(attr(root, "gen_ai.request.model")).toBe("gpt-6-luna");
    expect(attr(root, "gen_ai.response.model")).toBe(detail.attempts[0].upstream_model);
    expect(attr(root, "credits.charged")).toBe(detail.credits.charged);
    expect(Number(BigInt(root.startTimeUnixNano) / 1_000_000n)).toBe(Date.parse(detail.created_at));
    const children = spans.filter((s) => s.traceId === root.traceId && s.parentSpanId === root.spanId);
    expect(children.map((s) => s.name)).toContain("admission");
    const attempt = children.find((s) => s.kind === 3);
    expect(attr(attempt, "gen_ai.system")).toBe(detail.attempts[0].provider);
    expect(attr(attempt, "gen_ai.request.model")).toBe(detail.attempts[0].upstream_model);
    expect(attr(attempt, "attempt.outcome")).toBe("succeeded");

    const refusedRoot = spans.find((s) => !s.parentSpanId && attr(s, "request.id") === refusedId);
    expect(attr(refusedRoot, "http.response.status_code")).toBe("422");
    expect(attr(refusedRoot, "error.type")).toBe(refused.json.error.code);
    const admission = spans.find((s) => s.traceId === refusedRoot.traceId && s.name === "admission");
    expect(attr(admission, "admission.outcome")).toBe("refused");
    // The export's own create arrived before the export: it is not sent.
    expect(spans.filter((s) => !s.parentSpanId).map((s) => s.name)).not.toContain("POST /v1/log-exports");
  });

  it("sends a task create's attempts as the task made them, and storing its outputs", async () => {
    const t = await newTenant({ permissions: [...ALL, "tasks:read", "tasks:write"] });
    const name = `otlp-task-${Date.now()}`;
    await createExport(t, { kind: "otlp", url: collector(name) });
    const created = await call("/v1/images/generations", {
      key: t.api_key,
      body: { model: "flux-2-pro", prompt: "a lighthouse at dusk" },
      headers: { "Idempotency-Key": `otlp-task-${Date.now()}` },
    });
    expect(created.status, created.text).toBe(202);
    const id = created.headers.get("X-Request-Id") as string;
    await waitFor(t, created.json.task_id);
    await logged(t, [id]);
    await alarmRun(t);
    const spans = (await posts(name)).flatMap((p) => spansIn(p));
    const root = spans.find((s) => !s.parentSpanId && attr(s, "request.id") === id);
    expect(attr(root, "task.id")).toBe(created.json.task_id);
    const children = spans.filter((s) => s.traceId === root.traceId && s.parentSpanId === root.spanId);
    const attempts = children.filter((s) => attr(s, "attempt.outcome") !== undefined);
    expect(attempts.map((a) => attr(a, "attempt.outcome"))).toEqual(["succeeded"]);
    // Storing the outputs is a span of its own, after the provider's job ended.
    const storing = children.find((s) => s.name === "store_outputs");
    expect(attr(storing, "stage.outcome")).toBe("succeeded");
    expect(attr(storing, "task.id")).toBe(created.json.task_id);
    expect(storing.status).toEqual({ code: 1 });
    expect(BigInt(storing.startTimeUnixNano) >= BigInt(attempts[0].endTimeUnixNano)).toBe(true);
  });

  it("retries after a failure: last_error set, the cursor kept, then the same entries delivered", async () => {
    const t = await newTenant({ permissions: ALL });
    const name = `otlp-retry-${Date.now()}`;
    const e = await createExport(t, { kind: "otlp", url: collector(name, 1) });
    const id = await chat(t, "retry me");
    await logged(t, [id]);
    await alarmRun(t);
    const failed = (await call(`/v1/log-exports/${e.export_id}`, { key: t.api_key })).json;
    expect(failed.last_error).toContain("HTTP 500");
    expect(failed.consecutive_failures).toBe(1);
    expect(failed.delivered_count).toBe(0);
    expect(failed.last_success_at).toBeNull();
    // The first retry is a minute after the failure.
    expect(Date.parse(failed.next_run_at) - Date.parse(failed.last_run_at)).toBe(60_000);

    await alarmRun(t);
    const ok = (await call(`/v1/log-exports/${e.export_id}`, { key: t.api_key })).json;
    expect(ok.last_error).toBeNull();
    expect(ok.consecutive_failures).toBe(0);
    expect(ok.delivered_count).toBeGreaterThan(0);
    const [first, second] = await posts(name);
    expect(requestIdsIn([first as Post])).toContain(id);
    // Sent again from the same cursor: the first batch's entries lead the second (later calls follow them).
    const again = requestIdsIn([second as Post]);
    expect(again.slice(0, requestIdsIn([first as Post]).length)).toEqual(requestIdsIn([first as Post]));
    // The same request, sent again, names the same trace.
    const traceOf = (p: Post) => spansIn(p).find((s) => attr(s, "request.id") === id).traceId;
    expect(traceOf(second as Post)).toBe(traceOf(first as Post));
  });

  it("sends each entry once: a later run sends only what is new; an export with nothing new sends nothing", async () => {
    const t = await newTenant({ permissions: ALL });
    const name = `otlp-cursor-${Date.now()}`;
    const e = await createExport(t, { kind: "otlp", url: collector(name) });
    // Nothing logged since the export began: the run sends nothing.
    await alarmRun(t);
    expect(await posts(name)).toEqual([]);

    // Reads, which carry no charge: an entry the ledger later settles is sent again in its final form.
    const read = async () => (await call("/v1/models", { key: t.api_key })).headers.get("X-Request-Id") as string;
    const a = await read();
    await logged(t, [a]);
    await alarmRun(t);
    // The directory's own alarm may also run while a test's run is under way (an hour announced
    // sets it): what was sent before the second request and what was sent after it are compared,
    // whatever the number of posts each took.
    const before = (await posts(name)).length;
    const b = await read();
    await logged(t, [b]);
    await alarmRun(t);
    const all = await posts(name);
    const first = requestIdsIn(all.slice(0, before));
    const second = requestIdsIn(all.slice(before));
    expect(first).toContain(a);
    expect(second).toContain(b);
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    const count = (await call(`/v1/log-exports/${e.export_id}`, { key: t.api_key })).json.delivered_count;
    expect(count).toBe(first.length + second.length);
  });

  it("refuses URLs outside the policy with param /url, and reserved headers", async () => {
    const t = await newTenant({ permissions: ALL });
    for (const url of [
      "http://collector.example.com/v1/traces",
      "https://10.0.0.1/v1/traces",
      "https://metadata.internal/v1/traces",
      "https://user:pw@collector.example.com/v1/traces",
      "nope",
    ]) {
      expectError(await call("/v1/log-exports", { key: t.api_key, body: { kind: "otlp", url } }), 422, "invalid_request", "/url");
    }
    const res = await call("/v1/log-exports", {
      key: t.api_key,
      body: { kind: "otlp", url: "https://collector.example.com/v1/traces", headers: { "Content-Type": "text/plain" } },
    });
    expectError(res, 422, "invalid_request", "/headers/Content-Type");
    expectError(await call("/v1/log-exports", { key: t.api_key, body: { kind: "kafka" } }), 422, "invalid_request");
  });

  it("holds a tenant to 5 exports", async () => {
    const t = await newTenant({ permissions: ALL });
    for (let i = 0; i < 5; i++) await createExport(t, { kind: "otlp", url: "https://collector.example.com/v1/traces" });
    const res = await call("/v1/log-exports", {
      key: t.api_key,
      body: { kind: "otlp", url: "https://collector.example.com/v1/traces" },
    });
    expectError(res, 409, "conflict");
    expect(res.json.error.details).toMatchObject({ reason: "log_export_limit", limit: 5 });
  });
});

describe("destination exports", () => {
  it("writes JSON Lines files, one entry in its detail form per line, into the bucket", async () => {
    const t = await newTenant({ permissions: ALL });
    const bucket = await newBucket();
    const dst = await call("/v1/storage-destinations", { key: t.api_key, body: destinationBody(bucket) });
    expect(dst.status, dst.text).toBe(201);
    const e = await createExport(t, { kind: "destination", destination_id: dst.json.destination_id, prefix: "/logs/" });
    expect(e).toMatchObject({ kind: "destination", destination_id: dst.json.destination_id, prefix: "logs", url: null });
    const id = await chat(t, "to the bucket");
    await logged(t, [id]);

    await failNext(bucket, 1);
    const failed = (await call(`/v1/log-exports/${e.export_id}/run`, { key: t.api_key, method: "POST" })).json;
    expect(failed.last_error).toContain("SlowDown");
    const run = (await call(`/v1/log-exports/${e.export_id}/run`, { key: t.api_key, method: "POST" })).json;
    expect(run.last_error).toBeNull();

    const objects = await objectsIn(bucket);
    const file = objects.find((o) => o.key.endsWith(".jsonl"));
    expect(file?.key).toMatch(/^logs\/\d{4}\/\d{2}\/\d{2}\/\d{2}\/\d{8}T\d{9}Z-\d+\.jsonl$/);
    expect(file?.content_type).toBe("application/x-ndjson");
    const s3 = new AwsClient({
      accessKeyId: bucket.access_key_id,
      secretAccessKey: bucket.secret_access_key,
      service: "s3",
      region: bucket.region,
    });
    const text = await (await s3.fetch(`${env.FAKE_S3_URL}/${bucket.bucket}/${file?.key}`)).text();
    const lines = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(Number(file?.key.match(/-(\d+)\.jsonl$/)?.[1])).toBe(lines.length);
    expect(lines.length).toBe(run.delivered_count);
    const entry = lines.find((l) => l.request_id === id);
    const detail = (await call(`/v1/requests/${id}`, { key: t.api_key })).json;
    expect(entry).toEqual(detail);
  });

  it("refuses a destination the tenant does not have", async () => {
    const t = await newTenant({ permissions: ALL });
    const res = await call("/v1/log-exports", {
      key: t.api_key,
      body: { kind: "destination", destination_id: "dst_nothere", prefix: "logs" },
    });
    expectError(res, 422, "invalid_request", "/destination_id");
  });
});

describe("who reaches an export", () => {
  it("needs logs:manage", async () => {
    const t = await newTenant({ permissions: ["logs:read"] });
    expectError(await call("/v1/log-exports", { key: t.api_key }), 403, "forbidden");
    expectError(
      await call("/v1/log-exports", { key: t.api_key, body: { kind: "otlp", url: "https://collector.example.com/v1/traces" } }),
      403,
      "forbidden",
    );
  });

  it("answers another tenant's export as not there, and lists, reads and deletes its own", async () => {
    const t = await newTenant({ permissions: ALL });
    const other = await newTenant({ permissions: ALL });
    const e = await createExport(t, { kind: "otlp", url: "https://collector.example.com/v1/traces" });
    for (const [path, method] of [
      [`/v1/log-exports/${e.export_id}`, "GET"],
      [`/v1/log-exports/${e.export_id}`, "DELETE"],
      [`/v1/log-exports/${e.export_id}/run`, "POST"],
    ] as const) {
      expectError(await call(path, { key: other.api_key, method }), 404, "not_found");
    }
    expect((await call("/v1/log-exports", { key: other.api_key })).json.data).toEqual([]);
    const list = (await call("/v1/log-exports", { key: t.api_key })).json;
    expect(list.data.map((x: any) => x.export_id)).toEqual([e.export_id]);
    expect((await call(`/v1/log-exports/${e.export_id}`, { key: t.api_key })).json).toEqual(list.data[0]);
    const deleted = await call(`/v1/log-exports/${e.export_id}`, { key: t.api_key, method: "DELETE" });
    expect(deleted.json).toEqual({ object: "log_export", export_id: e.export_id, deleted: true });
    expectError(await call(`/v1/log-exports/${e.export_id}`, { key: t.api_key }), 404, "not_found");
  });
});
