/**
 * The kind of a failed outside call (src/lib/outbound-cause.ts), held to what workerd's fetch
 * really throws for each: a refused connection and one lost after the request went out both read
 * `Network connection lost.`, a host name that does not resolve and a failed TLS handshake both read
 * `internal error; reference = …`, and a TCP check tells each pair apart. Every fake is on
 * 127.0.0.1; `.invalid` names fail at the local resolver.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { causeInText, classifyFetchError, namedCause, tcpOpens } from "../../src/lib/outbound-cause";

const receiver = () => env.RECEIVER_URL as string;
const receiverPort = () => new URL(receiver()).port;

async function thrown(url: string, init: RequestInit = {}): Promise<unknown> {
  try {
    const res = await fetch(url, init);
    await res.body?.cancel();
  } catch (e) {
    return e;
  }
  throw new Error(`${url} answered`);
}

describe("what workerd's fetch throws, and the kind read from it", () => {
  it("a closed port: `Network connection lost.`, read as connection_refused, not sent", async () => {
    const e = await thrown("http://127.0.0.1:1/x");
    expect((e as Error).message).toBe("Network connection lost.");
    expect(namedCause(e)).toBeNull();
    expect(await classifyFetchError(e, "http://127.0.0.1:1/x")).toEqual({
      cause: "connection_refused",
      words: "127.0.0.1:1 refused the connection (connection_refused)",
      delivery: "not_sent",
    });
  });

  it("a host name that does not resolve: an internal error with a reference only, read as dns_failed", async () => {
    for (const url of ["http://nonexistent.invalid/x", "https://nonexistent.invalid/x"]) {
      const e = await thrown(url);
      expect((e as Error).message).toMatch(/^internal error; reference = /);
      const read = await classifyFetchError(e, url);
      expect(read).toMatchObject({ cause: "dns_failed", delivery: "not_sent" });
      expect(read.words).toBe("the host name nonexistent.invalid did not resolve (dns_failed)");
    }
  });

  it("HTTPS to a plain HTTP port: the same internal error, read as tls_failed (the TCP check opens)", async () => {
    const url = `https://127.0.0.1:${receiverPort()}/hook/ok/tls`;
    const e = await thrown(url);
    expect((e as Error).message).toMatch(/^internal error; reference = /);
    expect(await classifyFetchError(e, url)).toMatchObject({ cause: "tls_failed", delivery: "not_sent" });
  });

  it("a server that never answers: the caller's AbortSignal.timeout is a TimeoutError, read as timed_out, maybe sent", async () => {
    const url = `${receiver()}/silent/x`;
    const e = await thrown(url, { signal: AbortSignal.timeout(200) });
    expect((e as Error).name).toBe("TimeoutError");
    expect(await classifyFetchError(e, url)).toMatchObject({ cause: "timed_out", delivery: "maybe_sent" });
  });

  it("`Network connection lost.` from a host that listens: connection_lost, maybe sent", async () => {
    const url = `${receiver()}/hook/ok/lost`;
    const read = await classifyFetchError(new Error("Network connection lost."), url);
    expect(read).toMatchObject({ cause: "connection_lost", delivery: "maybe_sent" });
    expect(read.words).not.toMatch(/reference/);
  });

  it("the TCP check: open on a listening port, closed on a closed one or an unknown name", async () => {
    expect(await tcpOpens(new URL(receiver()))).toBe(true);
    expect(await tcpOpens(new URL("http://127.0.0.1:1"))).toBe(false);
    expect(await tcpOpens(new URL("http://nonexistent.invalid"))).toBe(false);
  });
});

describe("the kind named by other runtimes' words", () => {
  it("reads Node's and proxies' error codes; anything else is network_error", async () => {
    const read = (m: string) => classifyFetchError(new Error(m), "https://api.example.com/x");
    expect((await read("getaddrinfo ENOTFOUND api.example.com")).cause).toBe("dns_failed");
    expect((await read("connect ECONNREFUSED 127.0.0.1:443")).cause).toBe("connection_refused");
    expect((await read("unable to verify the first certificate")).cause).toBe("tls_failed");
    expect((await read("connect ETIMEDOUT 10.0.0.1:443")).cause).toBe("timed_out");
    expect((await read("socket hang up")).cause).toBe("connection_lost");
    expect(await read("something else")).toMatchObject({ cause: "network_error", delivery: "maybe_sent" });
    expect(await classifyFetchError(new TypeError("Invalid URL: nope"), "nope")).toMatchObject({
      cause: "network_error",
      delivery: "not_sent",
    });
  });

  it("reads the kind back from a stored error text", () => {
    expect(causeInText("could not connect: 127.0.0.1:1 refused the connection (connection_refused)")).toBe("connection_refused");
    expect(causeInText("receiver answered HTTP 500")).toBe("http_500");
    expect(causeInText("receiver answered 410 Gone; delivery stopped")).toBe("http_410");
    expect(causeInText("endpoint deleted")).toBeNull();
    expect(causeInText(null)).toBeNull();
  });
});
