/**
 * The request log and /mcp: list_requests and get_request answer what GET /v1/requests answers
 * (`logs:read`, an OAuth grant only when it asked for the scope), and every tool call of an
 * authenticated client is an entry of the log, door "mcp", route `MCP <tool>`, with the status a
 * REST client would have had and the task, model and charge of what it created.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { freshEmail, inviteAndSignIn } from "../helpers/console";
import { createImage, waitFor } from "../helpers/tasks";
import { ownerSignedIn, tokensFor } from "../oauth/flow";
import { callError, callOk, connect, waitUntilDone } from "./helpers";

const WITH_LOGS = ["catalog:read", "tasks:read", "tasks:write", "chat", "logs:read"];

/** The log is written just after each answer: poll the REST log until `ready` holds. */
async function restLog(t: TestTenant, query: string, ready: (rows: any[]) => boolean): Promise<any[]> {
  for (let i = 0; i < 100; i++) {
    const res = await call(`/v1/requests${query}`, { key: t.api_key });
    expect(res.status, res.text).toBe(200);
    if (ready(res.json.data)) return res.json.data;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the log did not show what was expected for ${query}`);
}

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "1000", permissions: WITH_LOGS });
});

describe("list_requests and get_request", () => {
  it("answer the REST log's page and detail, attempts included", async () => {
    const created = await createImage(t, { model: "flux-2-pro", prompt: "a harbour at dusk" });
    expect(created.status, created.text).toBe(202);
    const requestId = created.headers.get("X-Request-Id") as string;
    const taskId = created.json.task_id;
    await waitFor(t, taskId);
    await restLog(t, `?task_id=${taskId}`, (rows) => rows[0]?.credits?.settled === true);

    const client = await connect(t.api_key);
    const listed = await callOk(client, "list_requests", { task_id: taskId });
    const rest = await call(`/v1/requests?task_id=${taskId}`, { key: t.api_key });
    expect(listed.structuredContent).toEqual(rest.json);
    expect(listed.structuredContent.data[0]).toMatchObject({ request_id: requestId, door: "rest", task_id: taskId });
    expect(listed.content[0].text).toContain(requestId);

    const got = await callOk(client, "get_request", { request_id: requestId });
    const restDetail = await call(`/v1/requests/${requestId}`, { key: t.api_key });
    expect(got.structuredContent).toEqual(restDetail.json);
    expect(got.structuredContent.attempts).toHaveLength(1);
    expect(got.structuredContent.attempts[0]).toMatchObject({ outcome: "succeeded", key: "platform" });
    expect(got.content[0].text).toContain("1 provider attempt:");
  });

  it("filter and page as the REST query does, and refuse a bad filter with its param", async () => {
    const client = await connect(t.api_key);
    const first = await callOk(client, "list_requests", { limit: 1, status: "2xx" });
    expect(first.structuredContent.data).toHaveLength(1);
    expect(first.structuredContent.data[0].status).toBeLessThan(300);
    if (first.structuredContent.has_more) {
      const next = await callOk(client, "list_requests", {
        limit: 1,
        status: "2xx",
        cursor: first.structuredContent.next_cursor,
      });
      expect(next.structuredContent.data[0].request_id).not.toBe(first.structuredContent.data[0].request_id);
    }
    expect(await callError(client, "list_requests", { status: "6xx" })).toMatchObject({
      code: "invalid_request",
      param: "/status",
    });
    expect(await callError(client, "list_requests", { limit: 101 })).toMatchObject({ code: "invalid_request", param: "/limit" });
    expect(await callError(client, "list_requests", { cursor: "not-a-cursor" })).toMatchObject({ code: "invalid_cursor" });
  });

  it("need logs:read; another tenant's request is not found", async () => {
    const plain = await newTenant();
    const client = await connect(plain.api_key);
    expect(await callError(client, "list_requests")).toMatchObject({
      code: "insufficient_scope",
      details: { missing_scopes: ["logs:read"] },
    });
    const other = await newTenant({ permissions: WITH_LOGS });
    const created = await createImage(other, { prompt: "someone else's" });
    const theirs = created.headers.get("X-Request-Id") as string;
    await restLog(other, "", (rows) => rows.some((r) => r.request_id === theirs));
    expect(await callError(await connect(t.api_key), "get_request", { request_id: theirs })).toMatchObject({
      code: "not_found",
    });
  });

  it("a key holding logs:read alone may open /mcp and read the log", async () => {
    const reader = await newTenant({ permissions: ["logs:read"] });
    const client = await connect(reader.api_key);
    const page = await callOk(client, "list_requests");
    expect(page.structuredContent).toMatchObject({ object: "list" });
  });
});

describe("tool calls in the log", () => {
  it("a task-creating tool call is an entry of door mcp, with its task, model, hold and the key", async () => {
    const client = await connect(t.api_key);
    const created = await callOk(client, "text_to_image", { model: "flux-2-pro", prompt: "a windmill" });
    const taskId = created.structuredContent.task_id;
    const [entry] = await restLog(t, `?task_id=${taskId}`, (rows) => rows.length === 1);
    expect(entry).toMatchObject({
      object: "request",
      method: "POST",
      route: "MCP text_to_image",
      status: 200,
      error_code: null,
      key_id: t.key_id,
      mode: "live",
      door: "mcp",
      model: "flux-2-pro",
      task_id: taskId,
      replay_of: null,
    });
    expect(entry.request_id).toMatch(/\S/);
    // The hold until the ledger settles the task (the sandbox may have finished it already).
    if (!entry.credits.settled)
      expect(entry.credits).toEqual({ charged: "0", held: created.structuredContent.billing.charged_credits, settled: false });

    // The task's attempts follow it, as for a REST create.
    await waitUntilDone(client, taskId);
    // The ledger tells the log what it settled about a second after.
    let detail = await callOk(client, "get_request", { request_id: entry.request_id });
    for (let i = 0; i < 250 && !detail.structuredContent.credits?.settled; i++) {
      await new Promise((r) => setTimeout(r, 20));
      detail = await callOk(client, "get_request", { request_id: entry.request_id });
    }
    expect(detail.structuredContent).toMatchObject({ door: "mcp", credits: { settled: true } });
    expect(detail.structuredContent.attempts[0]).toMatchObject({ outcome: "succeeded" });
  });

  it("a tool error is logged with the REST status of its code, under the request id it names", async () => {
    const client = await connect(t.api_key);
    const error = await callError(client, "get_task", { task_id: `task_${"0".repeat(64)}` });
    expect(error.code).toBe("task_not_found");
    const [entry] = await restLog(t, "?route=MCP%20get_task&status=404", (rows) =>
      rows.some((r) => r.request_id === error.request_id),
    );
    expect(entry).toMatchObject({
      request_id: error.request_id,
      route: "MCP get_task",
      method: "POST",
      status: 404,
      error_code: "task_not_found",
      door: "mcp",
      credits: null,
    });
    const invalid = await callError(client, "list_tasks", { limit: 0 });
    const rows = await restLog(t, "?route=MCP%20list_tasks", (r) => r.some((x) => x.request_id === invalid.request_id));
    expect(rows.find((r) => r.request_id === invalid.request_id)).toMatchObject({ status: 422, error_code: "invalid_request" });
  });

  it("a read-only tool call is logged too, with status 200 and no task", async () => {
    const client = await connect(t.api_key);
    await callOk(client, "get_balance");
    const rows = await restLog(t, "?route=MCP%20get_balance", (r) => r.length > 0);
    expect(rows[0]).toMatchObject({ door: "mcp", status: 200, task_id: null, model: null, credits: null });
  });
});

describe("replaying a tool call", () => {
  it("a media tool call runs again through REST as the create it stands for; a read-only one cannot be", async () => {
    const client = await connect(t.api_key);
    const created = await callOk(client, "text_to_image", { prompt: "a red kite", idempotency_key: `mcp-kite-${Date.now()}` });
    const taskId = created.structuredContent.task_id;
    const [logged] = await restLog(t, `?task_id=${taskId}`, (rows) => rows.length === 1);
    const again = await call(`/v1/requests/${logged.request_id}/replay`, {
      key: t.api_key,
      body: {},
      headers: { "Idempotency-Key": `replay-kite-${Date.now()}` },
    });
    expect(again.status, again.text).toBe(202);
    expect(again.json.task_id).not.toBe(taskId);
    expect(again.json.input.prompt).toBe("a red kite");
    const newId = again.headers.get("X-Request-Id") as string;
    const rows = await restLog(t, `?task_id=${again.json.task_id}`, (r) => r.length === 1);
    expect(rows[0]).toMatchObject({
      request_id: newId,
      door: "rest",
      route: "POST /v1/images/generations",
      replay_of: logged.request_id,
    });

    await callOk(client, "get_balance");
    const [read] = await restLog(t, "?route=MCP%20get_balance", (r) => r.length > 0);
    const refused = await call(`/v1/requests/${read.request_id}/replay`, {
      key: t.api_key,
      body: {},
      headers: { "Idempotency-Key": `replay-balance-${Date.now()}` },
    });
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatchObject({ code: "invalid_request", param: "request_id" });
  });
});

describe("through OAuth", () => {
  it("a grant reads the log only when it asked for logs:read; its entries name the grant", async () => {
    const { browser } = await ownerSignedIn();
    const plain = await tokensFor(browser);
    expect(plain.scope).toBe("catalog:read tasks:read tasks:write chat");
    expect(await callError(await connect(plain.access_token), "list_requests")).toMatchObject({
      code: "insufficient_scope",
      details: { missing_scopes: ["logs:read"] },
    });

    const reader = await tokensFor(browser, undefined, { scope: "catalog:read logs:read" });
    expect(reader.scope).toBe("catalog:read logs:read");
    const client = await connect(reader.access_token);
    await callOk(client, "list_models");
    for (let i = 0; i < 100; i++) {
      const page = (await callOk(client, "list_requests", { route: "MCP list_models" })).structuredContent;
      if (page.data.length > 0) {
        expect(page.data[0]).toMatchObject({ door: "mcp", status: 200, mode: "live" });
        expect(page.data[0].key_id).toMatch(/^grt_/);
        return;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error("the grant's list_models call was not logged");
  });

  it("a viewer may grant logs:read (the role reads the log in the console)", async () => {
    const { browser } = await ownerSignedIn();
    const viewer = await inviteAndSignIn(browser, freshEmail("log-viewer"), "viewer");
    const tokens = await tokensFor(viewer, undefined, { scope: "tasks:read tasks:write logs:read" });
    expect(tokens.scope).toBe("tasks:read logs:read");
    await callOk(await connect(tokens.access_token), "list_requests");
  });
});
