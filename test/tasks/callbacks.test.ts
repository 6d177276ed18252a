import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { checkOutsideUrl } from "../../src/lib/url-policy";
import { signatureHeaders } from "../../src/webhooks/callback-signing";
import { admin, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, fastForward, getTask, taskEvents, waitFor } from "../helpers/tasks";

let t: TestTenant;
let signing: { id: string; secret: string };
beforeAll(async () => {
  t = await newTenant({ credits: "10000" });
  signing = (await admin(`/admin/v1/tenants/${t.tenant_id}/callback-signing-keys`, {})).json;
});

let n = 0;
const hook = (mode: string, query = "") => {
  const name = `r${Date.now()}-${++n}`;
  return { name, url: `${env.RECEIVER_URL}/hook/${mode}/${name}${query}` };
};
const deliveries = async (name: string): Promise<{ headers: Record<string, string>; body: string }[]> =>
  (await fetch(`${env.RECEIVER_URL}/deliveries/${name}`)).json();

describe("Standard Webhooks signature", () => {
  it("matches the known-answer vector", () => {
    const h = signatureHeaders(
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      "msg_p5jXN8AQM9LWM0D4loKWxJek",
      1614265330,
      '{"test": 2432232314}',
    );
    expect(h["webhook-signature"]).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });
});

describe("callbacks", () => {
  it("POSTs the final envelope, signed, to the callback URL; the envelope reports the delivery", async () => {
    const h = hook("ok");
    const created = await createImage(t, { prompt: "notify me", callback_url: h.url, callback_signing_key_id: signing.id });
    expect(created.status, created.text).toBe(202);
    expect(created.json.callback).toMatchObject({ url: h.url, status: "pending", attempt_count: 0 });
    const done = await waitFor(t, created.json.task_id, (x) => x.callback?.status === "delivered");
    expect(done.callback).toMatchObject({ status: "delivered", attempt_count: 1, last_error: null });
    expect(done.callback.delivered_at).toBeTruthy();
    const [d] = await deliveries(h.name);
    expect(d).toBeDefined();
    const payload = new Webhook(signing.secret).verify(d!.body, {
      "webhook-id": d!.headers["webhook-id"] as string,
      "webhook-timestamp": d!.headers["webhook-timestamp"] as string,
      "webhook-signature": d!.headers["webhook-signature"] as string,
    }) as any;
    expect(payload.task_id).toBe(created.json.task_id);
    expect(payload.status).toBe("succeeded");
    expect(payload.output.images.length).toBe(1);
  });

  it("unsigned delivery when no signing key is chosen", async () => {
    const h = hook("ok");
    const created = await createImage(t, { prompt: "unsigned", callback_url: h.url });
    await waitFor(t, created.json.task_id, (x) => x.callback?.status === "delivered");
    const [d] = await deliveries(h.name);
    expect(d!.headers["webhook-signature"]).toBeUndefined();
    expect(JSON.parse(d!.body).status).toBe("succeeded");
  });

  it("retries on the schedule with the same webhook-id until a 2xx", async () => {
    const h = hook("fail", "?times=2");
    const created = await createImage(t, { prompt: "flaky receiver", callback_url: h.url, callback_signing_key_id: signing.id });
    const id = created.json.task_id;
    let task = await waitFor(t, id, (x) => x.callback?.attempt_count >= 1 && x.callback.last_error !== null);
    expect(task.callback).toMatchObject({ status: "pending", attempt_count: 1, last_error: "receiver answered HTTP 500" });
    const { runInDurableObject } = await import("cloudflare:test");
    const { taskStub } = await import("../helpers/tasks");
    // The second attempt waits 5 s per the schedule.
    await runInDurableObject(taskStub(id), async (_o, state) => {
      const rec = JSON.parse(state.storage.sql.exec<{ record: string }>("SELECT record FROM task").one().record);
      expect(rec.callback.next_attempt_at - Date.now()).toBeGreaterThan(3_000);
      expect(rec.callback.next_attempt_at - Date.now()).toBeLessThanOrEqual(5_000);
    });
    await fastForward(id);
    await fastForward(id);
    task = (await getTask(t, id)).json;
    expect(task.callback).toMatchObject({ status: "delivered", attempt_count: 3 });
    const all = await deliveries(h.name);
    expect(all).toHaveLength(3);
    expect(new Set(all.map((d) => d.headers["webhook-id"])).size).toBe(1);
  });

  it("410 stops delivery; a redirect is a failure and is not followed; Retry-After is honoured", async () => {
    const gone = hook("gone");
    const g = await waitFor(t, (await createImage(t, { prompt: "gone", callback_url: gone.url })).json.task_id, (x) =>
      ["failed", "delivered"].includes(x.callback?.status),
    );
    expect(g.callback).toMatchObject({ status: "failed", attempt_count: 1 });
    expect(g.callback.last_error).toContain("410");

    const redirect = hook("redirect");
    const r = await waitFor(
      t,
      (await createImage(t, { prompt: "redirect", callback_url: redirect.url })).json.task_id,
      // The envelope shows an attempt under way as "pending": wait for its outcome.
      (x) => x.callback?.attempt_count >= 1 && x.callback.last_error !== null,
    );
    expect(r.callback).toMatchObject({ status: "pending", last_error: "receiver answered HTTP 302" });
    expect(await deliveries(redirect.name)).toHaveLength(1);

    const busy = hook("busy");
    const b = await waitFor(
      t,
      (await createImage(t, { prompt: "busy", callback_url: busy.url })).json.task_id,
      // The envelope shows an attempt under way as "pending": wait for its outcome.
      (x) => x.callback?.attempt_count >= 1 && x.callback.last_error !== null,
    );
    expect(b.callback.last_error).toBe("receiver answered HTTP 503");
    const { runInDurableObject } = await import("cloudflare:test");
    const { taskStub } = await import("../helpers/tasks");
    await runInDurableObject(taskStub(b.task_id), async (_o, state) => {
      const rec = JSON.parse(state.storage.sql.exec<{ record: string }>("SELECT record FROM task").one().record);
      expect(rec.callback.next_attempt_at - Date.now()).toBeGreaterThan(110_000);
    });
  });

  it("gives up after the last scheduled attempt", async () => {
    const h = hook("fail", "?times=100");
    const id = (await createImage(t, { prompt: "never", callback_url: h.url })).json.task_id;
    await waitFor(t, id, (x) => x.callback?.attempt_count >= 1 && x.callback.last_error !== null);
    for (let i = 0; i < 8; i++) await fastForward(id);
    const task = (await getTask(t, id)).json;
    expect(task.callback.status).toBe("failed");
    expect(task.callback.attempt_count).toBe(8);
    expect(task.callback.last_error).toContain("gave up after 8 attempts");
    expect((await taskEvents(id)).filter((e) => e.kind === "callback_attempt")).toHaveLength(8);
  });
});

describe("callback validation", () => {
  it("a signing key without a callback_url: 422 callback_url_required", async () => {
    expectError(
      await createImage(t, { prompt: "x", callback_signing_key_id: signing.id }),
      422,
      "callback_url_required",
      "/callback_signing_key_id",
    );
  });

  it("an unknown or another tenant's signing key: 404 callback_signing_key_not_found", async () => {
    expectError(
      await createImage(t, { prompt: "x", callback_url: "https://example.com/h", callback_signing_key_id: "whk_unknown" }),
      404,
      "callback_signing_key_not_found",
    );
    const other = await newTenant();
    const theirs = (await admin(`/admin/v1/tenants/${other.tenant_id}/callback-signing-keys`, {})).json;
    expectError(
      await createImage(t, { prompt: "x", callback_url: "https://example.com/h", callback_signing_key_id: theirs.id }),
      404,
      "callback_signing_key_not_found",
    );
  });

  it("a retired key: 422 callback_signing_key_inactive", async () => {
    const k = (await admin(`/admin/v1/tenants/${t.tenant_id}/callback-signing-keys`, {})).json;
    await admin(`/admin/v1/callback-signing-keys/${k.id}/retire`, {});
    expectError(
      await createImage(t, { prompt: "x", callback_url: "https://example.com/h", callback_signing_key_id: k.id }),
      422,
      "callback_signing_key_inactive",
    );
  });

  it.each([
    "http://example.com/h",
    "https://user:pw@example.com/h",
    "https://10.0.0.1/h",
    "https://169.254.169.254/latest",
    "not a url",
  ])("refuses %s with 422 at /callback_url", async (url) => {
    expectError(await createImage(t, { prompt: "x", callback_url: url }), 422, "invalid_request", "/callback_url");
  });
});

describe("outside URL policy", () => {
  const prod = { allowLoopback: false };
  const local = { allowLoopback: true };
  it.each([
    "http://127.0.0.1:8080/h",
    "https://127.0.0.1/h",
    "https://localhost/h",
    "https://localhost./h",
    "https://2130706433/h",
    "https://0177.0.0.1/h",
    "https://0x7f000001/h",
    "https://[::1]/h",
    "https://[::ffff:127.0.0.1]/h",
    "https://[::ffff:7f00:1]/h",
    "https://10.1.2.3/h",
    "https://172.16.0.1/h",
    "https://192.168.1.1/h",
    "https://100.64.0.1/h",
    "https://169.254.169.254/h",
    "https://0.0.0.0/h",
    "https://[fd00::1]/h",
    "https://[fe80::1]/h",
    "https://metadata.google.internal/h",
    "https://intranet/h",
    "ftp://example.com/h",
  ])("production refuses %s", (url) => {
    expect(checkOutsideUrl(url, prod).ok).toBe(false);
  });

  it("production accepts public HTTPS hosts", () => {
    expect(checkOutsideUrl("https://hooks.example.com/tasks?x=1", prod).ok).toBe(true);
    expect(checkOutsideUrl("https://93.184.216.34/h", prod).ok).toBe(true);
  });

  it("local development allows http://127.0.0.1 and http://localhost only", () => {
    expect(checkOutsideUrl("http://127.0.0.1:9000/h", local).ok).toBe(true);
    expect(checkOutsideUrl("http://localhost:9000/h", local).ok).toBe(true);
    expect(checkOutsideUrl("http://10.0.0.1/h", local).ok).toBe(false);
    expect(checkOutsideUrl("http://example.com/h", local).ok).toBe(false);
  });

  it("the regional deployments' configuration refuses loopback", async () => {
    // wrangler.toml sets ALLOW_LOOPBACK_URLS = "false" in [env.us] and [env.eu]; policyFrom reads it.
    const { policyFrom } = await import("../../src/lib/url-policy");
    expect(policyFrom({ ALLOW_LOOPBACK_URLS: "false" }).allowLoopback).toBe(false);
    expect(policyFrom({}).allowLoopback).toBe(false);
    expect(checkOutsideUrl("http://127.0.0.1:9000/h", policyFrom({ ALLOW_LOOPBACK_URLS: "false" })).ok).toBe(false);
  });
});
