/** `Prefer: wait` (RFC 7240) and `If-None-Match` (RFC 9110 §13.1.2) as the task routes read them. */
import { describe, expect, it } from "vitest";
import { ifNoneMatchHits } from "../../src/http/etag";
import { preferredWait } from "../../src/http/prefer";

describe("Prefer: wait", () => {
  it.each([
    [undefined, null],
    ["", null],
    ["wait=0", 0],
    ["wait=10", 10],
    ["Wait = 10", 10],
    ['wait="7"', 7],
    ["wait=60", 60],
    ["wait=61", 60],
    ["wait=99999999999999999999", 60],
    ["respond-async, wait=5", 5],
    ["wait=5; foo=bar", 5],
    ['handling=lenient; x="a,b", wait=3', 3],
    // Only the first instance counts (RFC 7240 §2), understood or not.
    ["wait=5, wait=9", 5],
    ["wait=x, wait=9", null],
    ["wait", null],
    ["wait=", null],
    ["wait=-3", null],
    ["wait=2.5", null],
    ["waiting=5", null],
    ["return=minimal", null],
  ])("%s → %s", (header, expected) => expect(preferredWait(header)).toBe(expected));
});

describe("If-None-Match", () => {
  const etag = '"0123abcd"';
  it.each([
    [undefined, false],
    ["*", true],
    [" * ", true],
    ['"0123abcd"', true],
    ['W/"0123abcd"', true],
    ['"x", "0123abcd"', true],
    ['"x",W/"0123abcd"', true],
    ['"x"', false],
    ["0123abcd", false],
    ['"0123abc"', false],
    ['"0123abcde"', false],
    ["", false],
    ['*, "x"', false],
  ])("%s → %s", (header, expected) => expect(ifNoneMatchHits(header, etag)).toBe(expected));
});
