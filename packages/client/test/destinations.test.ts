/**
 * Storage destinations from the client and the command line, on a fake fetch: `--destination`
 * names the create's `output_destination_id`, `tasks deliver` asks for a delivery again, and the
 * client's storage destination methods call their routes.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli/main.js";
import { envelope, fakeFetch, json, testClient } from "./fake-fetch.js";

const BASE = "https://api.example";

async function cli(argv: string[], routes: Parameters<typeof fakeFetch>[0]) {
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

const delivered = (status: string, failed: unknown[] = []) =>
  envelope("succeeded", {
    delivery: { destination_id: "dst_1", status, attempt_count: 1, last_attempt_at: null, failed },
  });

describe("--destination", () => {
  it("sends output_destination_id with the create", async () => {
    const out = await cli(["generate", "text_to_image", "--prompt", "a fox", "--destination", "dst_abc", "--no-wait"], {
      "POST /v1/images/generations": () => json(202, envelope("queued")),
    });
    expect(out.code, out.stderr).toBe(0);
    const body = JSON.parse(out.seen.find((s) => s.url.pathname === "/v1/images/generations")?.body as string);
    expect(body).toEqual({ prompt: "a fox", output_destination_id: "dst_abc" });
  });
});

describe("tasks deliver", () => {
  it("asks for the delivery again, to another destination when named, and exits 1 when it still failed", async () => {
    const ok = await cli(["tasks", "deliver", "task_1", "--destination", "dst_2"], {
      "POST /v1/tasks/task_1/deliveries": () => json(200, delivered("delivered")),
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.seen[0]?.body as string)).toEqual({ destination_id: "dst_2" });
    expect(ok.stdout).toContain("delivery delivered to dst_1");
    const failed = await cli(["tasks", "deliver", "task_1"], {
      "POST /v1/tasks/task_1/deliveries": () =>
        json(200, delivered("failed", [{ index: 0, key: "task_1/0.png", error: "AccessDenied: Access Denied" }])),
    });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain("not delivered: task_1/0.png: AccessDenied");
  });
});

describe("client.storageDestinations", () => {
  it("calls each route", async () => {
    const d = { object: "storage_destination", destination_id: "dst_1" };
    const { client, seen } = testClient({
      "POST /v1/storage-destinations": () => json(201, d),
      "GET /v1/storage-destinations": () => json(200, { object: "list", data: [d], has_more: false }),
      "GET /v1/storage-destinations/dst_1": () => json(200, d),
      "PATCH /v1/storage-destinations/dst_1": () => json(200, d),
      "DELETE /v1/storage-destinations/dst_1": () => json(200, { ...d, deleted: true }),
    });
    await client.storageDestinations.create({
      endpoint: "https://s3.example.com",
      bucket: "b",
      region: "us-east-1",
      access_key_id: "AKIA",
      secret_access_key: "s",
    });
    await client.storageDestinations.list();
    await client.storageDestinations.get("dst_1");
    await client.storageDestinations.update("dst_1", { default: true });
    await client.storageDestinations.delete("dst_1");
    expect(seen.map((s) => `${s.method} ${s.url.pathname}`)).toEqual([
      "POST /v1/storage-destinations",
      "GET /v1/storage-destinations",
      "GET /v1/storage-destinations/dst_1",
      "PATCH /v1/storage-destinations/dst_1",
      "DELETE /v1/storage-destinations/dst_1",
    ]);
  });
});
