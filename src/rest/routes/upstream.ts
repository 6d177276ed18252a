/**
 * Endpoints that upstream providers call, not clients: the signed input URLs they read a task's
 * media from, and the webhooks with which they say a job ended. Neither takes an API key: the
 * first is authorised by its signature, the second by the provider's own webhook signature, and
 * a webhook only wakes the task (polling decides the outcome).
 */
import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { STORED_BYTES_HEADERS } from "../../http/stored-bytes";
import { verifyInputUrl } from "../../services/media";
import { adapterFor, providerConfig } from "../../services/providers";
import { taskStub } from "../../services/tasks";

export const upstreamRoutes = new Hono<AppEnv>();

upstreamRoutes.get("/inputs/:token", async (c) => {
  const check = await verifyInputUrl(c.env, c.req.param("token"), c.req.query("expires") ?? null, c.req.query("sig") ?? null);
  if (!check.ok) return c.text(check.reason, check.status);
  const object = await c.env.ARTIFACTS.get(check.key);
  if (!object) return c.text("unknown input", 404);
  return new Response(object.body, {
    headers: {
      ...STORED_BYTES_HEADERS,
      "Content-Type": object.httpMetadata?.contentType ?? "application/octet-stream",
      "Content-Length": String(object.size),
      // The URL is a capability: keep it out of shared caches and of referrers.
      "Cache-Control": "private, max-age=300",
      "Referrer-Policy": "no-referrer",
    },
  });
});

upstreamRoutes.post("/webhooks/providers/:provider/:task_id", async (c) => {
  const name = c.req.param("provider");
  const adapter = adapterFor(name);
  const config = adapter ? providerConfig(c.env, name, adapter.defaultBaseUrl) : null;
  if (!adapter?.verifyWebhook || !config) return c.text("unknown provider", 404);
  const body = new Uint8Array(await c.req.arrayBuffer());
  const verified = await adapter.verifyWebhook(c.req.raw, body, config).catch(() => null);
  if (!verified) return c.text("signature not valid", 401);
  let stub: ReturnType<typeof taskStub>;
  try {
    stub = taskStub(c.env, c.req.param("task_id"));
  } catch {
    return c.text("unknown task", 404);
  }
  // Answered 200 whatever the task says, so the provider stops retrying; the task only polls sooner.
  const woke = await stub.wake(name, verified.job_id);
  return c.json({ received: true, woke });
});
