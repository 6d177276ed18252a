/**
 * JSON lines files read as they stream (src/batches/input-upload.ts, src/batches/input-file.ts):
 * a file larger than one part of R2's multipart write comes back byte for byte, CRLF lines and
 * multi-byte characters wherever the chunks cut them; a line longer than one item may be is
 * refused with its line number, at upload and when a batch names the file.
 */
import { describe, expect, it } from "vitest";
import { PART_BYTES } from "../../src/batches/input-upload";
import { call, expectError, newTenant, send, type TestTenant } from "../helpers/api";
import { allItems, createBatch } from "./helpers";

/** Uploads `chunks` as a streamed body (no Content-Length), as a client sending a large file does. */
function uploadStream(t: TestTenant, chunks: Uint8Array[]) {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i >= chunks.length) return controller.close();
      controller.enqueue(chunks[i++] as Uint8Array);
    },
  });
  return send(
    new Request("https://api.test/v1/uploads", {
      method: "POST",
      headers: { Authorization: `Bearer ${t.api_key}`, "Content-Type": "application/jsonl" },
      body,
      duplex: "half",
    } as RequestInit),
  );
}

/** Cuts bytes into chunks of `size`, so that cuts fall inside characters and CRLFs. */
function cut(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.slice(at, at + size));
  return out;
}

describe("JSON lines uploads, streamed", () => {
  it("a file over two parts long, CRLF and multi-byte, is stored byte for byte with its lines counted", async () => {
    const t = await newTenant({ mode: "test" });
    const prompt = "a slow pan over the hills, café at dawn — 日本 ".repeat(200);
    const rows: string[] = [];
    let size = 0;
    for (let i = 0; size < 2 * PART_BYTES + 12_345; i++) {
      const row = `${JSON.stringify({ custom_id: `row-${i}`, body: { prompt: `${i} ${prompt}` } })}\r\n`;
      rows.push(row);
      size += new TextEncoder().encode(row).length;
    }
    // The last line without its newline.
    const text = rows.join("").replace(/\r\n$/, "");
    const bytes = new TextEncoder().encode(text);
    const res = await uploadStream(t, cut(bytes, 65_537));
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ bytes: bytes.length, lines: rows.length });
    const back = await send(
      new Request(`https://api.test/v1/artifacts/${res.json.artifact_id}`, { headers: { Authorization: `Bearer ${t.api_key}` } }),
    );
    expect(back.status).toBe(200);
    expect(back.text.length).toBe(text.length);
    expect(back.text === text).toBe(true);
  }, 120_000);

  it("a line longer than 1 MiB is refused at upload with its line number", async () => {
    const t = await newTenant({ mode: "test" });
    const long = JSON.stringify({ custom_id: "big", body: { prompt: "x".repeat(1024 * 1024) } });
    const text = `${JSON.stringify({ custom_id: "a", body: { prompt: "ok" } })}\n${long}\n`;
    const e = expectError(await uploadStream(t, cut(new TextEncoder().encode(text), 100_000)), 422, "invalid_request", "");
    expect(e.message).toContain("line 2 is longer than 1048576 bytes");
    // The same line without a newline after it, sent whole.
    expectError(await uploadStream(t, [new TextEncoder().encode(long)]), 422, "invalid_request", "");
  });

  it("a batch reads a CRLF file's items in order, blank lines passed over", async () => {
    const t = await newTenant({ mode: "test" });
    const rows = Array.from({ length: 5 }, (_, i) => JSON.stringify({ custom_id: `é-${i}`, body: { prompt: `shot ${i} café` } }));
    const text = `${rows.slice(0, 2).join("\r\n")}\r\n\r\n${rows.slice(2).join("\r\n")}`;
    const file = await uploadStream(t, cut(new TextEncoder().encode(text), 7));
    expect(file.status, file.text).toBe(201);
    expect(file.json.lines).toBe(5);
    const res = await createBatch(t, { operation: "video_prompt_enhance", input_file_id: file.json.artifact_id, concurrency: 1 });
    expect(res.status, res.text).toBe(202);
    expect(res.json.counts.total).toBe(5);
    const items = await allItems(t, res.json.batch_id);
    expect(items.map((i) => i.custom_id)).toEqual(rows.map((_, i) => `é-${i}`));
    await call(`/v1/batches/${res.json.batch_id}/cancel`, { key: t.api_key, method: "POST" });
  });
});
