/**
 * Tenants that each use one optional feature (a webhook endpoint, an own provider key, a default
 * storage destination on the tests' fake S3, request bodies kept in the request log), for the rows that hold a create of theirs to the
 * bare tenant's: a feature on should cost a create next to nothing (docs/scaling.md).
 */
import { startFakeS3, teardown as stopFakeS3 } from "../../test/destinations/fake-s3.ts";

export interface FeatureTenant {
  feature: string;
  apiKey: string;
}

export async function featureTenants(
  base: string,
  adminToken: string,
): Promise<{ tenants: FeatureTenant[]; stop: () => Promise<void> }> {
  const s3 = await startFakeS3();
  const send = async (path: string, init: { method?: string; token: string; body: unknown }) => {
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? "POST",
      headers: { Authorization: `Bearer ${init.token}`, "Content-Type": "application/json" },
      body: JSON.stringify(init.body),
    });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const tenant = async (feature: string, permission?: string) => {
    const t = await send("/admin/v1/tenants", { token: adminToken, body: { name: `bench ${feature}`, credits: "100000000" } });
    const k = await send(`/admin/v1/tenants/${t.tenant_id}/api-keys`, {
      token: adminToken,
      body: { permissions: ["catalog:read", "tasks:read", "tasks:write", ...(permission ? [permission] : [])] },
    });
    return { tenantId: t.tenant_id as string, apiKey: k.api_key as string };
  };
  const tenants: FeatureTenant[] = [];
  const { apiKey: hooks } = await tenant("webhook endpoint", "webhooks:manage");
  await send("/v1/webhook-endpoints", { token: hooks, body: { url: "https://hooks.example.com/bench", events: ["*"] } });
  tenants.push({ feature: "webhook endpoint", apiKey: hooks });
  const { apiKey: own } = await tenant("provider key", "providers:manage");
  // DashScope documents no call to check a key, so the key is stored unchecked without leaving the machine.
  await send("/v1/provider-keys/dashscope", {
    method: "PUT",
    token: own,
    body: { api_key: "bench-dashscope-key-0123456789", mode: "prefer" },
  });
  tenants.push({ feature: "provider key", apiKey: own });
  const { apiKey: stored } = await tenant("default destination", "storage:manage");
  const bucket = (await (
    await fetch(`${s3}/_fake/buckets`, { method: "POST", body: JSON.stringify({ region: "us-east-1" }) })
  ).json()) as { bucket: string; region: string; access_key_id: string; secret_access_key: string };
  await send("/v1/storage-destinations", {
    token: stored,
    body: { endpoint: s3, ...bucket, path_style: true, default: true },
  });
  tenants.push({ feature: "default destination", apiKey: stored });
  const logged = await tenant("body logging");
  await send(`/admin/v1/tenants/${logged.tenantId}/settings`, { token: adminToken, body: { request_body_logging: "full" } });
  tenants.push({ feature: "body logging", apiKey: logged.apiKey });
  return { tenants, stop: stopFakeS3 };
}
