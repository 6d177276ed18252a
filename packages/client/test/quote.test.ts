/**
 * Quotes from the client: `quote()` asks POST /v1/quotes for a create's body, and `generate
 * --quote` prints the quote, asks before spending above --ask-above (refusing where nobody can
 * answer unless --yes), and creates under the quote.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli/main.js";
import { envelope, fakeFetch, json, type Seen, testClient } from "./fake-fetch.js";

const QUOTE = {
  object: "quote",
  quote_id: "quo_1",
  operation: "text_to_image",
  resolved_model: "flux-2-pro",
  credits: "3.15",
  lines: [{ meter: "image_count", quantity: "1", unit: "image", unit_credits: "3.15", credits: "3.15" }],
  expires_at: "2026-01-01T00:15:00Z",
  created_at: "2026-01-01T00:00:00Z",
};

describe("quote()", () => {
  it("sends the operation and the create's body, with no Idempotency-Key, and answers the quote", async () => {
    const { client, seen } = testClient({ "POST /v1/quotes": () => json(201, QUOTE) });
    const q = await client.quote("text_to_image", { prompt: "a fox", max_credits: "5" });
    expect(q.quote_id).toBe("quo_1");
    expect(q.lines[0]?.meter).toBe("image_count");
    expect(seen[0]?.url.href).toBe("https://api.example/v1/quotes");
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({
      operation: "text_to_image",
      request: { prompt: "a fox", max_credits: "5" },
    });
    expect(seen[0]?.headers.has("idempotency-key")).toBe(false);
  });
});

async function generate(argv: string[], confirm?: (q: string) => Promise<boolean>) {
  const fake = fakeFetch({
    "POST /v1/quotes": () => json(201, QUOTE),
    "POST /v1/images/generations": () => json(202, envelope("queued")),
  });
  let stdout = "";
  let stderr = "";
  const code = await runCli(["generate", "text_to_image", "--prompt", "a fox", "--no-wait", ...argv], {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { MEDIA_API_KEY: "sk_us_test_key", MEDIA_API_BASE_URL: "https://api.example" },
    fetch: fake.fetch,
    ...(confirm ? { confirm } : {}),
  });
  const creates = fake.seen.filter((s: Seen) => s.url.pathname === "/v1/images/generations");
  const quotes = fake.seen.filter((s: Seen) => s.url.pathname === "/v1/quotes");
  return { code, stdout, stderr, creates, quotes };
}

describe("generate --quote", () => {
  it("prints the quote and, with --yes, creates the task under it with the same body", async () => {
    const r = await generate(["--quote", "--yes"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("quo_1");
    expect(r.stdout).toContain("at most 3.15 credits");
    expect(r.stdout).toContain("image_count");
    expect(JSON.parse(r.quotes[0]?.body ?? "")).toEqual({ operation: "text_to_image", request: { prompt: "a fox" } });
    expect(r.creates).toHaveLength(1);
    expect(JSON.parse(r.creates[0]?.body ?? "")).toEqual({ prompt: "a fox", quote_id: "quo_1" });
  });

  it("refuses, creating nothing, above the threshold when there is no terminal to ask and no --yes", async () => {
    const r = await generate(["--quote"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--yes");
    expect(r.creates).toHaveLength(0);
  });

  it("asks above the threshold and creates only when agreed; at or below it, does not ask", async () => {
    const questions: string[] = [];
    const no = await generate(["--quote", "--ask-above", "1"], async (q) => {
      questions.push(q);
      return false;
    });
    expect(no.code).toBe(1);
    expect(no.creates).toHaveLength(0);
    expect(questions[0]).toContain("3.15 credits");
    const yes = await generate(["--quote", "--ask-above", "1"], async () => true);
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.creates).toHaveLength(1);
    const under = await generate(["--quote", "--ask-above", "3.15"], async () => {
      throw new Error("asked at the threshold");
    });
    expect(under.code, under.stderr).toBe(0);
    expect(under.creates).toHaveLength(1);
  });

  it("--ask-above takes a credit figure, and goes with --quote", async () => {
    expect((await generate(["--quote", "--ask-above", "lots"])).code).toBe(2);
    expect((await generate(["--yes"])).code).toBe(2);
  });

  it("sends --max_credits as the request's cap", async () => {
    const r = await generate(["--max_credits", "2.5"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.creates[0]?.body ?? "")).toEqual({ prompt: "a fox", max_credits: 2.5 });
    // Digits a number cannot hold exactly go as the string typed (the API takes either).
    const exact = await generate(["--max_credits", "12345678901234.123456789"]);
    expect(JSON.parse(exact.creates[0]?.body ?? "").max_credits).toBe("12345678901234.123456789");
  });
});
