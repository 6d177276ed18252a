/**
 * Every declared route, sent its bad requests through the Worker's entry: no key, a key without
 * the route's permission, a malformed body, a body of the wrong type, a body over the cap. Each
 * answer is compared with what the route's declaration says it needs (src/rest/declare.ts).
 */
import { describe, expect, it } from "vitest";
import { PERMISSIONS, type Permission } from "../../src/keys/api-keys";
import "../../src/app";
import { MAX_BODY_BYTES } from "../../src/http/json-body";
import { DECLARED, type DeclaredRoute } from "../../src/rest/declare";
import { ADMIN_TOKEN, admin, BASE, expectError, send } from "../helpers/api";

const ROUTES = DECLARED.filter((r) => !r.hide);
const label = (r: DeclaredRoute) => `${r.method.toUpperCase()} ${r.path}`;
const pathOf = (r: DeclaredRoute) => r.path.replaceAll(/{(\w+)}/g, (_, name: string) => `${name}_0`);
const readsJson = (r: DeclaredRoute) => !r.rawBody && ["post", "put", "patch"].includes(r.method);
const bodySchema = (r: DeclaredRoute) => {
  const media = r.request?.body?.content?.["application/json"];
  return media && "schema" in media ? (media.schema as { safeParse?: (v: unknown) => { success: boolean } }) : undefined;
};

/** A tenant with a rate limit (so every key's answers carry X-RateLimit-*) and a key per permission. */
async function keyring() {
  const t = await admin("/admin/v1/tenants", { name: "route contract", credits: "10" });
  expect(t.status).toBe(201);
  expect((await admin(`/admin/v1/tenants/${t.json.tenant_id}/rate-limit`, { rate_limit_per_minute: 100_000 })).status).toBe(200);
  const only = new Map<Permission, string>();
  for (const p of PERMISSIONS) {
    const k = await admin(`/admin/v1/tenants/${t.json.tenant_id}/api-keys`, { permissions: [p] });
    expect(k.status).toBe(201);
    only.set(p, k.json.api_key);
  }
  const all = await admin(`/admin/v1/tenants/${t.json.tenant_id}/api-keys`, { permissions: [...PERMISSIONS] });
  return { only, all: all.json.api_key as string };
}

/** The credentials that pass a route's check of who may call it. */
function passing(r: DeclaredRoute, all: string): Record<string, string> {
  if (r.operator) return { Authorization: `Bearer ${ADMIN_TOKEN}` };
  if (r.permission !== undefined) return { Authorization: `Bearer ${all}` };
  return {};
}

function request(r: DeclaredRoute, headers: Record<string, string>, body?: BodyInit) {
  const h = new Headers(headers);
  if (r.idempotent) h.set("Idempotency-Key", `contract-${crypto.randomUUID()}`);
  return new Request(`${BASE}${pathOf(r)}`, { method: r.method.toUpperCase(), headers: h, body });
}

describe("every declared route against its declaration", () => {
  it("declares the API's routes, each once", () => {
    expect(ROUTES.length).toBeGreaterThan(60);
    const seen = new Set(ROUTES.map(label));
    expect(seen.size).toBe(ROUTES.length);
    for (const path of ["/v1/chat/completions", "/v1/images/generations", "/v1/tasks/{task_id}"]) {
      expect(ROUTES.some((r) => r.path === path)).toBe(true);
    }
  });

  it("refuses a call without credentials with 401 and the envelope, where the declaration asks for any", async () => {
    let checked = 0;
    for (const r of ROUTES.filter((r) => r.operator || r.permission !== undefined)) {
      const res = await send(request(r, { "Content-Type": "application/json" }, readsJson(r) ? "{}" : undefined));
      expectError(res, 401, "unauthorized");
      expect(res.headers.get("X-RateLimit-Limit"), label(r)).toBeNull();
      checked++;
    }
    expect(checked).toBeGreaterThan(60);
  });

  it("refuses a key without the declared permission with 403, naming it, with the key's rate headers", async () => {
    const { only } = await keyring();
    let checked = 0;
    for (const r of ROUTES.filter((r) => typeof r.permission === "string")) {
      const other = PERMISSIONS.find((p) => p !== r.permission) as Permission;
      const res = await send(
        request(
          r,
          { Authorization: `Bearer ${only.get(other)}`, "Content-Type": "application/json" },
          readsJson(r) ? "{}" : undefined,
        ),
      );
      const error = expectError(res, 403, "forbidden");
      expect(error.details?.required_permission, label(r)).toBe(r.permission);
      // The one rule for both outcomes of an authenticated key: its rate headers go out, refusals included.
      expect(res.headers.get("X-RateLimit-Limit"), label(r)).toBe("100000");
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
  });

  it("refuses a malformed JSON body with 422 at the body's root, on every route that reads one", async () => {
    const { all } = await keyring();
    let checked = 0;
    for (const r of ROUTES.filter(readsJson)) {
      const res = await send(request(r, { ...passing(r, all), "Content-Type": "application/json" }, '{"model": '));
      expectError(res, 422, "invalid_request", "");
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
  });

  it("refuses a body of the wrong type with 422 from the declared schema, before the handler runs", async () => {
    const { all } = await keyring();
    let checked = 0;
    for (const r of ROUTES.filter((r) => readsJson(r) && !r.guard)) {
      const schema = bodySchema(r);
      if (!schema?.safeParse || schema.safeParse(42).success) continue;
      const res = await send(request(r, { ...passing(r, all), "Content-Type": "application/json" }, "42"));
      const error = expectError(res, 422, "invalid_request", "");
      expect(error.details?.errors?.[0]?.loc?.[0], label(r)).toBe("body");
      checked++;
    }
    expect(checked).toBeGreaterThan(25);
  });

  it("refuses a body declared over the cap with 413 before reading it, on every route that reads one", async () => {
    const { all } = await keyring();
    let checked = 0;
    for (const r of ROUTES.filter(readsJson)) {
      const req = request(r, { ...passing(r, all), "Content-Type": "application/json" }, "{}");
      const over = new Request(req, { headers: new Headers([...req.headers, ["Content-Length", String(MAX_BODY_BYTES + 1)]]) });
      const res = await send(over);
      const error = expectError(res, 413, "media_too_large");
      expect(error.details?.limit_bytes, label(r)).toBe(MAX_BODY_BYTES);
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
  });
});
