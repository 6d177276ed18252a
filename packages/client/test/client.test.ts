import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CREATE_METHODS, MediaClient, OTHER_METHODS } from "../src/client.js";
import { MediaApiError, MediaConnectionError } from "../src/errors.js";
import { OPERATIONS, type OperationId } from "../src/generated/operations.js";
import { parseRetryAfter } from "../src/retry.js";
import { VERSION } from "../src/version.js";
import { apiError, envelope, json, testClient } from "./fake-fetch.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("calls", () => {
  it("sends the key, a JSON body and a fresh Idempotency-Key on each create, under the base URL without its /v1", async () => {
    const { client, seen } = testClient({ "POST /v1/images/generations": () => json(202, envelope("queued")) });
    const task = await client.images.generate({ prompt: "a fox" } as never);
    await client.images.generate({ prompt: "a fox" } as never);
    expect(task.task_id).toBe("task_1");
    expect(seen[0]?.url.href).toBe("https://api.example/v1/images/generations");
    expect(seen[0]?.headers.get("authorization")).toBe("Bearer sk_us_test_key");
    expect(seen[0]?.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({ prompt: "a fox" });
    const keys = seen.map((s) => s.headers.get("idempotency-key"));
    expect(keys[0]).toMatch(UUID);
    expect(keys[1]).toMatch(UUID);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it("uses the Idempotency-Key given, and sends none where the operation takes none", async () => {
    const { client, seen } = testClient({
      "POST /v1/videos/extend": () => json(202, envelope("queued")),
      "GET /v1/tasks/task_1": () => json(200, envelope("running")),
    });
    await client.videos.extend({ video: { type: "url", url: "https://x/v.mp4" } } as never, { idempotencyKey: "mine-1" });
    await client.tasks.get("task_1");
    expect(seen[0]?.headers.get("idempotency-key")).toBe("mine-1");
    expect(seen[1]?.headers.has("idempotency-key")).toBe(false);
  });

  it("fills path parameters and drops empty query values", async () => {
    const { client, seen } = testClient({ "GET /v1/voices": () => json(200, { object: "list", data: [] }) });
    await client.voices.list({ language: "en", gender: undefined });
    expect(seen[0]?.url.search).toBe("?language=en");
  });
});

describe("retries", () => {
  it("honours Retry-After in seconds and sends the same Idempotency-Key on every attempt", async () => {
    const { client, seen, waits } = testClient({
      "POST /v1/audio/speech": [
        () => apiError(429, "rate_limited", true, {}, { "Retry-After": "3" }),
        () => apiError(503, "model_unavailable", true, {}, { "Retry-After": "1" }),
        () => json(202, envelope("queued")),
      ],
    });
    const task = await client.audio.speech({ voice: "v", input: "hi" } as never);
    expect(task.status).toBe("queued");
    expect(waits).toEqual([3000, 1000]);
    const keys = new Set(seen.map((s) => s.headers.get("idempotency-key")));
    expect(seen).toHaveLength(3);
    expect(keys.size).toBe(1);
  });

  it("reads Retry-After as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfter("2", now)).toBe(2000);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it("backs off exponentially without Retry-After, and stops after maxRetries", async () => {
    const { client, seen, waits } = testClient(
      { "GET /v1/models": () => apiError(500, "internal_error", true) },
      { maxRetries: 2 },
    );
    const err = await client.models.list().catch((e) => e);
    expect(err).toBeInstanceOf(MediaApiError);
    expect(err.code).toBe("internal_error");
    expect(seen).toHaveLength(3);
    expect(waits).toEqual([500, 1000]);
  });

  it("does not wait for a Retry-After longer than the bound: the error goes to the caller with it", async () => {
    const { client, seen } = testClient({
      "GET /v1/balance": () => apiError(429, "rate_limited", true, {}, { "Retry-After": "7200" }),
    });
    const err = await client.balance.get().catch((e) => e);
    expect(seen).toHaveLength(1);
    expect(err.retryAfterMs).toBe(7_200_000);
  });

  it("never repeats a non-retryable error", async () => {
    const { client, seen } = testClient({
      "POST /v1/images/generations": () =>
        apiError(422, "unsupported_option", false, { param: "/count", details: { candidate_failures: [] } }),
    });
    const err = (await client.images.generate({ prompt: "x", count: 9 } as never).catch((e) => e)) as MediaApiError;
    expect(seen).toHaveLength(1);
    expect(err).toBeInstanceOf(MediaApiError);
    expect(err.status).toBe(422);
    expect(err.code).toBe("unsupported_option");
    expect(err.param).toBe("/count");
    expect(err.details).toEqual({ candidate_failures: [] });
    expect(err.requestId).toBe("req_1");
    expect(err.error.type).toBe("api_error");
    expect(err.retryable).toBe(false);
  });

  it("describes a response that is not the API's envelope, and retries a 502 page", async () => {
    const { client, seen } = testClient({
      "GET /v1/models": [
        () => new Response("<html>Bad gateway</html>", { status: 502 }),
        () => json(200, { object: "list", data: [] }),
      ],
    });
    await expect(client.models.list()).resolves.toEqual({ object: "list", data: [] });
    expect(seen).toHaveLength(2);
    const { client: c2 } = testClient({ "GET /v1/models": () => new Response("nope", { status: 400 }) });
    const err = await c2.models.list().catch((e) => e);
    expect(err.code).toBe("http_400");
    expect(err.message).toContain("nope");
  });

  it("retries a connection failure for reads and creates (same key), but not for a chat completion", async () => {
    const { client, seen } = testClient({
      "GET /v1/tasks/task_1": ["network-error", () => json(200, envelope("running"))],
      "POST /v1/videos/text-to-video": ["network-error", "network-error", () => json(202, envelope("queued"))],
      "POST /v1/chat/completions": "network-error",
    });
    await expect(client.tasks.get("task_1")).resolves.toMatchObject({ status: "running" });
    await expect(client.videos.generate({ prompt: "x" } as never)).resolves.toMatchObject({ status: "queued" });
    const creates = seen.filter((s) => s.url.pathname === "/v1/videos/text-to-video");
    expect(new Set(creates.map((s) => s.headers.get("idempotency-key"))).size).toBe(1);
    expect(creates).toHaveLength(3);
    const err = await client.chat.completions.create({ messages: [{ role: "user", content: "hi" }] } as never).catch((e) => e);
    expect(err).toBeInstanceOf(MediaConnectionError);
    expect(seen.filter((s) => s.url.pathname === "/v1/chat/completions")).toHaveLength(1);
  });

  it("retries 409 request_in_progress with the same key", async () => {
    const { client, seen } = testClient({
      "POST /v1/music/text-to-music": [() => apiError(409, "request_in_progress", true), () => json(202, envelope("queued"))],
    });
    await client.music.generate({ prompt: "jazz" } as never, { idempotencyKey: "k-1" });
    expect(seen.map((s) => s.headers.get("idempotency-key"))).toEqual(["k-1", "k-1"]);
  });

  it("times out an attempt that gets no answer, then tries again", async () => {
    const { client, seen } = testClient(
      { "GET /v1/models": ["hang", () => json(200, { object: "list", data: [] })] },
      { timeoutMs: 20 },
    );
    await expect(client.models.list()).resolves.toEqual({ object: "list", data: [] });
    expect(seen).toHaveLength(2);
  });

  it("stops at once when the caller aborts", async () => {
    const { client, seen } = testClient({ "GET /v1/models": "hang" });
    const abort = new AbortController();
    const pending = client.models.list({ signal: abort.signal });
    abort.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");
    expect(seen).toHaveLength(1);
  });
});

describe("the operation table", () => {
  it("has one client method for every operation an API key can call", () => {
    const mapped = new Set<string>([
      ...Object.values(CREATE_METHODS).flatMap((g) => Object.values(g) as string[]),
      ...Object.values(OTHER_METHODS),
    ]);
    const keyOperations = (Object.keys(OPERATIONS) as OperationId[]).filter((id) => OPERATIONS[id].auth !== "admin");
    expect(keyOperations.filter((id) => !mapped.has(id))).toEqual([]);
    const client = new MediaClient({ apiKey: "k" }) as unknown as Record<string, any>;
    for (const path of Object.keys(OTHER_METHODS)) {
      const fn = path.split(".").reduce((o, k) => o?.[k], client);
      expect(typeof fn, path).toBe("function");
    }
    for (const [group, methods] of Object.entries(CREATE_METHODS)) {
      for (const [name, id] of Object.entries(methods)) {
        expect(typeof client[group]?.[name], `${group}.${name}`).toBe("function");
        expect((OPERATIONS[id as OperationId] as { capability: string | null }).capability).toBeTruthy();
      }
    }
  });

  it("sends its package version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url).pathname, "utf8"));
    expect(VERSION).toBe(pkg.version);
  });
});
