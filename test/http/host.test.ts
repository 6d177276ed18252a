/**
 * Absolute URLs come from the deployment's configured public address, never from the request:
 * a create sent with `Host: evil.example` still links to PUBLIC_BASE_URL, in the envelope, its
 * artifact URLs and the callback's body.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newTenant } from "../helpers/api";
import { newKey, waitFor } from "../helpers/tasks";

describe("Host header", () => {
  it("never reaches links, artifact URLs or callbacks", async () => {
    const t = await newTenant();
    const res = await exports.default.fetch(
      new Request("https://evil.example/v1/images/generations", {
        method: "POST",
        headers: {
          Authorization: `Bearer ${t.api_key}`,
          "Content-Type": "application/json",
          "Idempotency-Key": newKey(),
          Host: "evil.example",
          "X-Forwarded-Host": "evil.example",
        },
        body: JSON.stringify({
          prompt: "host",
          canvas: { type: "preset", tier: "1K", aspect: "1:1" },
          callback_url: `${env.RECEIVER_URL}/hook/ok/host-header`,
        }),
      }),
    );
    expect(res.status).toBe(202);
    const created = (await res.json()) as any;
    expect(created.links.self).toBe(`${env.PUBLIC_BASE_URL}/v1/tasks/${created.task_id}`);
    expect(JSON.stringify(created)).not.toContain("evil.example");
    const done = await waitFor(t, created.task_id, (x) => x.status === "succeeded" && x.callback?.status === "delivered");
    expect(done.output.artifacts[0].url.startsWith(`${env.PUBLIC_BASE_URL}/v1/artifacts/`)).toBe(true);
    const deliveries = (await (await fetch(`${env.RECEIVER_URL}/deliveries/host-header`)).json()) as { body: string }[];
    expect(deliveries.length).toBeGreaterThan(0);
    expect(deliveries.every((d) => !d.body.includes("evil.example"))).toBe(true);
  });
});
