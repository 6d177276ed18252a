import { describe, expect, it } from "vitest";
import type { KeyResolution } from "../../src/accounts/api-key-answers";
import { KeyCache } from "../../src/accounts/key-cache";

const OK: KeyResolution = { ok: true, tenant_id: "ten_a", key_id: "key_a", permissions: ["chat"], rate_limit_per_minute: null };
const REVOKED: KeyResolution = { ok: false, code: "invalid_api_key" };

function setup(maxAge = 5000, refreshAfter = 2000, maxEntries = 100) {
  let now = 0;
  const background: Promise<unknown>[] = [];
  const cache = new KeyCache(() => now, maxAge, refreshAfter, maxEntries);
  let answer: KeyResolution = OK;
  let reads = 0;
  const load = async () => {
    reads++;
    return answer;
  };
  return {
    cache,
    resolve: (hash = "h") => cache.resolve(hash, load, (p) => background.push(p)),
    advance: (ms: number) => {
      now += ms;
    },
    set: (a: KeyResolution) => {
      answer = a;
    },
    reads: () => reads,
    settle: () => Promise.all(background.splice(0)),
  };
}

describe("the key cache", () => {
  it("reads once, then serves from memory while the entry is young", async () => {
    const s = setup();
    expect(await s.resolve()).toEqual(OK);
    s.advance(1999);
    expect(await s.resolve()).toEqual(OK);
    expect(s.reads()).toBe(1);
  });

  it("refreshes in the background after REFRESH_AFTER, serving the old answer meanwhile", async () => {
    const s = setup();
    await s.resolve();
    s.set(REVOKED);
    s.advance(2000);
    expect(await s.resolve()).toEqual(OK); // the request is not held up
    await s.settle();
    expect(s.reads()).toBe(2);
    expect(await s.resolve()).toEqual(REVOKED);
  });

  it("never serves an entry older than MAX_AGE: the request waits for a fresh read", async () => {
    const s = setup();
    await s.resolve();
    s.set(REVOKED);
    s.advance(5000);
    expect(await s.resolve()).toEqual(REVOKED);
  });

  it("concurrent requests for an expired key share one read", async () => {
    const s = setup();
    await s.resolve();
    s.advance(6000);
    await Promise.all([s.resolve(), s.resolve(), s.resolve()]);
    expect(s.reads()).toBe(2);
  });

  it("is bounded in size, dropping the least recently read key", async () => {
    const s = setup(5000, 2000, 3);
    for (const h of ["a", "b", "c", "d"]) await s.resolve(h);
    expect(s.cache.size).toBe(3);
    await s.resolve("a"); // was dropped: read again
    expect(s.reads()).toBe(5);
  });

  it("keeps no entry for a read that failed", async () => {
    const cache = new KeyCache(() => 0);
    await expect(
      cache.resolve(
        "h",
        () => Promise.reject(new Error("down")),
        () => {},
      ),
    ).rejects.toThrow("down");
    expect(cache.size).toBe(0);
  });
});
