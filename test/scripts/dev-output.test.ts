/**
 * What `npm start` says while it starts (scripts/lib/dev-output.ts): offline conditions are told
 * apart from bugs, each in one line; the progress line never floods a log; the dev key is said to
 * be live, beside the test-mode key.
 */
import { describe, expect, it } from "vitest";
import { cfCopyKept, keyNotice, offlineCode, offlineLine, ticker } from "../../scripts/lib/dev-output.ts";

describe("offline conditions", () => {
  it("are the network's errors, found through fetch's cause", () => {
    const dns = Object.assign(new Error("getaddrinfo ENOTFOUND workers.cloudflare.com"), { code: "ENOTFOUND" });
    expect(offlineCode(dns)).toBe("ENOTFOUND");
    expect(offlineCode(new TypeError("fetch failed", { cause: dns }))).toBe("ENOTFOUND");
    expect(offlineCode(Object.assign(new Error("x"), { code: "EAI_AGAIN" }))).toBe("EAI_AGAIN");
    expect(offlineCode(new DOMException("The operation was aborted due to timeout", "TimeoutError"))).toBe("timeout");
  });

  it("are not any other error, which is shown in full", () => {
    expect(offlineCode(new Error("Unexpected token < in JSON"))).toBeUndefined();
    expect(offlineCode(Object.assign(new Error("x"), { code: "EACCES" }))).toBeUndefined();
    expect(offlineCode(undefined)).toBeUndefined();
  });

  it("are said in one line naming what is skipped, without a stack trace", () => {
    const line = offlineLine("workers.cloudflare.com", "ENOTFOUND", "request.cf holds wrangler's placeholder location data");
    expect(line).toBe("offline (workers.cloudflare.com: ENOTFOUND): request.cf holds wrangler's placeholder location data");
    expect(line).not.toContain("\n");
  });

  it("are not probed for when a recent copy of the request.cf data is kept", () => {
    expect(cfCopyKept("/nonexistent-checkout", {})).toBe(false);
  });
});

describe("the progress line while the Workers start", () => {
  const clock = () => {
    let t = 0;
    return { now: () => t, advance: (s: number) => (t += s * 1000) };
  };

  it("in a log, adds a line every ten seconds at most, then says when it is ready", async () => {
    const written: string[] = [];
    const c = clock();
    const t = ticker("starting the Workers…", { write: (s) => written.push(s), isTTY: false }, { logEvery: 0.01, now: c.now });
    expect(written).toEqual(["starting the Workers…\n"]);
    c.advance(12);
    await new Promise((r) => setTimeout(r, 30));
    t.done("ready in 12 s");
    expect(written[0]).toBe("starting the Workers…\n");
    expect(written.at(-1)).toBe("starting the Workers… ready in 12 s\n");
    // One progress line for the 12 s, however often the timer ran.
    expect(written.filter((w) => w.startsWith("  …"))).toEqual(["  … 12 s\n"]);
  });

  it("on a terminal, rewrites one line in place", () => {
    const written: string[] = [];
    const t = ticker("starting the Workers…", { write: (s) => written.push(s), isTTY: true });
    t.done("ready in 1 s");
    expect(written).toEqual(["starting the Workers…", "\rstarting the Workers… ready in 1 s\n"]);
  });
});

describe("the dev key's notice", () => {
  it("says the key is live and spends credits on sandbox outputs too, beside the test key", () => {
    const lines = keyNotice({ liveKey: "sk_us_live_x", testKey: "sk_us_test_y", consoleUrl: "http://127.0.0.1:8787/console" });
    const text = lines.join("\n");
    expect(text).toContain("sk_us_live_x");
    expect(text).toMatch(
      /live, every permission: every call spends the dev tenant's credits, sandbox \(simulated_output\) results included/,
    );
    expect(text).toContain("sk_us_test_y");
    expect(text).toContain("never charged");
  });

  it("says where to make a test key when there is none", () => {
    const text = keyNotice({ liveKey: "sk_us_live_x", consoleUrl: "http://127.0.0.1:8787/console" }).join("\n");
    expect(text).toContain("http://127.0.0.1:8787/console/keys");
    expect(text).toContain("Mode: test");
  });
});
