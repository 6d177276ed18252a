import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MediaApiError } from "../src/errors.js";
import { extensionFor, sniffMediaType } from "../src/media-types.js";
import { outputArtifacts } from "../src/types.js";
import { apiError, json, sse, stream, testClient } from "./fake-fetch.js";

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
const MP4 = new TextEncoder().encode("\0\0\0\x18ftypisom\0\0\0\0isomavc1");
const uploaded = { object: "artifact", artifact_id: "art_1", kind: "image", content_type: "image/png", bytes: 16 };

describe("uploads", () => {
  it("sends the bytes with the type their first bytes announce, and no Idempotency-Key", async () => {
    const { client, seen } = testClient({ "POST /v1/uploads": () => json(201, uploaded) });
    const a = await client.uploads.create(PNG);
    expect(a.artifact_id).toBe("art_1");
    expect(seen[0]?.headers.get("content-type")).toBe("image/png");
    expect(seen[0]?.headers.has("idempotency-key")).toBe(false);
    await client.uploads.create(PNG, { contentType: "application/octet-stream" });
    expect(seen[1]?.headers.get("content-type")).toBe("application/octet-stream");
  });

  it("uploads a local file, typed by its bytes rather than its name", async () => {
    const dir = mkdtempSync(join(tmpdir(), "client-upload-"));
    const file = join(dir, "clip.bin");
    writeFileSync(file, MP4);
    const { client, seen } = testClient({ "POST /v1/uploads": () => json(201, { ...uploaded, kind: "video" }) });
    await client.uploads.fromFile(file);
    expect(seen[0]?.headers.get("content-type")).toBe("video/mp4");
  });

  it("knows the files the API reads, and names saved files by type", () => {
    expect(sniffMediaType(PNG)).toBe("image/png");
    expect(sniffMediaType(MP4)).toBe("video/mp4");
    expect(sniffMediaType(new TextEncoder().encode("RIFF\0\0\0\0WAVEfmt "))).toBe("audio/wav");
    expect(sniffMediaType(new TextEncoder().encode("hello world!"))).toBeUndefined();
    expect(extensionFor("image/jpeg")).toBe("jpg");
    expect(extensionFor("audio/mpeg; charset=x")).toBe("mp3");
    expect(extensionFor("application/x-unknown")).toBe("bin");
  });
});

describe("downloads", () => {
  it("lists the outputs that still have a file: a deleted one is left out", () => {
    const task = {
      output: {
        artifacts: [
          { artifact_id: "art_a", index: 0, url: "/v1/artifacts/art_a" },
          { artifact_id: "art_b", index: 1, deleted: true as const },
          { artifact_id: "art_c", index: 2, url: "/v1/artifacts/art_c" },
        ],
      },
    };
    expect(outputArtifacts(task as never).map((a) => a.artifact_id)).toEqual(["art_a", "art_c"]);
  });

  const later = new Date(Date.now() + 3_600_000).toISOString();

  it("fetches a live signed URL without the key, and saves through a temporary file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "client-download-"));
    const { client, seen } = testClient({
      "GET /files/art_1": () => stream(["PNG!", "rest"], { "Content-Type": "image/png" }),
    });
    const saved = await client.artifacts.download(
      { artifact_id: "art_1", signed_url: "/files/art_1?expires=1&sig=abc", signed_url_expires_at: later },
      join(dir, "out.png"),
    );
    expect(saved).toEqual({ path: join(dir, "out.png"), contentType: "image/png", bytes: 8 });
    expect(readFileSync(join(dir, "out.png"), "latin1")).toBe("PNG!rest");
    expect(readdirSync(dir)).toEqual(["out.png"]);
    expect(seen[0]?.url.search).toBe("?expires=1&sig=abc");
    expect(seen[0]?.headers.has("authorization")).toBe(false);
  });

  it("uses the key when the signed URL is about to expire or no longer works", async () => {
    const soon = new Date(Date.now() + 5_000).toISOString();
    const { client, seen } = testClient({
      "GET /files/art_1": () => apiError(404, "artifact_not_found", false),
      "GET /v1/artifacts/art_1": () => stream(["abc"], { "Content-Type": "video/mp4" }),
    });
    const a = await client.artifacts.download({
      artifact_id: "art_1",
      signed_url: "/files/art_1?sig=x",
      signed_url_expires_at: soon,
    });
    expect(new TextDecoder().decode(a.data)).toBe("abc");
    expect(seen.map((s) => s.url.pathname)).toEqual(["/v1/artifacts/art_1"]);
    await client.artifacts.download({ artifact_id: "art_1", signed_url: "/files/art_1?sig=x", signed_url_expires_at: later });
    expect(seen.map((s) => s.url.pathname).slice(1)).toEqual(["/files/art_1", "/v1/artifacts/art_1"]);
    expect(seen[2]?.headers.get("authorization")).toBe("Bearer sk_us_test_key");
  });

  it("starts a download again when its body breaks off, and leaves no partial file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "client-download-"));
    const { client, seen } = testClient({
      "GET /v1/artifacts/art_1": [
        () => stream(["part"], { "Content-Type": "audio/mpeg" }, { end: "error" }),
        () => stream(["whole"], { "Content-Type": "audio/mpeg" }),
      ],
    });
    const saved = await client.artifacts.download("art_1", join(dir, "a.mp3"));
    expect(saved.bytes).toBe(5);
    expect(seen).toHaveLength(2);
    expect(readdirSync(dir)).toEqual(["a.mp3"]);
  });

  it("throws artifact_not_found as a typed error", async () => {
    const { client } = testClient({ "GET /v1/artifacts/art_9": () => apiError(404, "artifact_not_found", false) });
    const err = await client.artifacts.download("art_9").catch((e) => e);
    expect(err).toBeInstanceOf(MediaApiError);
    expect(err.code).toBe("artifact_not_found");
  });
});

describe("chat", () => {
  it("streams chunks until [DONE], and throws an error event as a MediaApiError", async () => {
    const chunk = (content: string) =>
      `data: ${JSON.stringify({ object: "chat.completion.chunk", id: "c", model: "m", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    const { client, seen } = testClient({
      "POST /v1/chat/completions": [
        () => sse([chunk("Hel"), chunk("lo"), "data: [DONE]\n\n"]),
        () =>
          sse([
            chunk("x"),
            `data: ${JSON.stringify({ error: { code: "model_request_failed", type: "api_error", message: "upstream broke", retryable: true, request_id: "r" } })}\n\n`,
          ]),
      ],
    });
    const text: string[] = [];
    for await (const c of await client.chat.completions.create({ messages: [], stream: true } as never)) {
      text.push(c.choices[0]?.delta.content ?? "");
    }
    expect(text.join("")).toBe("Hello");
    expect(seen[0]?.headers.get("accept")).toBe("text/event-stream");
    const read = async () => {
      for await (const _ of await client.chat.completions.create({ messages: [], stream: true } as never)) {
        // the second chunk is the error
      }
    };
    await expect(read()).rejects.toMatchObject({ code: "model_request_failed" });
  });
});
