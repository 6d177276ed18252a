/**
 * GET /v1/usage: credits and counters of the caller's settled tasks and chat completions in a
 * window, per UTC day, capability or model, summed by the account object from the rows its
 * settlements wrote; each key mode sees its own.
 */
import { env } from "cloudflare:workers";
import type OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import type { UsageNote } from "../../src/accounts/usage";
import { dec, fmt } from "../../src/lib/decimal";
import { expectSettled, openai, waitUntil } from "../chat/helpers";
import { admin, call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, expectLedgerBalanced, waitFor } from "../helpers/tasks";

const usage = (key: string, query = "") => call(`/v1/usage${query}`, { key });
const add = (...xs: string[]) => fmt(xs.reduce((a, x) => a.plus(x), dec(0)));

let t: TestTenant;
let testKey: string;
/** The UTC days the work below was settled within. */
let firstDay: string;
let lastDay: string;
/** What the live key's work was charged, as the envelopes and the chat header report it. */
const live = { image: "0", chat: [] as string[], chatTokens: { input: 0, output: 0 }, images: 0, imageModel: "" };

beforeAll(async () => {
  firstDay = new Date().toISOString().slice(0, 10);
  t = await newTenant({ credits: "5000" });
  const k = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, { mode: "test" });
  testKey = k.json.api_key;

  const ok = await waitFor(t, (await createImage(t, { prompt: "a red kite" })).json.task_id);
  expect(ok.status).toBe("succeeded");
  live.image = ok.billing.net_charged_credits;
  live.images = ok.usage.image_count;
  live.imageModel = ok.resolved_model;
  const failed = await waitFor(
    t,
    (await createImage(t, { prompt: "x", metadata: { sandbox_fault: "provider_error" } })).json.task_id,
  );
  expect(failed.status).toBe("failed");
  const queued = await createImage(t, { prompt: "later", metadata: { sandbox_fault: "stay_queued" } });
  const canceled = await call(`/v1/tasks/${queued.json.task_id}/cancel`, { key: t.api_key, method: "POST", body: {} });
  expect(canceled.json.status).toBe("canceled");

  // Two completions: the first holds credits and captures; the second is charged in one write.
  const client = openai(t.api_key);
  for (const content of ["Hello there", "And again"]) {
    const { data, response } = await client.chat.completions
      .create({ model: "gpt-6-luna", messages: [{ role: "user", content }], max_tokens: 50 })
      .withResponse();
    live.chat.push(response.headers.get("X-Credits-Charged") as string);
    const u = data.usage as OpenAI.CompletionUsage;
    live.chatTokens.input += u.prompt_tokens;
    live.chatTokens.output += u.completion_tokens;
  }
  await expectSettled(t.tenant_id);

  // Test-mode work on the same tenant: one task, one completion.
  const tester = { ...t, api_key: testKey };
  expect((await waitFor(tester, (await createImage(tester, { prompt: "free" })).json.task_id)).status).toBe("succeeded");
  await openai(testKey).chat.completions.create({ model: "gpt-6-luna", messages: [{ role: "user", content: "hi" }] });
  await waitUntil(
    () => usage(testKey, "?group_by=capability"),
    (r) => r.json?.totals?.completions === 1,
  );
  lastDay = new Date().toISOString().slice(0, 10);
});

describe("GET /v1/usage", () => {
  it("by capability: tasks and chat completions side by side, sorted, with totals", async () => {
    const res = await usage(t.api_key, "?group_by=capability");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ object: "usage", mode: "live", group_by: "capability" });
    const [chat, image, ...rest] = res.json.data;
    expect(rest).toEqual([]);
    expect(chat).toMatchObject({
      capability: "chat_completion",
      credits: add(...live.chat),
      tasks: 0,
      completions: 2,
      succeeded: 2,
      failed: 0,
      canceled: 0,
      input_tokens: live.chatTokens.input,
      output_tokens: live.chatTokens.output,
      image_count: 0,
    });
    expect(image).toMatchObject({
      capability: "text_to_image",
      credits: live.image,
      tasks: 3,
      completions: 0,
      succeeded: 1,
      failed: 1,
      canceled: 1,
      image_count: live.images,
      input_tokens: 0,
    });
    expect(res.json.totals).toMatchObject({
      credits: add(live.image, ...live.chat),
      tasks: 3,
      completions: 2,
      succeeded: 3,
      failed: 1,
      canceled: 1,
      image_count: live.images,
      input_tokens: live.chatTokens.input,
    });
    // Every credit the ledger captured is in the report.
    const l = await expectLedgerBalanced(t.tenant_id);
    expect(res.json.totals.credits).toBe(l.totals.captured);
    expect(Object.keys(res.json.totals).sort()).toEqual(
      Object.keys(chat)
        .filter((k) => k !== "capability")
        .sort(),
    );
  });

  it("by model: the resolved models, sorted", async () => {
    const res = await usage(t.api_key, "?group_by=model");
    expect(res.status).toBe(200);
    const models = res.json.data.map((r: { model: string }) => r.model);
    expect(models).toEqual([...new Set(["gpt-6-luna", live.imageModel])].sort());
    const luna = res.json.data.find((r: { model: string }) => r.model === "gpt-6-luna");
    expect(luna).toMatchObject({ completions: 2, credits: add(...live.chat) });
    expect(res.json.totals.credits).toBe(add(live.image, ...live.chat));
  });

  it("by day (the default): UTC days, and the default window is the last 30 days", async () => {
    const before = Date.now();
    const res = await usage(t.api_key);
    expect(res.status).toBe(200);
    expect(res.json.group_by).toBe("day");
    const to = Date.parse(res.json.to);
    expect(to).toBeGreaterThanOrEqual(before);
    expect(to - Date.parse(res.json.from)).toBe(30 * 86_400_000);
    for (const row of res.json.data) expect(row.day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const days = res.json.data.map((r: { day: string }) => r.day);
    expect(days).toEqual([...days].sort());
    for (const day of days) expect(day >= firstDay && day <= lastDay, day).toBe(true);
    expect(res.json.totals).toMatchObject({ tasks: 3, completions: 2, credits: add(live.image, ...live.chat) });
  });

  it("a window holds what was settled within it, from inclusive and to exclusive", async () => {
    const past = await usage(t.api_key, "?from=2020-01-01&to=2020-02-01&group_by=model");
    expect(past.status).toBe(200);
    expect(past.json).toMatchObject({ from: "2020-01-01T00:00:00.000Z", to: "2020-02-01T00:00:00.000Z", data: [] });
    expect(past.json.totals).toMatchObject({ credits: "0", tasks: 0, completions: 0, input_tokens: 0 });
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const upTo = await usage(t.api_key, `?to=${tomorrow}`);
    expect(upTo.json.to).toBe(`${tomorrow}T00:00:00.000Z`);
    expect(upTo.json.totals.tasks).toBe(3);
    const fromNow = await usage(t.api_key, `?from=${encodeURIComponent(new Date().toISOString())}&to=${tomorrow}`);
    expect(fromNow.json.totals.tasks).toBe(0);
  });

  it("a test-mode key sees only test-mode usage, charged nothing; the live report leaves it out", async () => {
    const res = await usage(testKey, "?group_by=capability");
    expect(res.json.mode).toBe("test");
    expect(res.json.data.map((r: { capability: string }) => r.capability)).toEqual(["chat_completion", "text_to_image"]);
    expect(res.json.totals).toMatchObject({ credits: "0", tasks: 1, completions: 1, succeeded: 2 });
    expect((await usage(t.api_key, "?group_by=capability")).json.totals).toMatchObject({ tasks: 3, completions: 2 });
  });

  it.each([
    ["reversed", "?from=2026-02-01&to=2026-01-01", "/from"],
    ["empty", "?from=2026-01-01T00:00:00Z&to=2026-01-01", "/from"],
    ["malformed from", "?from=yesterday", "/from"],
    ["malformed to", "?from=2026-01-01&to=2026-01-01T25:00:00Z", "/to"],
    ["a day that does not exist", "?from=2025-02-30&to=2025-03-10", "/from"],
    ["longer than 366 days", "?from=2024-01-01&to=2025-01-02T00:00:01Z", "/from"],
    ["from in the future, to defaulted", `?from=${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}`, "/from"],
  ])("%s: 422 invalid_window", async (_name, query, param) => {
    const e = expectError(await usage(t.api_key, query), 422, "invalid_window", param);
    expect(e.retryable).toBe(false);
  });

  it("a window of exactly 366 days is accepted", async () => {
    const res = await usage(t.api_key, "?from=2024-01-01&to=2025-01-01");
    expect(res.status).toBe(200);
  });

  it("a bad group_by or an unknown parameter: 422 invalid_request", async () => {
    expectError(await usage(t.api_key, "?group_by=week"), 422, "invalid_request", "/group_by");
    expectError(await usage(t.api_key, "?since=2026-01-01"), 422, "invalid_request");
  });

  it("needs tasks:read", async () => {
    const chatOnly = await newTenant({ permissions: ["chat"] });
    const e = expectError(await usage(chatOnly.api_key), 403, "forbidden");
    expect(e.details.required_permission).toBe("tasks:read");
    expectError(await call("/v1/usage"), 401, "unauthorized");
  });
});

describe("the OpenAPI document", () => {
  it("describes getBalance and getUsage with their schemas", async () => {
    const doc = (await call("/openapi.json")).json;
    const balance = doc.paths["/v1/balance"].get;
    const usageOp = doc.paths["/v1/usage"].get;
    expect(balance).toMatchObject({ operationId: "getBalance", "x-lifecycle": "preview", security: [{ bearerAuth: [] }] });
    expect(usageOp).toMatchObject({ operationId: "getUsage", "x-lifecycle": "preview", security: [{ bearerAuth: [] }] });
    expect(usageOp.parameters.map((p: { name: string }) => p.name).sort()).toEqual(["from", "group_by", "to"]);
    for (const name of ["Balance", "UsageReport", "UsageReportRow", "UsageReportFigures"]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    // The task envelope's own Usage schema is still the envelope's.
    expect(doc.components.schemas.Usage.properties.lines).toBeDefined();
  });
});

describe("usage rows and the ledger", () => {
  const note = (over: Partial<UsageNote> = {}): UsageNote => ({
    mode: "live",
    kind: "task",
    capability: "text_to_image",
    model: "m",
    outcome: "succeeded",
    counted: true,
    counters: { image_count: 2 },
    ...over,
  });

  it("a settlement repeated writes no second row; sums of credits are exact at any size", async () => {
    const tenant = await newTenant({ credits: "999999999999999" });
    const account = env.ACCOUNTS.getByName(tenant.tenant_id);
    expect((await account.reserve("task_big:1", "123456789012345.123456789")).ok).toBe(true);
    await account.capture("task_big:1", "123456789012345.123456789", note());
    await account.capture("task_big:1", "123456789012345.123456789", note());
    expect((await account.reserve("task_small:1", "0.000000001")).ok).toBe(true);
    await account.capture("task_small:1", "5", note({ model: "n" }));
    await account.charge(
      "chat_a",
      "0.5",
      note({ kind: "completion", capability: "chat_completion", counters: { input_tokens: 7 } }),
    );
    await account.charge(
      "chat_a",
      "0.5",
      note({ kind: "completion", capability: "chat_completion", counters: { input_tokens: 7 } }),
    );
    await account.charge("chat_a_excess", "0.25", note({ kind: "completion", capability: "chat_completion", counted: false }));
    expect((await account.reserve("task_gone:1", "3")).ok).toBe(true);
    await account.release("task_gone:1", note({ outcome: "failed", counters: {} }));
    await account.release("task_gone:1", note({ outcome: "failed", counters: {} }));
    // A hold given back with no note (an admission that never committed) is not in the report.
    expect((await account.reserve("task_never:1", "1")).ok).toBe(true);
    await account.release("task_never:1");

    const res = await usage(tenant.api_key, "?group_by=capability");
    expect(res.json.data).toEqual([
      expect.objectContaining({ capability: "chat_completion", credits: "0.75", completions: 1, tasks: 0, input_tokens: 7 }),
      expect.objectContaining({
        capability: "text_to_image",
        credits: "123456789012345.12345679",
        tasks: 3,
        succeeded: 2,
        failed: 1,
        image_count: 4,
      }),
    ]);
    expect(res.json.totals.credits).toBe("123456789012345.87345679");
    const l = await expectLedgerBalanced(tenant.tenant_id);
    expect(l.totals.captured).toBe(res.json.totals.credits);
  });
});
