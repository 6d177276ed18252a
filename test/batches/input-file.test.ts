/**
 * A batch from an uploaded JSON lines file: 150 items on the sandbox run to an exact output file,
 * never more than its concurrency at once; a file with one invalid line refuses the whole batch at
 * that line. The items are text-only tasks (video_prompt_enhance), so the sandbox answers them at
 * once and the test measures the batch's own pacing rather than image encoding. The same at scale
 * (2,000 items, concurrency 100, across the admission's and the output file's 500-row pieces and
 * the items listing's 1,000-item pages) is a check of the soak: scripts/soak/file-batch.ts.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, newTenant, send, type TestTenant } from "../helpers/api";
import { allItems, createBatch, outputLines, waitForBatch } from "./helpers";

function upload(t: TestTenant, text: string, contentType = "application/jsonl") {
  return call("/v1/uploads", { key: t.api_key, rawBody: text, headers: { "Content-Type": contentType } });
}

const line = (i: number, body: Record<string, unknown> = { prompt: `a slow pan over hills at dawn, shot ${i}` }) =>
  JSON.stringify({ custom_id: `row-${i}`, body });

describe("POST /v1/uploads with application/jsonl", () => {
  it("keeps a JSON lines file as an artifact and counts its lines; refuses one that is not UTF-8 or has too many lines", async () => {
    const t = await newTenant({ mode: "test" });
    const ok = await upload(t, `${line(1)}\n\n${line(2)}\n`);
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json).toMatchObject({
      object: "artifact",
      kind: "jsonl",
      content_type: "application/jsonl",
      lines: 2,
      source: "upload",
    });
    const back = await call(`/v1/artifacts/${ok.json.artifact_id}`, { key: t.api_key });
    expect(back.text).toBe(`${line(1)}\n\n${line(2)}\n`);
    // Bytes that are not UTF-8.
    const notText = await send(
      new Request("https://api.test/v1/uploads", {
        method: "POST",
        headers: { Authorization: `Bearer ${t.api_key}`, "Content-Type": "application/jsonl" },
        body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
      }),
    );
    expectError(notText, 422, "invalid_request", "");
    const tooMany = Array.from({ length: 10_001 }, (_, i) => `{"custom_id":"${i}"}`).join("\n");
    expectError(await upload(t, tooMany), 422, "invalid_request");
  });
});

describe("POST /v1/batches with input_file_id", () => {
  it("150 items from an upload complete with an exact output file, never more than concurrency at once", async () => {
    const t = await newTenant({ mode: "test" });
    const n = 150;
    const concurrency = 15;
    const file = await upload(t, Array.from({ length: n }, (_, i) => line(i)).join("\n"));
    expect(file.status, file.text).toBe(201);
    const started = Date.now();
    const res = await createBatch(t, {
      operation: "video_prompt_enhance",
      input_file_id: file.json.artifact_id,
      concurrency,
    });
    expect(res.status, res.text).toBe(202);
    const admittedMs = Date.now() - started;
    expect(res.json.counts.total).toBe(n);
    let most = 0;
    const done = await waitForBatch(
      t,
      res.json.batch_id,
      (b) => {
        most = Math.max(most, b.counts.running);
        return b.status === "completed";
      },
      300_000,
    );
    const ranMs = Date.now() - started - admittedMs;
    expect(most).toBeLessThanOrEqual(concurrency);
    expect(done.counts).toEqual({ total: n, queued: 0, running: 0, succeeded: n, failed: 0, canceled: 0 });
    const items = await allItems(t, res.json.batch_id);
    const lines = await outputLines(t, done);
    expect(lines).toHaveLength(n);
    for (const [i, l] of lines.entries()) {
      expect(l.custom_id).toBe(`row-${i}`);
      expect(l.task_id).toBe(items[i].task_id);
      expect(l.status).toBe("succeeded");
      expect(typeof l.output.text).toBe("string");
      expect(l.error).toBeUndefined();
    }
    expect(new Set(lines.map((l) => l.task_id)).size).toBe(n);
    // How long it took, in the failure message of a check that always holds, for the record.
    expect({ admittedMs, ranMs, tasksPerSecond: Math.round((n / ranMs) * 1000) }).toMatchObject({
      admittedMs: expect.any(Number),
    });
  }, 300_000);

  it("one invalid item at line 1,500 refuses the whole batch with its line, and nothing starts", async () => {
    const t = await newTenant({ mode: "test" });
    const rows = Array.from({ length: 2000 }, (_, i) => (i === 1499 ? line(i, { prompt: "" }) : line(i)));
    const file = await upload(t, rows.join("\n"));
    expect(file.status, file.text).toBe(201);
    const res = await createBatch(t, { operation: "video_prompt_enhance", input_file_id: file.json.artifact_id });
    const e = expectError(res, 422, "invalid_request", "/input_file_id");
    expect(e.details.line).toBe(1500);
    expect(e.details.invalid_items).toBe(1);
    expect(e.details.errors[0]).toMatchObject({ line: 1500, loc: ["input_file", 1500, "body", "prompt"] });
    expect(e.message).toContain("line 1500");
    expect((await call("/v1/tasks?limit=10", { key: t.api_key })).json.data).toEqual([]);
    expect((await call("/v1/batches", { key: t.api_key })).json.data).toEqual([]);
  }, 300_000);

  it("a line that is not JSON, another tenant's file, and both items and input_file_id are refused", async () => {
    const t = await newTenant({ mode: "test" });
    const bad = await upload(t, `${line(0)}\nnot json\n${line(2)}`);
    const e = expectError(
      await createBatch(t, { operation: "video_prompt_enhance", input_file_id: bad.json.artifact_id }),
      422,
      "invalid_request",
      "/input_file_id",
    );
    expect(e.details.line).toBe(2);
    const other = await newTenant({ mode: "test" });
    expectError(
      await createBatch(other, { operation: "video_prompt_enhance", input_file_id: bad.json.artifact_id }),
      404,
      "artifact_not_found",
      "/input_file_id",
    );
    expectError(
      await createBatch(t, { operation: "video_prompt_enhance", input_file_id: bad.json.artifact_id, items: [] }),
      422,
      "invalid_request",
    );
  });
});
