/**
 * Webhooks from the client: `verifyWebhook` accepts what the official Standard Webhooks package
 * signs (one secret, or two during a rotation) and refuses a wrong secret, a changed body, a stale
 * timestamp and missing headers; the endpoint and delivery methods call their routes; the CLI's
 * `webhooks deliveries` and `webhooks delivery` print the log and the attempts.
 */
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli/main.js";
import { verifyWebhook, WebhookVerificationError } from "../src/webhooks.js";
import { fakeFetch, json, testClient } from "./fake-fetch.js";

const OLD = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const NEW = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
const body = JSON.stringify({ type: "task.succeeded", created_at: "2026-11-26T10:00:00Z", data: { task_id: "task_1" } });

function signed(secrets: string[], at = new Date(), id = "evt_1") {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((s) => new Webhook(s).sign(id, at, body)).join(" "),
  };
}

describe("verifyWebhook", () => {
  it("accepts a message signed by the official package, and answers its id and parsed body", async () => {
    const v = await verifyWebhook<{ type: string }>(body, signed([OLD]), [OLD]);
    expect(v.id).toBe("evt_1");
    expect(v.payload.type).toBe("task.succeeded");
  });

  it("during a rotation's overlap, a receiver holding either secret accepts the two-signature message", async () => {
    const headers = signed([NEW, OLD]);
    await expect(verifyWebhook(body, headers, OLD)).resolves.toMatchObject({ id: "evt_1" });
    await expect(verifyWebhook(body, headers, [NEW])).resolves.toMatchObject({ id: "evt_1" });
    // Headers objects and raw bytes work as well.
    await expect(verifyWebhook(new TextEncoder().encode(body), new Headers(headers), [OLD, NEW])).resolves.toBeTruthy();
  });

  it("refuses a wrong secret, a changed body, a stale timestamp and missing headers", async () => {
    await expect(verifyWebhook(body, signed([OLD]), [NEW])).rejects.toThrow("No signature matches");
    await expect(verifyWebhook(body.replace("task_1", "task_2"), signed([OLD]), [OLD])).rejects.toThrow(WebhookVerificationError);
    const stale = signed([OLD], new Date(Date.now() - 10 * 60_000));
    await expect(verifyWebhook(body, stale, [OLD])).rejects.toThrow("more than 300 s from now");
    await expect(verifyWebhook(body, stale, [OLD], { now: Date.now() - 10 * 60_000 })).resolves.toBeTruthy();
    const { "webhook-id": _, ...noId } = signed([OLD]);
    await expect(verifyWebhook(body, noId, [OLD])).rejects.toThrow("Missing webhook-id");
  });
});

const DELIVERY = {
  object: "webhook_delivery",
  delivery_id: "whd_1",
  task_id: "task_1",
  target: "endpoint",
  endpoint_id: "we_1",
  event_id: "evt_1",
  event_type: "task.succeeded",
  status: "failed",
  created_at: "2026-11-26T10:00:00Z",
  finished_at: "2026-11-26T10:00:01Z",
};

describe("webhook methods", () => {
  it("call their routes", async () => {
    const { client, seen } = testClient({
      "POST /v1/webhook-endpoints": () => json(201, { endpoint_id: "we_1", secret: OLD }),
      "POST /v1/webhook-endpoints/we_1/recover": () => json(200, { deliveries: 2 }),
      "POST /v1/webhook-deliveries/whd_1/resend": () => json(200, { ...DELIVERY, attempts: [] }),
    });
    await client.webhooks.endpoints.create({ url: "https://example.com/h", events: ["*"] });
    await client.webhooks.endpoints.recover("we_1", new Date("2026-11-25T00:00:00Z"));
    await client.webhooks.deliveries.resend("whd_1");
    expect(seen.map((s) => `${s.method} ${s.url.pathname}`)).toEqual([
      "POST /v1/webhook-endpoints",
      "POST /v1/webhook-endpoints/we_1/recover",
      "POST /v1/webhook-deliveries/whd_1/resend",
    ]);
    expect(JSON.parse(seen[1]?.body ?? "")).toEqual({ since: "2026-11-25T00:00:00.000Z" });
  });
});

async function cli(argv: string[]) {
  const fake = fakeFetch({
    "GET /v1/webhook-deliveries": () => json(200, { object: "list", data: [DELIVERY], has_more: true, next_cursor: "c2" }),
    "GET /v1/webhook-deliveries/whd_1": () =>
      json(200, {
        ...DELIVERY,
        attempt_count: 1,
        next_attempt_at: null,
        last_error: "receiver answered HTTP 302 (redirects are not followed)",
        attempts: [
          {
            attempt: 1,
            attempted_at: "2026-11-26T10:00:00Z",
            http_status: 302,
            duration_ms: 12,
            error: "receiver answered HTTP 302 (redirects are not followed)",
            location: "https://elsewhere.example/",
            response_excerpt: "",
          },
        ],
      }),
  });
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { MEDIA_API_KEY: "sk_us_test_key", MEDIA_API_BASE_URL: "https://api.example" },
    fetch: fake.fetch,
  });
  return { code, stdout, stderr, seen: fake.seen };
}

describe("media-api webhooks", () => {
  it("deliveries lists the log with its filters and the next page's command", async () => {
    const r = await cli(["webhooks", "deliveries", "--status", "failed", "--endpoint_id", "we_1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(Object.fromEntries(r.seen[0]!.url.searchParams)).toEqual({ status: "failed", endpoint_id: "we_1" });
    expect(r.stdout).toMatch(/whd_1\s+failed\s+task\.succeeded\s+we_1\s+task_1/);
    expect(r.stdout).toContain("media-api webhooks deliveries --cursor c2");
  });

  it("delivery prints every attempt; a missing id is a usage error", async () => {
    const r = await cli(["webhooks", "delivery", "whd_1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/1\s+2026-11-26T10:00:00Z\s+302\s+12\s+receiver answered HTTP 302/);
    expect((await cli(["webhooks", "delivery"])).code).toBe(2);
    expect((await cli(["webhooks", "nope"])).code).toBe(2);
  });
});
