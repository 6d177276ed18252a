/**
 * The line splitter that batch input files are read through (src/lib/lines.ts): whatever the
 * chunks, the same lines — a chunk may end inside a multi-byte character or between the "\r" and
 * "\n" of a CRLF, and a last line needs no newline.
 */
import { describe, expect, it } from "vitest";
import { LineSplitter, linesOf, utf8Length } from "../../src/lib/lines";

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
}

async function collect(chunks: Uint8Array[]): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of linesOf(streamOf(chunks)) as unknown as AsyncIterable<string>) lines.push(line);
  return lines;
}

const bytes = (s: string) => new TextEncoder().encode(s);

describe("linesOf", () => {
  const text = '{"a":"café"}\r\n\r\n{"b":"日本"}\n{"c":"😀"}\r\n{"d":"last, no newline é"}';
  const expected = ['{"a":"café"}', "", '{"b":"日本"}', '{"c":"😀"}', '{"d":"last, no newline é"}'];

  it("gives the same lines for every place a file can be cut in two", async () => {
    const all = bytes(text);
    for (let at = 0; at <= all.length; at++) {
      expect(await collect([all.slice(0, at), all.slice(at)]), `cut at byte ${at}`).toEqual(expected);
    }
  });

  it("joins a character sent one byte at a time, and a CRLF cut between its two bytes", async () => {
    const all = bytes(text);
    expect(await collect([...all].map((b) => new Uint8Array([b])))).toEqual(expected);
    expect(await collect([bytes("x\r"), bytes("\ny\r"), bytes("\n")])).toEqual(["x", "y"]);
    // The four bytes of one emoji in four chunks.
    const emoji = bytes("😀\n");
    expect(await collect([emoji.slice(0, 1), emoji.slice(1, 2), emoji.slice(2, 3), emoji.slice(3)])).toEqual(["😀"]);
  });

  it("refuses bytes that are not UTF-8, and a file that ends inside a character", async () => {
    await expect(collect([new Uint8Array([0x7b, 0xff, 0x7d, 0x0a])])).rejects.toThrow();
    await expect(collect([bytes("ok\n"), bytes("é").slice(0, 1)])).rejects.toThrow();
  });

  it("an empty file has no line; a file of one newline has one empty line", async () => {
    expect(await collect([])).toEqual([]);
    expect(await collect([bytes("\n")])).toEqual([""]);
  });
});

describe("LineSplitter", () => {
  it("keeps only the open line between pushes", () => {
    const s = new LineSplitter();
    expect(s.push("ab")).toEqual([]);
    expect(s.push("cd")).toEqual([]);
    expect(s.pending).toBe(4);
    expect(s.push("e\nf")).toEqual(["abcde"]);
    expect(s.pending).toBe(1);
    expect(s.end()).toEqual(["f"]);
    expect(s.end()).toEqual([]);
  });

  it("counts UTF-8 bytes as an encoder would", () => {
    for (const t of ["", "abc", "café", "日本語", "😀x", "a\u0800b"]) expect(utf8Length(t)).toBe(bytes(t).length);
  });
});
