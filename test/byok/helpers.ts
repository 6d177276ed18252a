/** What the tests of tenants' own provider keys share: a manager tenant, putting keys, the fakes' URLs and logs. */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { newKey, taskStub } from "../helpers/tasks";
import { fakeKey } from "../providers/fakes/kit";

/** The fake upstream of `provider` (the providers project configures it as the platform's). */
export function fakeUrl(provider: string): string {
  const url = (env as unknown as Record<string, string>)[`PROVIDER_${provider.toUpperCase()}_BASE_URL`];
  if (!url) throw new Error(`no fake for ${provider}`);
  return url;
}

/** The credential the platform's key sends to `provider`'s fake. */
export const platformAuth = (provider: string) => (provider === "fal" ? `Key ${fakeKey("fal")}` : `Bearer ${fakeKey(provider)}`);
export const tenantAuth = (provider: string, key: string) => (provider === "fal" ? `Key ${key}` : `Bearer ${key}`);

let n = 0;
/** A key the fakes accept until it is revoked (test/providers/fakes/kit.ts, KeyRing). */
export const tenantKey = (provider: string) =>
  `tenant-${provider}-${Date.now().toString(36)}${++n}x${crypto.randomUUID().slice(0, 8)}`;

/** A tenant whose key manages provider keys and creates tasks. */
export const manager = (credits = "1000") =>
  newTenant({ credits, permissions: ["catalog:read", "tasks:read", "tasks:write", "providers:manage"] });

export function putKey(t: TestTenant, provider: string, body: Record<string, unknown>) {
  return call(`/v1/provider-keys/${provider}`, { key: t.api_key, method: "PUT", body });
}

/** Puts a key the fake accepts, against the fake's URL; returns the key. */
export async function addKey(t: TestTenant, provider: string, body: Record<string, unknown> = {}): Promise<string> {
  const api_key = tenantKey(provider);
  const res = await putKey(t, provider, { api_key, base_url: fakeUrl(provider), mode: "prefer", ...body });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return api_key;
}

/** The provider refuses the key from now on, as when its holder revokes it there (or its account runs out of quota). */
export async function revokeAtProvider(
  provider: string,
  key: string,
  as: "revoked" | "quota" | "echo" = "revoked",
): Promise<void> {
  const res = await fetch(`${fakeUrl(provider)}/_fake/revoke-key?key=${encodeURIComponent(key)}&as=${as}`, { method: "POST" });
  expect(res.status).toBe(200);
}

const CANVAS = { type: "preset", tier: "1K", aspect: "1:1" };

/** An image task on `model`, tagged for the fakes' logs (no drill: the routes' order is the service's). */
export async function createImageTask(t: TestTenant, model: string, tag: string, markers: string[] = []) {
  const res = await call("/v1/images/generations", {
    key: t.api_key,
    body: { model, prompt: `A lighthouse at dawn #tag:${tag} ${markers.join(" ")}`.trim(), canvas: CANVAS },
    headers: { "Idempotency-Key": newKey() },
  });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return res.json;
}

/** The routes the task was admitted with, in order: provider and whose key. */
export async function storedRoutes(taskId: string): Promise<string[]> {
  return runInDurableObject(taskStub(taskId), (_o, state) => {
    const row = state.storage.sql
      .exec<{ record: string; plan: string | null }>("SELECT record, plan FROM task WHERE id = 1")
      .one();
    const whole = { ...JSON.parse(row.record), ...(row.plan ? JSON.parse(row.plan) : {}) };
    return (whole.routes as { provider: string; key?: string }[]).map((r) => `${r.provider}:${r.key ?? "platform"}`);
  });
}
