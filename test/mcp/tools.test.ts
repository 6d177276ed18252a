/**
 * The tools end to end through the official client: a task made, waited for and fetched through
 * its resource links; cancel, list, the catalog, the balance; validation and idempotency; the
 * progress of a wait.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { probeMedia } from "../../src/media/probe";
import { call, newTenant, send, type TestTenant } from "../helpers/api";
import { expectLedgerBalanced, fastForward, getTask, newKey, waitFor } from "../helpers/tasks";
import { callError, callOk, connect, waitUntilDone } from "./helpers";

const IMAGE = { prompt: "a lighthouse on a cliff at dawn", canvas: { type: "preset", tier: "1K", aspect: "1:1" } };

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "5000" });
});

/** Fetches every resource link of a result: each answers its bytes without a key, as described. */
async function fetchOutputs(result: any, kind: "image" | "video" | "audio") {
  const links = (result.content as any[]).filter((c) => c.type === "resource_link");
  expect(links.length).toBeGreaterThan(0);
  for (const link of links) {
    expect(link.uri).toMatch(/^https:\/\/api\.test\/files\//);
    const res = await send(new Request(link.uri));
    expect(res.status, link.uri).toBe(200);
    expect(res.headers.get("Content-Type")).toBe(link.mimeType);
    expect(res.bytes.length).toBe(link.size);
    const probed = probeMedia(res.bytes, "/output");
    expect(probed.kind).toBe(kind);
    expect(probed.mime).toBe(link.mimeType);
  }
  return links;
}

describe("generation", () => {
  it("text_to_image answers the queued task; wait_for_task ends with resource links that fetch as the image", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const client = await connect(t.api_key, era);
      const created = await callOk(client, "text_to_image", IMAGE);
      const task = created.structuredContent;
      expect(task).toMatchObject({ object: "task", status: "queued", capability: "text_to_image" });
      expect(created.content[0].text).toContain(task.task_id);
      expect(created.content[0].text).toContain("wait_for_task");
      const done = await waitUntilDone(client, task.task_id);
      expect(done.structuredContent.status).toBe("succeeded");
      expect(done.content[0].text).toContain("succeeded with 1 output");
      const [link] = await fetchOutputs(done, "image");
      expect(link.name).toBe(`${task.task_id}-0`);
      // The same task through REST: the links are its signed URLs.
      const rest = await getTask(t, task.task_id);
      expect(rest.json.output.artifacts[0].signed_url).toBe(link.uri);
      // get_task answers the same, with fresh links.
      const read = await callOk(client, "get_task", { task_id: task.task_id });
      expect(read.structuredContent.task_id).toBe(task.task_id);
      await fetchOutputs(read, "image");
    }
    await expectLedgerBalanced(t.tenant_id);
  });

  it("text_to_video with a test-mode key: a video output, nothing charged", async () => {
    const test = await newTenant({ mode: "test" });
    const client = await connect(test.api_key);
    const created = await callOk(client, "text_to_video", { prompt: "waves rolling onto a beach" });
    expect(created.structuredContent.provider).toMatchObject({ mode: "test", simulated: true });
    const done = await waitUntilDone(client, created.structuredContent.task_id);
    expect(done.structuredContent.status).toBe("succeeded");
    expect(done.structuredContent.billing.net_charged_credits).toBe("0");
    await fetchOutputs(done, "video");
    const balance = await callOk(client, "get_balance");
    expect(balance.structuredContent).toMatchObject({ mode: "test", reserved_credits: "0" });
  });

  it("an understanding task's answer is text in the result", async () => {
    const client = await connect(t.api_key);
    const created = await callOk(client, "video_prompt_enhance", { prompt: "a cat on a skateboard" });
    const done = await waitUntilDone(client, created.structuredContent.task_id);
    expect(done.structuredContent.status).toBe("succeeded");
    const texts = (done.content as any[]).filter((c) => c.type === "text").map((c) => c.text);
    expect(texts).toContain(done.structuredContent.output.text);
  });
});

describe("idempotency_key", () => {
  it("the same key and arguments return the same task; without a key every call is a new task", async () => {
    const client = await connect(t.api_key);
    const key = newKey();
    const first = await callOk(client, "text_to_image", { ...IMAGE, idempotency_key: key });
    const again = await callOk(client, "text_to_image", { ...IMAGE, idempotency_key: key });
    expect(again.structuredContent.task_id).toBe(first.structuredContent.task_id);
    // The REST Idempotency-Key is the same key space: the same body there is the same task.
    const rest = await call("/v1/images/generations", { key: t.api_key, body: IMAGE, headers: { "Idempotency-Key": key } });
    expect(rest.json.task_id).toBe(first.structuredContent.task_id);
    const a = await callOk(client, "text_to_image", IMAGE);
    const b = await callOk(client, "text_to_image", IMAGE);
    expect(a.structuredContent.task_id).not.toBe(b.structuredContent.task_id);
    const conflict = await callError(client, "text_to_image", { ...IMAGE, prompt: "another", idempotency_key: key });
    expect(conflict).toMatchObject({ code: "idempotency_conflict", jsonrpc_code: -32602 });
  });
});

describe("validation", () => {
  it("an invalid argument is a tool error: invalid_request naming the field, with jsonrpc_code", async () => {
    const client = await connect(t.api_key);
    const count = await callError(client, "text_to_image", { ...IMAGE, count: 9 });
    expect(count).toMatchObject({
      code: "invalid_request",
      type: "invalid_request_error",
      param: "/count",
      retryable: false,
      jsonrpc_code: -32602,
    });
    expect(count.details.errors[0].loc).toEqual(["body", "count"]);
    expect((await callError(client, "text_to_image", {})).param).toBe("/prompt");
    expect((await callError(client, "text_to_image", { ...IMAGE, size: "1024x1024" })).param).toBe("/size");
    expect((await callError(client, "text_to_image", { ...IMAGE, idempotency_key: "" })).param).toBe("/idempotency_key");
    expect((await callError(client, "wait_for_task", { task_id: "task_x", timeout_seconds: 31 })).param).toBe("/timeout_seconds");
    expect((await callError(client, "list_tasks", { status: "done" })).param).toBe("/status");
    expect((await callError(client, "list_voices", { category: "robot" })).param).toBe("/category");
  });

  it("a refusal at admission is the REST route's error", async () => {
    const client = await connect(t.api_key);
    const model = await callError(client, "text_to_image", { ...IMAGE, model: "no-such-model" });
    expect(model).toMatchObject({ code: "unsupported_model", jsonrpc_code: -32602 });
    const poor = await newTenant({ credits: "0.01" });
    const broke = await callError(await connect(poor.api_key), "text_to_image", IMAGE);
    expect(broke).toMatchObject({ code: "insufficient_balance", type: "billing_error", jsonrpc_code: -32602 });
  });

  it("another tenant's task, or one that does not exist, is task_not_found", async () => {
    const client = await connect(t.api_key);
    const created = await callOk(client, "text_to_image", IMAGE);
    const other = await connect((await newTenant()).api_key);
    for (const id of [created.structuredContent.task_id, `task_${"0".repeat(64)}`, "nope"]) {
      expect(await callError(other, "get_task", { task_id: id })).toMatchObject({ code: "task_not_found", jsonrpc_code: -32602 });
      expect((await callError(other, "wait_for_task", { task_id: id, timeout_seconds: 0 })).code).toBe("task_not_found");
    }
    expect((await callError(other, "cancel_task", { task_id: created.structuredContent.task_id })).code).toBe("task_not_found");
  });
});

describe("task tools", () => {
  it("cancel_task cancels a queued task; a task that cannot be stopped is a conflict", async () => {
    const client = await connect(t.api_key);
    const queued = await callOk(client, "text_to_image", { ...IMAGE, metadata: { sandbox_fault: "stay_queued" } });
    const canceled = await callOk(client, "cancel_task", {
      task_id: queued.structuredContent.task_id,
      reason: "changed my mind",
    });
    expect(canceled.structuredContent.status).toBe("canceled");
    expect(canceled.content[0].text).toContain("was canceled");

    const stuck = await callOk(client, "text_to_image", { ...IMAGE, metadata: { sandbox_fault: "uncancelable,hang" } });
    await waitFor(t, stuck.structuredContent.task_id, (x) => x.status === "running");
    const conflict = await callError(client, "cancel_task", { task_id: stuck.structuredContent.task_id });
    expect(conflict).toMatchObject({ code: "conflict", jsonrpc_code: -32602, details: { action: "keep_polling" } });
  });

  it("list_tasks lists the caller's tasks newest first, with paging", async () => {
    const own = await newTenant();
    const client = await connect(own.api_key);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await callOk(client, "text_to_image", IMAGE)).structuredContent.task_id);
    const page = await callOk(client, "list_tasks", { limit: 2 });
    expect(page.structuredContent.data.map((x: any) => x.task_id)).toEqual([ids[2], ids[1]]);
    expect(page.structuredContent.has_more).toBe(true);
    const next = await callOk(client, "list_tasks", { limit: 2, cursor: page.structuredContent.next_cursor });
    expect(next.structuredContent.data.map((x: any) => x.task_id)).toEqual([ids[0]]);
    expect(page.content[0].text).toContain(ids[2]);
  });

  it("wait_for_task reports progress while it waits, and answers the task once it ends", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const client = await connect(t.api_key, era);
      const created = await callOk(client, "text_to_image", { ...IMAGE, metadata: { sandbox_fault: "hang" } });
      const id = created.structuredContent.task_id;
      await waitFor(t, id, (x) => x.status === "running");
      const notes: { progress: number; total?: number; message?: string }[] = [];
      const waiting = client.callTool(
        { name: "wait_for_task", arguments: { task_id: id, timeout_seconds: 30 } },
        { onprogress: (p) => notes.push(p) },
      );
      for (let i = 0; i < 500 && notes.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(notes.length, era).toBeGreaterThan(0);
      expect(notes[0]?.message).toMatch(/^running: /);
      await fastForward(id, (rec) => {
        rec.metadata.sandbox_fault = "";
      });
      const done = (await waiting) as any;
      expect(done.structuredContent.status).toBe("succeeded");
      expect(notes.at(-1)).toMatchObject({ progress: 100, total: 100 });
      for (let i = 1; i < notes.length; i++) expect(notes[i]!.progress).toBeGreaterThan(notes[i - 1]!.progress);
    }
  });

  it("wait_for_task returns the task as it is when the time is up", async () => {
    const client = await connect(t.api_key);
    const created = await callOk(client, "text_to_image", { ...IMAGE, metadata: { sandbox_fault: "stay_queued" } });
    const waited = await callOk(client, "wait_for_task", { task_id: created.structuredContent.task_id, timeout_seconds: 1 });
    expect(waited.structuredContent.status).toBe("queued");
    expect(waited.content[0].text).toContain("is queued");
  });
});

describe("catalog and balance", () => {
  it("list_models, get_model and list_voices answer as the REST routes do", async () => {
    const client = await connect(t.api_key);
    const all = await callOk(client, "list_models");
    const rest = await call("/v1/models", { key: t.api_key });
    expect(all.structuredContent).toEqual(rest.json);
    const images = await callOk(client, "list_models", { capability: "text_to_image" });
    expect(images.structuredContent.data.length).toBeGreaterThan(0);
    expect(images.structuredContent.data.every((m: any) => m.capabilities.includes("text_to_image"))).toBe(true);

    const id = images.structuredContent.data[0].id;
    const detail = await callOk(client, "get_model", { model: id });
    expect(detail.structuredContent).toEqual((await call(`/v1/catalog/models/${id}`, { key: t.api_key })).json);
    expect(await callError(client, "get_model", { model: "no-such-model" })).toMatchObject({
      code: "not_found",
      jsonrpc_code: -32602,
    });

    const voices = await callOk(client, "list_voices", { language: "en" });
    expect(voices.structuredContent).toEqual((await call("/v1/voices?language=en", { key: t.api_key })).json);
    expect(voices.structuredContent.data.length).toBeGreaterThan(0);
  });

  it("get_balance is the REST balance", async () => {
    const own = await newTenant({ credits: "250" });
    const client = await connect(own.api_key);
    const balance = await callOk(client, "get_balance");
    const rest = await call("/v1/balance", { key: own.api_key });
    expect({ ...balance.structuredContent, as_of: "" }).toEqual({ ...rest.json, as_of: "" });
    expect(balance.structuredContent.available_credits).toBe("250");
    expect(balance.content[0].text).toContain("250 credits available");
  });
});
