/**
 * Retention in the client and the command line: `--retention-days` / `output_retention_days` on a
 * create, `tasks.deleteOutputs` / `media-api tasks delete-outputs`, and what `tasks get` says of
 * an output's end.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/main.js";
import { apiError, envelope, fakeFetch, json, type Seen, testClient } from "../fake-fetch.js";

const BASE = "https://api.example";

const ARTIFACT = {
  artifact_id: "art_0123456789abcdef0123456789abcdef",
  content_type: "image/png",
  bytes: 4,
  index: 0,
  expires_at: "2026-02-01T00:00:00.000Z",
};

async function run(argv: string[], routes: Parameters<typeof fakeFetch>[0]) {
  const fake = fakeFetch(routes);
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { MEDIA_API_KEY: "sk_us_test_key", MEDIA_API_BASE_URL: BASE },
    fetch: fake.fetch,
  });
  return { code, stdout, stderr, seen: fake.seen };
}

const creates = (seen: Seen[]) => seen.filter((s) => s.method === "POST" && s.url.pathname === "/v1/images/generations");

describe("media-api generate --retention-days", () => {
  const routes = { "POST /v1/images/generations": () => json(202, envelope("queued")) };

  it("sends output_retention_days", async () => {
    const out = await run(["generate", "text_to_image", "--prompt", "x", "--retention-days", "7", "--no-wait"], routes);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(creates(out.seen)[0]?.body as string)).toEqual({ prompt: "x", output_retention_days: 7 });
    const max = await run(["generate", "text_to_image", "--prompt", "x", "--retention-days", "365", "--no-wait"], routes);
    expect(JSON.parse(creates(max.seen)[0]?.body as string).output_retention_days).toBe(365);
  });

  it("refuses a value that is not 1 to 365 whole days, before any request", async () => {
    for (const days of ["0", "366", "2.5", "seven", "-1", "07"]) {
      const out = await run(["generate", "text_to_image", "--prompt", "x", "--retention-days", days, "--no-wait"], routes);
      expect(out.code, days).toBe(2);
      expect(out.stderr).toContain("--retention-days must be a whole number of days from 1 to 365");
      expect(out.seen).toEqual([]);
    }
  });

  it("passes the service's refusal of more than the tenant's retention through", async () => {
    const out = await run(["generate", "text_to_image", "--prompt", "x", "--retention-days", "90", "--no-wait"], {
      "POST /v1/images/generations": () => apiError(422, "invalid_request", false, { param: "/output_retention_days" }),
    });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("invalid_request");
  });
});

describe("deleting a task's outputs", () => {
  const expired = envelope("succeeded", { output: { artifacts: [{ ...ARTIFACT, expired: true }] } });

  it("media-api tasks delete-outputs sends DELETE /v1/tasks/{id}/outputs", async () => {
    const out = await run(["tasks", "delete-outputs", "task_1"], { "DELETE /v1/tasks/task_1/outputs": () => json(200, expired) });
    expect(out.code, out.stderr).toBe(0);
    expect(out.seen.map((s) => `${s.method} ${s.url.pathname}`)).toEqual(["DELETE /v1/tasks/task_1/outputs"]);
    expect(out.stdout).toContain("task_1  succeeded  1 output deleted");
    const asJson = await run(["tasks", "delete-outputs", "task_1", "--json"], {
      "DELETE /v1/tasks/task_1/outputs": () => json(200, expired),
    });
    expect(JSON.parse(asJson.stdout).output.artifacts[0].expired).toBe(true);
  });

  it("a task still running is the service's conflict (exit 1)", async () => {
    const out = await run(["tasks", "delete-outputs", "task_1"], {
      "DELETE /v1/tasks/task_1/outputs": () => apiError(409, "conflict", false),
    });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("conflict");
  });

  it("the client's tasks.deleteOutputs", async () => {
    const { client, seen } = testClient({ "DELETE /v1/tasks/task_1/outputs": () => json(200, expired) });
    const task = await client.tasks.deleteOutputs("task_1");
    expect(task.output?.artifacts?.[0]?.expired).toBe(true);
    expect(seen.map((s) => `${s.method} ${s.url.pathname}`)).toEqual(["DELETE /v1/tasks/task_1/outputs"]);
  });

  it("the client's creates take output_retention_days", async () => {
    const { client, seen } = testClient({ "POST /v1/images/generations": () => json(202, envelope("queued")) });
    await client.images.generate({ model: "auto", prompt: "x", count: 1, output_retention_days: 3 }, { idempotencyKey: "k" });
    expect(JSON.parse(seen[0]?.body as string)).toEqual({ model: "auto", prompt: "x", count: 1, output_retention_days: 3 });
  });
});

describe("media-api tasks get", () => {
  it("shows each output's end, and an expired one as such", async () => {
    const kept = envelope("succeeded", { output: { artifacts: [{ ...ARTIFACT, url: "/v1/artifacts/a" }] } });
    const live = await run(["tasks", "get", "task_1"], { "GET /v1/tasks/task_1": () => json(200, kept) });
    expect(live.stdout).toContain(`until ${ARTIFACT.expires_at}`);
    const gone = envelope("succeeded", { output: { artifacts: [{ ...ARTIFACT, expired: true }] } });
    const old = await run(["tasks", "get", "task_1"], { "GET /v1/tasks/task_1": () => json(200, gone) });
    expect(old.stdout).toContain("(expired)");
    expect(old.stdout).not.toContain("until");
  });
});
