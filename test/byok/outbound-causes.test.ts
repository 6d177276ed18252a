/**
 * A failure to reach an outside service reads the same at every door that checks one: a tenant's
 * provider key (`PUT /v1/provider-keys/{provider}`), a storage destination's probe
 * (`POST /v1/storage-destinations`) and a webhook endpoint's test event
 * (`POST /v1/webhook-endpoints/{id}/test`). Each kind (docs/errors.md) gives the same code,
 * `retryable` and `details.cause` (a webhook attempt's `cause`) at each. The fakes are on 127.0.0.1:
 * a closed port, a plain-HTTP port spoken to over HTTPS, a server that never answers, one that
 * answers 404. A name that does not resolve is refused by the outside-URL policy before any call
 * (`.invalid` is a reserved zone), so that kind is held at the probes the doors call.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { ApiError } from "../../src/errors/api-error";
import { causeInText } from "../../src/lib/outbound-cause";
import { adapterFor } from "../../src/providers/registry";
import { verifyProviderKey } from "../../src/services/provider-keys";
import { verifyDestination } from "../../src/services/storage-destinations";
import { attemptError } from "../../src/webhooks/send";
import { newBucket } from "../destinations/s3";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { putKey, tenantKey } from "./helpers";

const receiver = () => env.RECEIVER_URL as string;
const receiverPort = () => new URL(receiver()).port;

const tenant = () =>
  newTenant({ credits: "100", permissions: ["providers:manage", "storage:manage", "webhooks:manage", "tasks:read"] });

interface Seen {
  status: number;
  code: string;
  retryable: boolean;
  cause: string;
  message: string;
}

/** The provider-key door: fal's key check against `base`. */
async function keyProbe(t: TestTenant, base: string): Promise<Seen> {
  const res = await putKey(t, "fal", { api_key: tenantKey("fal"), base_url: base, mode: "prefer" });
  const e = res.json.error;
  return { status: res.status, code: e?.code, retryable: e?.retryable, cause: e?.details?.cause, message: e?.message };
}

/** The storage-destination door: the probe object written at `endpoint`, in `bucket`. */
async function storageProbe(t: TestTenant, endpoint: string, bucket: string): Promise<Seen> {
  const b = await newBucket();
  const res = await call("/v1/storage-destinations", {
    key: t.api_key,
    body: {
      endpoint,
      bucket,
      region: b.region,
      access_key_id: b.access_key_id,
      secret_access_key: b.secret_access_key,
      path_style: true,
    },
  });
  const e = res.json.error;
  return { status: res.status, code: e?.code, retryable: e?.retryable, cause: e?.details?.cause, message: e?.message };
}

/** The webhook door: a test event to `url`; its first attempt, once made. */
async function webhookTest(t: TestTenant, url: string): Promise<{ cause: string; error: string }> {
  const created = await call("/v1/webhook-endpoints", { key: t.api_key, body: { url, events: ["task.succeeded"] } });
  expect(created.status, created.text).toBe(201);
  const sent = await call(`/v1/webhook-endpoints/${created.json.endpoint_id}/test`, { key: t.api_key, method: "POST" });
  expect(sent.status, sent.text).toBe(200);
  let delivery = sent.json;
  for (let i = 0; i < 250 && delivery.attempts.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    delivery = (await call(`/v1/webhook-deliveries/${sent.json.delivery_id}`, { key: t.api_key })).json;
  }
  const [attempt] = delivery.attempts;
  expect(attempt, JSON.stringify(delivery)).toBeDefined();
  return { cause: attempt.cause, error: attempt.error };
}

const unreachable = (cause: string) => ({ status: 503, code: "model_unavailable", retryable: true, cause });

describe("one kind, one class, at every door", () => {
  it("a closed port: connection_refused, 503 model_unavailable, retryable", async () => {
    const t = await tenant();
    const key = await keyProbe(t, "http://127.0.0.1:1");
    const bucket = await storageProbe(t, "http://127.0.0.1:1", "probe-bucket");
    const hook = await webhookTest(t, "http://127.0.0.1:1/hook");
    expect(key).toMatchObject(unreachable("connection_refused"));
    expect(bucket).toMatchObject(unreachable("connection_refused"));
    expect(hook.cause).toBe("connection_refused");
    for (const said of [key.message, bucket.message, hook.error]) {
      expect(said).toContain("127.0.0.1:1 refused the connection (connection_refused)");
      expect(said).not.toMatch(/internal error|reference/);
    }
  });

  it("HTTPS to a plain-HTTP port: tls_failed, 503 model_unavailable, retryable", async () => {
    const t = await tenant();
    const origin = `https://127.0.0.1:${receiverPort()}`;
    const key = await keyProbe(t, origin);
    const bucket = await storageProbe(t, origin, "probe-bucket");
    const hook = await webhookTest(t, `${origin}/hook/ok/tls`);
    expect(key).toMatchObject(unreachable("tls_failed"));
    expect(bucket).toMatchObject(unreachable("tls_failed"));
    expect(hook.cause).toBe("tls_failed");
    for (const said of [key.message, bucket.message, hook.error]) {
      expect(said).toMatch(/the TLS handshake with 127\.0\.0\.1:\d+ failed \(tls_failed\)/);
      expect(said).not.toMatch(/reference/);
    }
  });

  it("an answer that refuses what was sent (404): http_404, 422 invalid_request, not retryable", async () => {
    const t = await tenant();
    const key = await keyProbe(t, `${receiver()}/nothing-here`);
    const bucket = await storageProbe(t, receiver(), "nothing-here");
    const hook = await webhookTest(t, `${receiver()}/nothing-here`);
    const refused = { status: 422, code: "invalid_request", retryable: false, cause: "http_404" };
    expect(key).toMatchObject(refused);
    expect(bucket).toMatchObject(refused);
    expect(hook.cause).toBe("http_404");
  });

  it("a server that never answers: timed_out, 504 model_timeout, retryable", { timeout: 60_000 }, async () => {
    const t = await tenant();
    const [key, bucket, hook] = await Promise.all([
      keyProbe(t, `${receiver()}/silent`),
      storageProbe(t, receiver(), "silent"),
      webhookTest(t, `${receiver()}/silent/hook`),
    ]);
    const late = { status: 504, code: "model_timeout", retryable: true, cause: "timed_out" };
    expect(key).toMatchObject(late);
    expect(bucket).toMatchObject(late);
    expect(hook.cause).toBe("timed_out");
    for (const said of [key.message, bucket.message, hook.error]) expect(said).toMatch(/within \d+ s \(timed_out\)/);
  });

  it("a host name that does not resolve: dns_failed, 503 model_unavailable, retryable (at the probes below the URL policy)", async () => {
    const host = "https://nonexistent.invalid";
    const fal = adapterFor("fal");
    if (!fal) throw new Error("no fal adapter");
    const key = await verifyProviderKey(env as unknown as Env, fal, tenantKey("fal"), host).catch((e) => e);
    const b = await newBucket();
    const target = {
      endpoint: host,
      bucket: "probe-bucket",
      region: b.region,
      path_style: true,
      access_key_id: "a",
      secret_access_key: "s",
    };
    const bucket = await verifyDestination(target, "").catch((e) => e);
    for (const e of [key, bucket]) {
      expect(e).toBeInstanceOf(ApiError);
      const body = (e as ApiError).toBody("req_test");
      expect(body).toMatchObject({ code: "model_unavailable", retryable: true, details: { cause: "dns_failed" } });
      expect(body.message).toContain("the host name nonexistent.invalid did not resolve (dns_failed)");
    }
    const hookUrl = `${host}/hook`;
    const thrown = await fetch(hookUrl, { method: "POST" }).then(
      () => null,
      (e) => e,
    );
    const error = await attemptError(thrown, hookUrl, 15_000);
    expect(error).toBe("could not connect: the host name nonexistent.invalid did not resolve (dns_failed)");
    expect(causeInText(error)).toBe("dns_failed");
  });
});
