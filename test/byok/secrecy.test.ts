/**
 * A tenant's provider key is never shown back: not in any answer (the put, the list, the tasks and
 * their events, the errors), not in a log line (everything the Worker and its objects print is
 * captured here), not in the audit log and not in the mail about it.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { admin, call } from "../helpers/api";
import { freshEmail, tenantWithOwner } from "../helpers/console";
import { follow, newTag } from "../providers/harness";
import { createImageTask, fakeUrl, putKey, revokeAtProvider, tenantKey } from "./helpers";

const printed: string[] = [];
beforeEach(() => {
  printed.length = 0;
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      printed.push(args.map((a) => (typeof a === "string" ? a : (JSON.stringify(a) ?? String(a)))).join(" "));
    });
  }
});
afterEach(() => vi.restoreAllMocks());

describe("a tenant's provider key stays secret", () => {
  it("appears in no answer, log line, audit entry or mail", async () => {
    const email = freshEmail("byok-secret");
    const { tenant_id } = await tenantWithOwner(email);
    const k = await admin(`/admin/v1/tenants/${tenant_id}/api-keys`, {
      permissions: ["tasks:read", "tasks:write", "providers:manage"],
    });
    const t = { tenant_id, api_key: k.json.api_key as string, key_id: k.json.key_id as string };
    const answers: string[] = [];
    const keep = <T extends { text: string }>(r: T) => {
      answers.push(r.text);
      return r;
    };

    const refused = `tenant-nope-${crypto.randomUUID()}`;
    keep(await putKey(t, "openai", { api_key: refused, base_url: fakeUrl("openai"), mode: "prefer" }));
    const key = tenantKey("fal");
    expect(keep(await putKey(t, "fal", { api_key: key, base_url: fakeUrl("fal"), mode: "only" })).status).toBe(200);
    keep(await call("/v1/provider-keys", { key: t.api_key }));

    // A task served on the key, then one refused after the key was revoked at the provider.
    const ok = await createImageTask(t, "flux-2-pro", newTag("byok-secret-ok"));
    answers.push(JSON.stringify((await follow(t, ok.task_id)).task));
    keep(await call(`/v1/tasks/${ok.task_id}/events`, { key: t.api_key }));
    await revokeAtProvider("fal", key);
    const bad = await createImageTask(t, "flux-2-pro", newTag("byok-secret-bad"));
    const failed = (await follow(t, bad.task_id)).task;
    expect(failed.error.details.reason).toBe("provider_key_rejected");
    answers.push(JSON.stringify(failed));
    keep(await call(`/v1/tasks/${bad.task_id}/events`, { key: t.api_key }));
    keep(await call("/v1/provider-keys", { key: t.api_key }));
    keep(await call("/v1/tasks", { key: t.api_key }));

    const audit = JSON.stringify(await env.ACCOUNTS.getByName(tenant_id).audit({ limit: 100 }));
    await expect
      .poll(async () => (await admin(`/admin/v1/outbox?to=${encodeURIComponent(email)}`)).json.data.length)
      .toBeGreaterThan(0);
    const mail = JSON.stringify((await admin(`/admin/v1/outbox?to=${encodeURIComponent(email)}`)).json);

    // The capture works: the outbox prints the mail about the refused key.
    expect(printed.some((line) => line.includes("key was refused"))).toBe(true);
    for (const secret of [key, refused]) {
      for (const text of [...answers, audit, mail, ...printed]) expect(text).not.toContain(secret);
    }
    expect(audit).toContain("provider_key.put");
  });
});

describe("a provider key quoted back encoded", () => {
  it("is redacted from the task, its events and the logs in every form the upstream used", async () => {
    const k = await admin("/admin/v1/tenants", { name: "echo tenant", credits: "1000" });
    const key = await admin(`/admin/v1/tenants/${k.json.tenant_id}/api-keys`, {
      permissions: ["tasks:read", "tasks:write", "providers:manage"],
    });
    const t = { tenant_id: k.json.tenant_id as string, api_key: key.json.api_key as string, key_id: key.json.key_id as string };
    // Characters each encoding changes, so that every form differs from the key itself.
    const secret = `${tenantKey("fal")}+/Zq=9`;
    expect((await putKey(t, "fal", { api_key: secret, base_url: fakeUrl("fal"), mode: "only" })).status).toBe(200);
    await revokeAtProvider("fal", secret, "echo");
    const bad = await createImageTask(t, "flux-2-pro", newTag("byok-secret-echo"));
    const failed = (await follow(t, bad.task_id)).task;
    expect(failed.error.details.reason).toBe("provider_key_rejected");
    // The upstream's words reach the envelope, with the key cut out of them.
    expect(failed.error.message).toContain("[redacted]");
    const texts = [
      JSON.stringify(failed),
      (await call(`/v1/tasks/${bad.task_id}/events`, { key: t.api_key })).text,
      (await call("/v1/tasks", { key: t.api_key })).text,
      ...printed,
    ];
    const forms = [
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ k: secret }).toString().slice(2),
      btoa(`api:${secret}`),
      btoa(secret).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
      JSON.stringify(secret).slice(1, -1).replace(/\//g, "\\/"),
    ];
    // Any 8 characters in a row of the key's own part ("tenant-fal-" is every tenant's).
    const own = secret.slice("tenant-fal-".length);
    for (let i = 0; i + 8 <= own.length; i++) forms.push(own.slice(i, i + 8));
    for (const text of texts) for (const form of forms) expect(text, form).not.toContain(form);
  });
});
