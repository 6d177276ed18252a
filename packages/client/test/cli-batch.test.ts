import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli/main.js";
import { fakeFetch, json } from "./fake-fetch.js";

const batch = (status: string, succeeded: number, extra: Record<string, unknown> = {}) => ({
  object: "batch",
  batch_id: "batch_1",
  operation: "text_to_image",
  status,
  counts: { total: 2, queued: 2 - succeeded, running: 0, succeeded, failed: 0, canceled: 0 },
  links: { self: "/v1/batches/batch_1", items: "/v1/batches/batch_1/items", cancel: "/v1/batches/batch_1/cancel" },
  ...extra,
});
const RESULTS = '{"custom_id":"a","status":"succeeded"}\n{"custom_id":"b","status":"succeeded"}\n';

describe("media-api batch run", () => {
  it("uploads the file as JSON lines, starts the batch, draws its progress and saves the results file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-batch-"));
    const file = join(dir, "items.jsonl");
    writeFileSync(file, '{"custom_id":"a","body":{"prompt":"x"}}\n{"custom_id":"b","body":{"prompt":"y"}}\n');
    const out = join(dir, "results.jsonl");
    const fake = fakeFetch({
      "POST /v1/uploads": () => json(201, { object: "artifact", artifact_id: "art_in", kind: "jsonl", lines: 2 }),
      "POST /v1/batches": () => json(202, batch("queued", 0)),
      "GET /v1/batches/batch_1": [
        () => json(200, batch("running", 1)),
        () => json(200, batch("completed", 2, { output_file_id: "art_out" })),
      ],
      "GET /v1/artifacts/art_out": () => new Response(RESULTS, { headers: { "Content-Type": "application/jsonl" } }),
    });
    let stdout = "";
    let stderr = "";
    const code = await runCli(["batch", "run", file, "--operation", "text_to_image", "--concurrency", "5", "--out", out], {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      env: { MEDIA_API_KEY: "sk_us_test_key", MEDIA_API_BASE_URL: "https://api.example" },
      fetch: fake.fetch,
    });
    expect(code, stderr).toBe(0);
    const upload = fake.seen.find((s) => s.url.pathname === "/v1/uploads");
    expect(upload?.headers.get("content-type")).toBe("application/jsonl");
    const create = fake.seen.find((s) => s.url.pathname === "/v1/batches");
    expect(JSON.parse(create?.body as string)).toEqual({ operation: "text_to_image", input_file_id: "art_in", concurrency: 5 });
    expect(create?.headers.get("idempotency-key")).toBeTruthy();
    expect(stdout).toContain("1/2");
    expect(stdout).toContain("2/2  completed");
    expect(stdout).toContain(`results saved to ${out}`);
    expect(readFileSync(out, "utf8")).toBe(RESULTS);
  }, 20_000);

  it("needs --operation", async () => {
    let stderr = "";
    const code = await runCli(["batch", "run", "x.jsonl"], {
      stdout: { write: () => undefined },
      stderr: { write: (s: string) => (stderr += s) },
      env: { MEDIA_API_KEY: "k" },
      fetch: fakeFetch({}).fetch,
    });
    expect(code).toBe(2);
    expect(stderr).toContain("--operation");
  });
});
