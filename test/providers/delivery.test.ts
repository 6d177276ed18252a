/**
 * Whether a failed call could have reached the provider (src/providers/delivery.ts), held to what
 * workerd's fetch really throws for each kind of failure: a request that never left (host not
 * found, connection refused, TLS handshake failed) is a refusal the task may move on from; one that
 * may have arrived (the connection broke after the request went out) is not. The words shown name
 * the kind and never the runtime's internal reference.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { networkFailure } from "../../src/providers/delivery";
import { call } from "../../src/providers/http";
import { fakeKey } from "./fakes/kit";
import { newTag } from "./harness";
import { recorded, rejection } from "./unit";

const falUrl = () => (env as unknown as Record<string, string>).PROVIDER_FAL_BASE_URL as string;

const config = (baseUrl: string) => ({ name: "fal", apiKey: fakeKey("fal"), baseUrl, timeoutMs: 5_000, extra: {} });

/** One submission-like POST (no retries), as every adapter's submit path sends it through `call`. */
const submit = (baseUrl: string, prompt: string) =>
  rejection(
    call(
      config(baseUrl),
      { Authorization: `Key ${fakeKey("fal")}` },
      {
        method: "POST",
        path: "/fal-ai/flux-2-pro",
        json: { prompt },
        retries: 0,
      },
    ),
  );

describe("a call that failed without an answer, against workerd's fetch", () => {
  it("a host name that does not resolve: not sent, said as such", async () => {
    const e = await submit("https://nonexistent.invalid", "x");
    expect(e).toMatchObject({ accepted: "no", retryable: true, code: "model_unavailable", outboundCause: "dns_failed" });
    expect(e.message).toBe("fal could not be reached: the host name nonexistent.invalid did not resolve (dns_failed)");
    expect(e.message).not.toMatch(/internal error|reference/);
  });

  it("a TLS handshake that fails (HTTPS to a plain HTTP port): not sent, and nothing reached the server", async () => {
    const tag = newTag("delivery-tls");
    const port = new URL(falUrl()).port;
    const e = await submit(`https://127.0.0.1:${port}`, `x #tag:${tag}`);
    expect(e).toMatchObject({ accepted: "no", retryable: true, code: "model_unavailable", outboundCause: "tls_failed" });
    expect(e.message).toMatch(/TLS handshake with 127\.0\.0\.1:\d+ failed \(tls_failed\)/);
    expect(e.message).not.toMatch(/reference/);
    expect(await recorded(falUrl(), tag)).toEqual([]);
  });

  it("a connection broken after the request went out: maybe sent, never moved elsewhere", async () => {
    const tag = newTag("delivery-lost");
    const e = await submit(falUrl(), `x #tag:${tag} #fake:answer_lost`);
    expect(e).toMatchObject({
      accepted: "unknown",
      retryable: true,
      code: "model_request_failed",
      outboundCause: "connection_lost",
    });
    // The provider did take it: the job exists there.
    expect((await recorded(falUrl(), tag)).filter((r) => r.kind === "submit")).toHaveLength(1);
  });

  it("a refused connection (a closed 127.0.0.1 port): workerd words it as a broken one; the TCP check finds nothing listening, so it was not sent", async () => {
    const e = await submit("http://127.0.0.1:1", "x");
    expect(e).toMatchObject({ accepted: "no", retryable: true, code: "model_unavailable", outboundCause: "connection_refused" });
    expect(e.message).toBe("fal could not be reached: 127.0.0.1:1 refused the connection (connection_refused)");
  });

  it("an answer that is not a success names its status as the kind", async () => {
    const e = await rejection(
      call(config(falUrl()), { Authorization: "Key wrong" }, { method: "GET", path: "/v1/models/pricing", retries: 0 }),
    );
    expect(e.outboundCause).toMatch(/^http_4\d\d$/);
  });
});

describe("the reading of a thrown fetch", () => {
  it("names the cause other runtimes give, and reads workerd's internal error by a TCP check", async () => {
    const read = (m: string, url = "https://api.example.com/x", ctor: ErrorConstructor = Error) =>
      networkFailure(new ctor(m), url);
    expect(await read("getaddrinfo ENOTFOUND api.example.com")).toMatchObject({ delivery: "not_sent", cause: "dns_failed" });
    expect(await read("connect ECONNREFUSED 127.0.0.1:443")).toMatchObject({ delivery: "not_sent", cause: "connection_refused" });
    expect(await read("unable to verify the first certificate")).toMatchObject({ delivery: "not_sent", cause: "tls_failed" });
    expect(await read("internal error; reference = 0ei66mddkb7h22bdpnaap9dp", "http://nonexistent.invalid/x")).toMatchObject({
      delivery: "not_sent",
      cause: "dns_failed",
    });
    expect(await read("Invalid URL: nope", "nope", TypeError)).toMatchObject({ delivery: "not_sent" });
    expect(await read("Network connection lost.", "http://127.0.0.1:1/x")).toMatchObject({ cause: "connection_refused" });
    expect(await read("Network connection lost.", falUrl())).toMatchObject({ delivery: "maybe_sent", cause: "connection_lost" });
    expect(await read("socket hang up")).toMatchObject({ delivery: "maybe_sent", cause: "connection_lost" });
  });
});
