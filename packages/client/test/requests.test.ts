/**
 * The request log from the client: `requests.list` sends the filters as the query, `listAll`
 * follows the cursor, `get` reads one entry, and `replay` sends the model and an Idempotency-Key
 * (the one given, else one made and kept across retries) and answers as the logged call does.
 */
import { describe, expect, it } from "vitest";
import { apiError, envelope, json, sse, testClient } from "./fake-fetch.js";
import { entry } from "./request-fixtures.js";

const page = (ids: string[], next: string | null) => ({
  object: "list",
  data: ids.map((id) => entry(id)),
  has_more: next !== null,
  next_cursor: next,
});

describe("client.requests", () => {
  it("list sends the filters as the query", async () => {
    const { client, seen } = testClient({ "GET /v1/requests": () => json(200, page(["req_a"], null)) });
    const got = await client.requests.list({ status: "4xx", route: "POST /v1/chat/completions", limit: 5 });
    expect(got.data[0]?.request_id).toBe("req_a");
    const q = seen[0]?.url.searchParams;
    expect(q?.get("status")).toBe("4xx");
    expect(q?.get("route")).toBe("POST /v1/chat/completions");
    expect(q?.get("limit")).toBe("5");
  });

  it("listAll follows next_cursor until the last page, keeping the filters", async () => {
    const { client, seen } = testClient({
      "GET /v1/requests": [() => json(200, page(["req_a", "req_b"], "c1")), () => json(200, page(["req_c"], null))],
    });
    const ids: string[] = [];
    for await (const e of client.requests.listAll({ model: "flux-2-pro" })) ids.push(e.request_id);
    expect(ids).toEqual(["req_a", "req_b", "req_c"]);
    expect(seen.map((s) => s.url.searchParams.get("cursor"))).toEqual([null, "c1"]);
    expect(seen.every((s) => s.url.searchParams.get("model") === "flux-2-pro")).toBe(true);
  });

  it("get reads one entry by id or by the entry itself", async () => {
    const detail = { ...entry("req_a"), attempts: [] };
    const { client, seen } = testClient({ "GET /v1/requests/req_a": () => json(200, detail) });
    expect(await client.requests.get("req_a")).toEqual(detail);
    await client.requests.get({ request_id: "req_a" });
    expect(seen).toHaveLength(2);
  });

  it("replay sends the model and the Idempotency-Key given, and answers the task with the new request id", async () => {
    const { client, seen } = testClient({
      "POST /v1/requests/req_a/replay": () => json(202, envelope("queued", { task_id: "task_2" }), { "X-Request-Id": "req_new" }),
    });
    const r = await client.requests.replay("req_a", { model: "gpt-image-2", idempotencyKey: "again-1" });
    expect(r).toMatchObject({ kind: "task", requestId: "req_new", task: { task_id: "task_2" } });
    expect(JSON.parse(seen[0]?.body as string)).toEqual({ model: "gpt-image-2" });
    expect(seen[0]?.headers.get("idempotency-key")).toBe("again-1");
  });

  it("replay makes one Idempotency-Key when none is given and keeps it on a retry", async () => {
    const { client, seen } = testClient({
      "POST /v1/requests/req_a/replay": [() => apiError(503, "upstream_unavailable", true), () => json(202, envelope("queued"))],
    });
    const r = await client.requests.replay({ request_id: "req_a" });
    expect(r.kind).toBe("task");
    expect(JSON.parse(seen[0]?.body as string)).toEqual({});
    const keys = seen.map((s) => s.headers.get("idempotency-key"));
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]);
  });

  it("replay of a chat call answers its completion, or its stream when it streamed", async () => {
    const completion = { object: "chat.completion", id: "c1", model: "m", choices: [] };
    const { client } = testClient({
      "POST /v1/requests/req_chat/replay": () => json(200, completion),
      "POST /v1/requests/req_stream/replay": () =>
        sse([
          'data: {"object":"chat.completion.chunk","id":"c2","model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}\n\n',
          "data: [DONE]\n\n",
        ]),
    });
    expect(await client.requests.replay("req_chat")).toMatchObject({ kind: "chat", completion });
    const streamed = await client.requests.replay("req_stream");
    expect(streamed.kind).toBe("chat_stream");
    const parts: string[] = [];
    if (streamed.kind === "chat_stream") for await (const c of streamed.stream) parts.push(c.choices[0]?.delta.content ?? "");
    expect(parts).toEqual(["hi"]);
  });

  it("a refusal is a MediaApiError", async () => {
    const { client } = testClient({ "POST /v1/requests/req_x/replay": () => apiError(404, "not_found", false) });
    await expect(client.requests.replay("req_x")).rejects.toMatchObject({ status: 404, code: "not_found" });
  });
});
