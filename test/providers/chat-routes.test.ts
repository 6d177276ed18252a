/**
 * Chat goes through the same routing as media: a live key's request for a GPT card reaches the
 * configured OpenAI upstream (its wire format, its key), a test key's never leaves the sandbox,
 * and a route that is down before its first byte hands the request to the card's next route.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error";
import { type ChatRoute, completeOnRoutes } from "../../src/providers/chat";
import { call, newTenant } from "../helpers/api";
import { ledger } from "../helpers/tasks";
import { count, fakeRequests, newTag } from "./harness";

const ask = (tag: string, extra = "") => ({
  model: "gpt-6-luna",
  messages: [{ role: "user", content: `Describe a lighthouse #tag:${tag} ${extra}`.trim() }],
});

describe("chat routes", () => {
  it("sends a live key's GPT request to OpenAI with the upstream model id and this deployment's key", async () => {
    const t = await newTenant({ credits: "100" });
    const tag = newTag("chat-live");
    const res = await call("/v1/chat/completions", { key: t.api_key, body: ask(tag) });
    expect(res.status, res.text).toBe(200);
    expect(res.json.object).toBe("chat.completion");
    expect(res.json.model).toBe("gpt-6-luna");
    expect(res.json.choices[0].message.content).toContain("lighthouse");
    const [sent] = await fakeRequests("openai", tag);
    expect(sent?.body.model).toBe("gpt-6-luna");
    expect(sent?.authorization).toBe("Bearer fake-openai-key-0123456789abcdef");
    expect(Number(res.headers.get("X-Credits-Charged"))).toBeGreaterThan(0);
  });

  it("answers a test key from the sandbox: OpenAI is never called, nothing is charged", async () => {
    const t = await newTenant({ mode: "test", credits: "3" });
    const tag = newTag("chat-test");
    const res = await call("/v1/chat/completions", { key: t.api_key, body: ask(tag) });
    expect(res.status).toBe(200);
    expect(count(await fakeRequests("openai", tag), "submit")).toBe(0);
    expect(res.headers.get("X-Credits-Charged")).toBe("0");
    expect(((await ledger(t.tenant_id)) as any).balance).toBe("3");
  });

  it("keeps the upstream's failure when the card's only route is down (503, retryable), charging nothing", async () => {
    const t = await newTenant({ credits: "100" });
    const tag = newTag("chat-down");
    const res = await call("/v1/chat/completions", { key: t.api_key, body: ask(tag, "#fake:down") });
    expect(res.status).toBe(503);
    expect(res.json.error).toMatchObject({ code: "model_unavailable", retryable: true });
    // The hold is given back just after the answer.
    await expect
      .poll(async () => ((await ledger(t.tenant_id)) as any).totals, { timeout: 5_000, interval: 50 })
      .toMatchObject({ captured: "0", reserved: "0" });
  });
});

describe("chat failover before the first byte", () => {
  const route = (provider: string, answer: () => Promise<any>): ChatRoute => ({
    provider,
    upstreamModel: `${provider}-model`,
    upstream: { name: provider, complete: answer },
  });
  const request = (r: ChatRoute) => ({
    body: { model: r.upstreamModel },
    stream: false,
    maxCompletionTokens: 10,
    requestId: "req_x",
  });

  it("moves to the next route on a retryable failure, and stays on a final one", async () => {
    const tried: string[] = [];
    const down = (name: string, code: "model_unavailable" | "invalid_request") =>
      route(name, async () => {
        tried.push(name);
        throw new ApiError(code, `${name} failed`);
      });
    const ok = route("b", async () => {
      tried.push("b");
      return { stream: false, completion: { id: "x" } };
    });
    const served = await completeOnRoutes([down("a", "model_unavailable"), ok], request, new AbortController().signal);
    expect(served.route.provider).toBe("b");
    expect(tried).toEqual(["a", "b"]);
    tried.length = 0;
    await expect(completeOnRoutes([down("a", "invalid_request"), ok], request, new AbortController().signal)).rejects.toThrow(
      "a failed",
    );
    expect(tried).toEqual(["a"]);
  });
});
