/**
 * Runs against `[env.us]` of wrangler.toml, the configuration a region deploys with: what local
 * development allows (loopback callbacks, fault injection) is refused here.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, newTenant } from "../helpers/api";
import { createImage, waitFor } from "../helpers/tasks";

describe("regional production configuration", () => {
  it("serves its own region", async () => {
    expect(env.REGION).toBe("us");
    expect(env.ALLOW_LOOPBACK_URLS).toBe("false");
    expect((await call("/healthz")).json).toEqual({ status: "ok", region: "us" });
  });

  it.each(["http://127.0.0.1:9/hook", "http://localhost:9/hook", "https://127.0.0.1/hook", `${env.RECEIVER_URL}/hook/ok/prod`])(
    "refuses the loopback callback %s",
    async (url) => {
      const t = await newTenant({ mode: "test" });
      expectError(await createImage(t, { prompt: "x", callback_url: url }), 422, "invalid_request", "/callback_url");
    },
  );

  it("ignores sandbox fault injection", async () => {
    const t = await newTenant({ mode: "test" });
    const created = await createImage(t, {
      prompt: "x",
      canvas: { type: "preset", tier: "1K", aspect: "1:1" },
      metadata: { sandbox_fault: "provider_error" },
    });
    expect(created.status).toBe(202);
    expect((await waitFor(t, created.json.task_id)).status).toBe("succeeded");
  });
});
