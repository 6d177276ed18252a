import { describe, expect, it } from "vitest";
import { parseEventStream, type ServerSentEvent, StreamIdleError } from "../src/sse.js";

function body(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(typeof chunk === "string" ? enc.encode(chunk) : chunk);
      c.close();
    },
  });
}

async function all(chunks: (string | Uint8Array)[], comments: string[] = []): Promise<ServerSentEvent[]> {
  const out: ServerSentEvent[] = [];
  for await (const ev of parseEventStream(body(chunks), { onComment: (c) => comments.push(c) })) out.push(ev);
  return out;
}

describe("parseEventStream", () => {
  it("reads event types, multi-line data, ids that persist, retry and comments", async () => {
    const comments: string[] = [];
    const events = await all(
      [
        'retry: 2000\n\n: keep-alive\n\nid: 1\nevent: status\ndata: {"a":1}\n\n',
        "data: line one\ndata: line two\n\nid: 7\nevent: done\ndata:x\n\n",
      ],
      comments,
    );
    expect(events).toEqual([
      { event: "status", data: '{"a":1}', id: "1", retry: 2000 },
      { event: "message", data: "line one\nline two", id: "1", retry: 2000 },
      { event: "done", data: "x", id: "7", retry: 2000 },
    ]);
    expect(comments).toEqual(["keep-alive"]);
  });

  it("takes CR, LF and CRLF line ends, also when a CRLF or a character is split between chunks", async () => {
    const euro = new TextEncoder().encode("data: 5 €\r\n\r\n");
    const events = await all([
      "data: a\r",
      "\n\r\ndata: b\rdata: c\r\r",
      "event: e\n",
      "data: d\n\n",
      euro.subarray(0, 9),
      euro.subarray(9),
    ]);
    expect(events.map((e) => [e.event, e.data])).toEqual([
      ["message", "a"],
      ["message", "b\nc"],
      ["e", "d"],
      ["message", "5 €"],
    ]);
  });

  it("strips one leading space and a byte-order mark, keeps a field with no colon, ignores unknown fields and bad values", async () => {
    const events = await all(["\uFEFFdata:  two spaces\nfoo: bar\nretry: soon\nid: a\0b\ndata\n\n"]);
    expect(events).toEqual([{ event: "message", data: " two spaces\n", id: undefined, retry: undefined }]);
  });

  it("dispatches nothing for an event without data, and drops an unfinished last event", async () => {
    const events = await all(["event: ping\n\n", "data: kept\n\n", "data: cut off"]);
    expect(events.map((e) => e.data)).toEqual(["kept"]);
  });

  it("gives up on a stream that goes silent", async () => {
    const silent = new ReadableStream<Uint8Array>({ start() {} });
    const read = async () => {
      for await (const _ of parseEventStream(silent, { idleTimeoutMs: 10 })) {
        // nothing arrives
      }
    };
    await expect(read()).rejects.toBeInstanceOf(StreamIdleError);
  });
});
