/**
 * `media-api requests list|show|replay` on a fake fetch: the filters reach the query (`--task-id`
 * as `task_id`), `show` draws the attempts as a time line from the request's arrival, `replay`
 * sends the model and the Idempotency-Key given, and `--json` prints what the API answered.
 */
import { describe, expect, it } from "vitest";
import { envelope, json, runCliOn } from "./fake-fetch.js";
import { entry } from "./request-fixtures.js";

const run = runCliOn;

const DETAIL = {
  ...entry("req_a", { credits: { charged: "4", settled: false } }),
  attempts: [
    {
      provider: "fal",
      upstream_model: "flux-pro",
      key: "platform",
      started_at: "2026-11-26T10:00:00.020Z",
      duration_ms: 300,
      outcome: "refused",
      http_status: 429,
      error: { code: "rate_limited", message: "slow down" },
    },
    {
      provider: "replicate",
      upstream_model: "flux-pro-r",
      key: "tenant",
      started_at: "2026-11-26T10:00:01.500Z",
      duration_ms: null,
      outcome: "accepted",
      http_status: 201,
      error: null,
    },
  ],
};

describe("media-api requests", () => {
  it("list sends every filter as the query and prints a table with the next page's command", async () => {
    const out = await run(
      ["requests", "list", "--status", "4xx", "--route", "POST /v1/images/generations", "--model", "flux-2-pro"].concat([
        "--task-id",
        "task_1",
        "--since",
        "2026-11-26T00:00:00Z",
        "--limit",
        "1",
      ]),
      {
        "GET /v1/requests": () =>
          json(200, {
            object: "list",
            data: [entry("req_a", { status: 422, error_code: "invalid_request", credits: null })],
            has_more: true,
            next_cursor: "cur_2",
          }),
      },
    );
    expect(out.code, out.stderr).toBe(0);
    const q = out.seen[0]?.url.searchParams;
    expect(Object.fromEntries(q ?? [])).toEqual({
      status: "4xx",
      route: "POST /v1/images/generations",
      model: "flux-2-pro",
      task_id: "task_1",
      since: "2026-11-26T00:00:00Z",
      limit: "1",
    });
    expect(out.stdout).toMatch(/req_a\s+2026-11-26T10:00:00.000Z\s+POST \/v1\/images\/generations\s+422\s+invalid_request/);
    expect(out.stdout).toContain("more: media-api requests list --cursor cur_2");
  });

  it("list --json prints the page as answered; an unknown option is a usage error", async () => {
    const page = { object: "list", data: [entry("req_a")], has_more: false, next_cursor: null };
    const out = await run(["requests", "list", "--json"], { "GET /v1/requests": () => json(200, page) });
    expect(JSON.parse(out.stdout)).toEqual(page);
    const bad = await run(["requests", "list", "--colour", "red"], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--colour");
    expect(bad.seen).toHaveLength(0);
  });

  it("show prints the entry, its hold, and each attempt at its offset from the request's arrival", async () => {
    const out = await run(["requests", "show", "req_a"], { "GET /v1/requests/req_a": () => json(200, DETAIL) });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain("route      POST /v1/images/generations  → 202");
    expect(out.stdout).toContain("model flux-2-pro  task task_1");
    expect(out.stdout).toContain("credits    4 held");
    const lines = out.stdout.split("\n");
    const first = lines.find((l) => l.includes("fal/flux-pro")) ?? "";
    const second = lines.find((l) => l.includes("replicate/flux-pro-r")) ?? "";
    expect(first).toMatch(/\+20 ms\s+fal\/flux-pro\s+platform key\s+refused\s+HTTP 429\s+300 ms\s+rate_limited: slow down/);
    expect(second).toMatch(/\+1\.5 s\s+replicate\/flux-pro-r\s+tenant key\s+accepted\s+HTTP 201\s+still out/);
    expect(lines.indexOf(first)).toBeLessThan(lines.indexOf(second));
  });

  it("show --json prints the detail as answered, and its bodies when kept", async () => {
    const withBodies = { ...DETAIL, request_body: '{"prompt":"x"}', response_body: '{"task_id":"task_1"}' };
    const raw = await run(["requests", "show", "req_a", "--json"], { "GET /v1/requests/req_a": () => json(200, withBodies) });
    expect(JSON.parse(raw.stdout)).toEqual(withBodies);
    const human = await run(["requests", "show", "req_a"], { "GET /v1/requests/req_a": () => json(200, withBodies) });
    expect(human.stdout).toContain('request body:\n{"prompt":"x"}');
    const missing = await run(["requests", "show"], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("request_id is missing");
  });

  it("replay sends the model and the Idempotency-Key, and prints the new task and how to follow it", async () => {
    const out = await run(["requests", "replay", "req_a", "--model", "gpt-image-2", "--idempotency-key", "again-1"], {
      "POST /v1/requests/req_a/replay": () =>
        json(202, envelope("queued", { task_id: "task_2", resolved_model: "gpt-image-2" }), { "X-Request-Id": "req_new" }),
    });
    expect(out.code, out.stderr).toBe(0);
    const sent = out.seen[0];
    expect(JSON.parse(sent?.body as string)).toEqual({ model: "gpt-image-2" });
    expect(sent?.headers.get("idempotency-key")).toBe("again-1");
    expect(out.stdout).toContain("task_2  queued  text_to_image on gpt-image-2  (request req_new, replay of req_a)");
    expect(out.stdout).toContain("media-api tasks wait task_2");
  });

  it("replay of a chat call prints the answer's text; a refusal exits 1 with its code", async () => {
    const completion = { object: "chat.completion", id: "c", model: "m", choices: [{ index: 0, message: { content: "hello" } }] };
    const chat = await run(["requests", "replay", "req_c"], { "POST /v1/requests/req_c/replay": () => json(200, completion) });
    expect(chat.stdout.split("\n")[0]).toBe("hello");
    expect(chat.seen[0]?.headers.get("idempotency-key")).toBeTruthy();
    const refused = await run(["requests", "replay", "req_x"], {
      "POST /v1/requests/req_x/replay": () =>
        json(400, {
          error: { code: "invalid_request", type: "invalid_request_error", message: "cannot be run again", retryable: false },
        }),
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("code: invalid_request");
  });
});
