/**
 * Request and answer bodies in the log through the public API: none until the operator turns them
 * on; under `full` the first 64 KiB of each; under `redacted` data URIs and long text replaced by
 * their digest and size; secrets replaced in every mode; a chat call replayed from its logged body
 * (refused when redaction left it not whole); the operator's setting and its refusals.
 */
import { describe, expect, it } from "vitest";
import { admin, call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { auditOf } from "../helpers/safety";
import { createImage, newKey } from "../helpers/tasks";

const PERMISSIONS = [
  "catalog:read",
  "tasks:read",
  "tasks:write",
  "chat",
  "logs:read",
  "keys:manage",
  "webhooks:manage",
  "providers:manage",
  "storage:manage",
];

const settings = (tenantId: string, body: unknown) => admin(`/admin/v1/tenants/${tenantId}/settings`, body);

async function loggingTenant(mode: "off" | "redacted" | "full"): Promise<TestTenant> {
  const t = await newTenant({ credits: "10000", permissions: PERMISSIONS });
  if (mode !== "off") {
    const set = await settings(t.tenant_id, { request_body_logging: mode });
    expect(set.status, set.text).toBe(200);
    expect(set.json.request_body_logging).toBe(mode);
  }
  return t;
}

/** The entry is written just after the answer, in batches: poll for it as a client would. */
async function detailOf(t: TestTenant, res: { headers: Headers }) {
  const id = res.headers.get("X-Request-Id") as string;
  for (let i = 0; i < 100; i++) {
    const d = await call(`/v1/requests/${id}`, { key: t.api_key });
    if (d.status === 200) return d.json;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`request ${id} was not logged`);
}

const chat = (t: TestTenant, content: unknown, extra: Record<string, unknown> = {}) =>
  call("/v1/chat/completions", {
    key: t.api_key,
    body: { model: "gpt-6-luna", messages: [{ role: "user", content }], max_tokens: 40, ...extra },
  });

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const bytesOf = (text: string) => new TextEncoder().encode(text).byteLength;

describe("bodies off (the default)", () => {
  it("keeps no body", async () => {
    const t = await loggingTenant("off");
    expect((await admin(`/admin/v1/tenants/${t.tenant_id}`)).json.request_body_logging).toBe("off");
    const res = await chat(t, "no bodies please");
    expect(res.status, res.text).toBe(200);
    const d = await detailOf(t, res);
    expect(d).not.toHaveProperty("request_body");
    expect(d).not.toHaveProperty("response_body");
  });
});

describe("bodies full", () => {
  it("keeps a chat call's and a create's request and answer as JSON text", async () => {
    const t = await loggingTenant("full");
    const res = await chat(t, "keep my words");
    expect(res.status, res.text).toBe(200);
    const d = await detailOf(t, res);
    expect(JSON.parse(d.request_body).messages).toEqual([{ role: "user", content: "keep my words" }]);
    expect(JSON.parse(d.response_body)).toMatchObject({ id: res.json.id, object: "chat.completion" });

    const created = await createImage(t, { model: "flux-2-pro", prompt: "a lighthouse kept in the log" });
    expect(created.status, created.text).toBe(202);
    const c = await detailOf(t, created);
    expect(JSON.parse(c.request_body)).toMatchObject({ model: "flux-2-pro", prompt: "a lighthouse kept in the log" });
    expect(JSON.parse(c.response_body)).toMatchObject({ object: "task", task_id: created.json.task_id });
  });

  it("keeps the first 64 KiB of a body, no more", async () => {
    const t = await loggingTenant("full");
    const prompt = `${"é".repeat(20_000)}${"a".repeat(40_000)}`;
    expect(bytesOf(prompt)).toBeGreaterThan(65_536);
    const res = await chat(t, prompt);
    const d = await detailOf(t, res);
    const kept = bytesOf(d.request_body);
    expect(kept).toBeLessThanOrEqual(65_536);
    expect(kept).toBeGreaterThan(65_000);
    // The head as sent, whole characters only (an "é" is never split).
    expect(d.request_body.startsWith(`{"model":"gpt-6-luna","messages":[{"role":"user","content":"${"é".repeat(100)}`)).toBe(
      true,
    );
    expect(d.request_body).not.toContain("\uFFFD");
  });
});

describe("secrets", () => {
  for (const mode of ["redacted", "full"] as const) {
    it(`never appear in a body (${mode})`, async () => {
      const t = await loggingTenant(mode);
      const logged: string[] = [];
      const keep = async (res: { headers: Headers }) => {
        const d = await detailOf(t, res);
        logged.push(`${d.request_body ?? ""}\n${d.response_body ?? ""}`);
        return d;
      };

      const providerKey = `sk-proj-${crypto.randomUUID().replaceAll("-", "")}`;
      const put = await call("/v1/provider-keys/openai", {
        key: t.api_key,
        method: "PUT",
        body: { api_key: providerKey, base_url: "https://127.0.0.1/v1", mode: "prefer" },
      });
      expect((await keep(put)).request_body).toContain("[secret]");

      const hook = await call("/v1/webhook-endpoints", {
        key: t.api_key,
        body: { url: "https://hooks.example.com/log", events: ["task.succeeded"] },
      });
      expect(hook.status, hook.text).toBe(201);
      const whsec = hook.json.secret as string;
      expect(whsec).toMatch(/^whsec_/);
      expect((await keep(hook)).response_body).toContain('"secret":"[secret]"');

      const child = await call("/v1/keys", { key: t.api_key, body: { name: "child" } });
      expect(child.status, child.text).toBe(201);
      const childKey = child.json.api_key as string;
      expect((await keep(child)).response_body).toContain('"api_key":"[secret]"');

      const secretAccessKey = `s3cret/${crypto.randomUUID()}`;
      const dest = await call("/v1/storage-destinations", {
        key: t.api_key,
        body: {
          endpoint: "https://127.0.0.1",
          bucket: "log-bucket",
          region: "auto",
          access_key_id: "AKIAEXAMPLEKEYID0001",
          secret_access_key: secretAccessKey,
        },
      });
      expect((await keep(dest)).request_body).toContain('"secret_access_key":"[secret]"');

      const pasted = await chat(t, `my key is ${t.api_key}, and my hook's is ${whsec}; keep them`);
      expect(pasted.status, pasted.text).toBe(200);
      expect((await keep(pasted)).request_body).toContain("my key is [secret], and my hook's is [secret]; keep them");

      const all = logged.join("\n");
      for (const secret of [providerKey, whsec, childKey, secretAccessKey, "AKIAEXAMPLEKEYID0001", t.api_key]) {
        expect(all).not.toContain(secret);
      }
    });
  }
});

describe("bodies redacted", () => {
  it("replaces data URIs and text over 256 characters by their sha256 and size; short text stays", async () => {
    const t = await loggingTenant("redacted");
    const long = `Describe, with care: ${"a quiet harbour at dusk, ".repeat(12)}ünïcode.`;
    expect(long.length).toBeGreaterThan(256);
    const dataUri = `data:image/png;base64,${"iVBORw0KGgo".repeat(4)}`;
    const res = await chat(t, [
      { type: "text", text: long },
      { type: "text", text: "short stays" },
      { type: "image_url", image_url: { url: dataUri } },
    ]);
    const d = await detailOf(t, res);
    const [message] = JSON.parse(d.request_body).messages;
    expect(message.content[0].text).toEqual({ redacted: true, sha256: await sha256Hex(long), bytes: bytesOf(long) });
    expect(message.content[1].text).toBe("short stays");
    expect(message.content[2].image_url.url).toEqual({
      redacted: true,
      sha256: await sha256Hex(dataUri),
      bytes: bytesOf(dataUri),
    });
    expect(d.request_body).not.toContain("harbour");
  });

  it("refuses to replay a chat call whose body lost text to redaction", async () => {
    const t = await loggingTenant("redacted");
    const res = await chat(t, "x".repeat(300));
    expect(res.status, res.text).toBe(200);
    const d = await detailOf(t, res);
    const again = await call(`/v1/requests/${d.request_id}/replay`, {
      key: t.api_key,
      body: {},
      headers: { "Idempotency-Key": newKey() },
    });
    expectError(again, 422, "invalid_request", "request_id");
    expect(again.json.error.message).toContain("not logged whole");
  });
});

describe("replay from a full body", () => {
  it("runs a chat call again, and on another model when asked; the new entries name the original", async () => {
    const t = await loggingTenant("full");
    const res = await chat(t, "say it twice");
    expect(res.status, res.text).toBe(200);
    const original = await detailOf(t, res);

    const again = await call(`/v1/requests/${original.request_id}/replay`, {
      key: t.api_key,
      body: {},
      headers: { "Idempotency-Key": newKey() },
    });
    expect(again.status, again.text).toBe(200);
    expect(again.json.object).toBe("chat.completion");
    expect(again.json.id).not.toBe(res.json.id);
    const replayed = await detailOf(t, again);
    expect(replayed).toMatchObject({ replay_of: original.request_id, route: "POST /v1/chat/completions", model: "gpt-6-luna" });
    expect(JSON.parse(replayed.request_body).messages).toEqual([{ role: "user", content: "say it twice" }]);

    const other = await call(`/v1/requests/${original.request_id}/replay`, {
      key: t.api_key,
      body: { model: "gemini-3.8-flash" },
      headers: { "Idempotency-Key": newKey() },
    });
    expect(other.status, other.text).toBe(200);
    expect(other.json.object).toBe("chat.completion");
    const moved = await detailOf(t, other);
    expect(moved).toMatchObject({ replay_of: original.request_id, model: "gemini-3.8-flash" });
  });
});

describe("the operator's setting", () => {
  it("sets each, shows them with the tenant and audits each concern", async () => {
    const t = await newTenant();
    const before = (await admin(`/admin/v1/tenants/${t.tenant_id}`)).json;
    expect(before).toMatchObject({ request_body_logging: "off", request_log_retention_days: 30 });
    const set = await settings(t.tenant_id, {
      request_body_logging: "full",
      request_log_retention_days: 7,
      output_retention_days: 9,
    });
    expect(set.status, set.text).toBe(200);
    expect(set.json).toMatchObject({ request_body_logging: "full", request_log_retention_days: 7, output_retention_days: 9 });
    expect((await admin(`/admin/v1/tenants/${t.tenant_id}`)).json).toMatchObject({
      request_body_logging: "full",
      request_log_retention_days: 7,
      output_retention_days: 9,
    });
    const only = await settings(t.tenant_id, { request_log_retention_days: 365 });
    expect(only.json).toMatchObject({ request_body_logging: "full", request_log_retention_days: 365, output_retention_days: 9 });
    const audit = await auditOf(t.tenant_id, "tenant.settings_set");
    expect(audit.map((e: any) => e.details)).toEqual(
      expect.arrayContaining([
        { output_retention_days: 9 },
        { request_body_logging: "full", request_log_retention_days: 7 },
        { request_log_retention_days: 365 },
      ]),
    );
    expect(audit.every((e: any) => e.actor.type === "operator")).toBe(true);
  });

  it("refuses a bad value at its field, an empty body, an unknown field, and changes nothing", async () => {
    const t = await newTenant();
    for (const value of ["on", "", null, 1, "FULL"]) {
      expectError(await settings(t.tenant_id, { request_body_logging: value }), 422, "invalid_request", "/request_body_logging");
    }
    for (const days of [0, 366, 2.5, "7", null]) {
      expectError(
        await settings(t.tenant_id, { request_log_retention_days: days }),
        422,
        "invalid_request",
        "/request_log_retention_days",
      );
    }
    expectError(
      await settings(t.tenant_id, { request_body_logging: "full", request_log_retention_days: 0 }),
      422,
      "invalid_request",
      "/request_log_retention_days",
    );
    expectError(await settings(t.tenant_id, {}), 422, "invalid_request");
    expectError(await settings(t.tenant_id, { request_body_logging: "full", colour: "red" }), 422, "invalid_request");
    expect((await admin(`/admin/v1/tenants/${t.tenant_id}`)).json).toMatchObject({
      request_body_logging: "off",
      request_log_retention_days: 30,
    });
    expectError(await settings("ten_00000000000000000000000000", { request_body_logging: "full" }), 404, "not_found");
  });
});
