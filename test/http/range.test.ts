/**
 * Byte ranges on artifacts per RFC 9110: satisfiable → 206 with Content-Range; unsatisfiable →
 * 416 with `Content-Range: bytes *` and the size; invalid or multiple → the whole file (200).
 * A table over the decision, a property over random headers, and the route itself.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decideRange } from "../../src/http/range";
import { call, newTenant } from "../helpers/api";
import { createImage, waitFor } from "../helpers/tasks";

const SIZE = 100;
const TABLE: [string | undefined, ReturnType<typeof decideRange>][] = [
  [undefined, { kind: "whole" }],
  ["bytes=0-7", { kind: "partial", offset: 0, length: 8 }],
  ["bytes=90-", { kind: "partial", offset: 90, length: 10 }],
  ["bytes=90-500", { kind: "partial", offset: 90, length: 10 }],
  ["bytes=-5", { kind: "partial", offset: 95, length: 5 }],
  ["bytes=-500", { kind: "partial", offset: 0, length: 100 }],
  ["bytes=99-99", { kind: "partial", offset: 99, length: 1 }],
  ["BYTES = 1 - 2", { kind: "partial", offset: 1, length: 2 }],
  ["bytes=100-", { kind: "unsatisfiable" }],
  ["bytes=999999999-", { kind: "unsatisfiable" }],
  ["bytes=99999999999999999999999-", { kind: "unsatisfiable" }],
  ["bytes=-0", { kind: "unsatisfiable" }],
  ["bytes=10-5", { kind: "whole" }],
  ["bytes=-", { kind: "whole" }],
  ["bytes=0-1,5-6", { kind: "whole" }],
  ["items=0-5", { kind: "whole" }],
  ["bytes=a-b", { kind: "whole" }],
  ["", { kind: "whole" }],
];

describe("byte ranges", () => {
  it.each(TABLE)("Range %s of 100 bytes → %o", (header, expected) => expect(decideRange(header, SIZE)).toEqual(expected));

  it("never selects bytes outside the file, for any header", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.nat(10_000), (suffix, size) => {
        const d = decideRange(`bytes=${suffix}`, size);
        if (d.kind !== "partial") return true;
        return d.offset >= 0 && d.length >= 1 && d.offset + d.length <= size;
      }),
      { numRuns: 3000 },
    );
  });

  it("answers the route with 206, 416 and 200 as RFC 9110 says, never 500", async () => {
    const t = await newTenant();
    const created = await createImage(t, { prompt: "ranges", canvas: { type: "preset", tier: "1K", aspect: "1:1" } });
    const done = await waitFor(t, created.json.task_id);
    const art = done.output.artifacts[0];
    const path = `/v1/artifacts/${art.artifact_id}`;
    const get = (range: string) => call(path, { key: t.api_key, headers: { Range: range } });

    const part = await get("bytes=2-5");
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 2-5/${art.bytes}`);
    expect(part.headers.get("content-length")).toBe("4");
    for (const unsatisfiable of ["bytes=999999999-", "bytes=-0", `bytes=${art.bytes}-`]) {
      const res = await get(unsatisfiable);
      expect(res.status, unsatisfiable).toBe(416);
      expect(res.headers.get("content-range")).toBe(`bytes */${art.bytes}`);
    }
    for (const invalid of ["bytes=10-5", "bytes=0-1,4-5", "pages=1"]) {
      const res = await get(invalid);
      expect(res.status, invalid).toBe(200);
      expect(res.headers.get("content-length")).toBe(String(art.bytes));
    }
  });
});
