/**
 * Uploads kept for the tenant's retention: the upload shows `expires_at`; past it no read serves it
 * and it is no task input, and the tenant's AccountObject alarm deletes it from R2.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { artifactKey } from "../../src/media/artifacts";
import { admin, BASE, call, expectError, newTenant, send, type TestTenant } from "../helpers/api";
import { png } from "../helpers/media-fixtures";
import { newKey } from "../helpers/tasks";

const DAY_MS = 24 * 60 * 60 * 1000;

afterEach(() => {
  vi.useRealTimers();
});

async function upload(t: TestTenant) {
  const res = await send(
    new Request(`${BASE}/v1/uploads`, {
      method: "POST",
      body: await png(64, 64),
      headers: { Authorization: `Bearer ${t.api_key}` },
    }),
  );
  expect(res.status, res.text).toBe(201);
  return res.json;
}

const account = (t: TestTenant) => env.ACCOUNTS.getByName(t.tenant_id);

const useAsInput = (t: TestTenant, id: string) =>
  call("/v1/images/edits", {
    key: t.api_key,
    body: { model: "flux-2-pro", prompt: "make it blue", images: [{ type: "artifact", artifact_id: id }] },
    headers: { "Idempotency-Key": newKey() },
  });

describe("uploads", () => {
  it("show expires_at: the tenant's retention after the upload", async () => {
    const t = await newTenant();
    await admin(`/admin/v1/tenants/${t.tenant_id}/settings`, { output_retention_days: 5 });
    const before = Date.now();
    const up = await upload(t);
    const at = Date.parse(up.expires_at);
    expect(at).toBeGreaterThanOrEqual(before + 5 * DAY_MS);
    expect(at).toBeLessThanOrEqual(Date.now() + 5 * DAY_MS);
    const head = await env.ARTIFACTS.head(artifactKey(up.artifact_id));
    expect(head?.customMetadata?.expires_at).toBe(up.expires_at);
    // The tenant's account holds the upload's end, and its alarm is set no later.
    const alarm = await runInDurableObject(account(t), (_o, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm as number).toBeLessThanOrEqual(at);
  });

  it("past expires_at are refused at once, then deleted by the tenant's alarm", async () => {
    const t = await newTenant();
    await admin(`/admin/v1/tenants/${t.tenant_id}/settings`, { output_retention_days: 1 });
    const up = await upload(t);
    const kept = await upload(t);
    expect((await call(`/v1/artifacts/${up.artifact_id}`, { key: t.api_key })).status).toBe(200);
    // An alarm before its end leaves it.
    await runDurableObjectAlarm(account(t));
    expect(await env.ARTIFACTS.head(artifactKey(up.artifact_id))).not.toBeNull();

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(Date.parse(up.expires_at) + 1000));
    expectError(await call(`/v1/artifacts/${up.artifact_id}`, { key: t.api_key }), 404, "artifact_not_found");
    expectError(await useAsInput(t, up.artifact_id), 404, "artifact_not_found", "/images/0/artifact_id");
    expect(await env.ARTIFACTS.head(artifactKey(up.artifact_id))).not.toBeNull();

    await runDurableObjectAlarm(account(t));
    expect(await env.ARTIFACTS.head(artifactKey(up.artifact_id))).toBeNull();
    // The other upload, a second later, is still stored (and expired too: refused, gone at the next alarm).
    expect(Date.parse(kept.expires_at)).toBeGreaterThanOrEqual(Date.parse(up.expires_at));
    const rows = await runInDurableObject(account(t), (_o, state) =>
      state.storage.sql.exec<{ artifact_id: string }>("SELECT artifact_id FROM upload_expiry").toArray(),
    );
    expect(rows.map((r) => r.artifact_id)).not.toContain(up.artifact_id);
  });

  it("an upload deleted by its owner before its end leaves nothing for the alarm to fail on", async () => {
    const t = await newTenant();
    const up = await upload(t);
    expect((await call(`/v1/artifacts/${up.artifact_id}`, { key: t.api_key, method: "DELETE" })).status).toBe(200);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(Date.parse(up.expires_at) + 1000));
    await runDurableObjectAlarm(account(t));
    const rows = await runInDurableObject(account(t), (_o, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM upload_expiry").toArray(),
    );
    expect(rows[0]?.n).toBe(0);
  });
});
