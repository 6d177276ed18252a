import { describe, expect, it } from "vitest";
import { admin, call, expectError } from "../helpers/api";

describe("operator API", () => {
  it("needs the operator token", async () => {
    expectError(await call("/admin/v1/tenants", { body: { name: "x" } }), 401, "unauthorized");
    expectError(await call("/admin/v1/tenants", { body: { name: "x" }, key: "wrong-token-wrong-token" }), 401, "invalid_api_key");
  });

  it("creates and reads a tenant with an opening balance", async () => {
    const res = await admin("/admin/v1/tenants", { name: "Acme", credits: "250.5" });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ name: "Acme", status: "active", balance: "250.5" });
    expect(res.json.tenant_id).toMatch(/^ten_[0-9a-z]{26}$/);
    const read = await admin(`/admin/v1/tenants/${res.json.tenant_id}`);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(res.json);
  });

  it("a tenant without credits starts at zero", async () => {
    const res = await admin("/admin/v1/tenants", { name: "Empty" });
    expect(res.json.balance).toBe("0");
  });

  it("grants credits with exact decimals", async () => {
    const t = await admin("/admin/v1/tenants", { name: "Decimals", credits: "0.1" });
    const g = await admin(`/admin/v1/tenants/${t.json.tenant_id}/credits`, { amount: "0.2", source: "promo" });
    expect(g.status).toBe(201);
    expect(g.json.grant).toMatchObject({ amount: "0.2", source: "promo" });
    expect(g.json.balance).toBe("0.3");
  });

  it.each([
    [{ amount: "-1", source: "x" }, "/amount"],
    [{ amount: "0", source: "x" }, "/amount"],
    [{ amount: -5, source: "x" }, "/amount"],
    [{ amount: 0, source: "x" }, "/amount"],
    [{ amount: "1e3", source: "x" }, "/amount"],
    [{ amount: "1.0000000001", source: "x" }, "/amount"],
    [{ amount: "10" }, "/source"],
    [{ amount: "10", source: "x", extra: 1 }, "/extra"],
  ])("refuses grant %j with 422 at %s", async (body, param) => {
    const t = await admin("/admin/v1/tenants", { name: "G" });
    expectError(await admin(`/admin/v1/tenants/${t.json.tenant_id}/credits`, body), 422, "invalid_request", param);
  });

  it("404 for unknown or malformed tenants", async () => {
    expectError(await admin("/admin/v1/tenants/ten_00000000000000000000000000"), 404, "not_found");
    expectError(await admin("/admin/v1/tenants/nope"), 404, "not_found");
    expectError(await admin("/admin/v1/tenants/nope/credits", { amount: "1", source: "x" }), 404, "not_found");
    expectError(await admin("/admin/v1/tenants/ten_00000000000000000000000000/api-keys", {}), 404, "not_found");
    expectError(await admin("/admin/v1/api-keys/key_unknown/revoke", {}), 404, "not_found");
  });

  it("issues keys with chosen permissions, shown once", async () => {
    const t = await admin("/admin/v1/tenants", { name: "Keys" });
    const k = await admin(`/admin/v1/tenants/${t.json.tenant_id}/api-keys`, { permissions: ["catalog:read", "chat"] });
    expect(k.status).toBe(201);
    expect(k.json).toMatchObject({ region: "us", permissions: ["catalog:read", "chat"] });
    expect(k.json.api_key).toMatch(/^sk_us_live_[0-9A-Za-z]{43}$/);
    expect(k.json.mode).toBe("live");
    const all = await admin(`/admin/v1/tenants/${t.json.tenant_id}/api-keys`, {});
    expect(all.json.permissions).toEqual(["catalog:read", "tasks:read", "tasks:write", "chat"]);
  });

  it("refuses unknown permissions and keys for another region's deployment", async () => {
    const t = await admin("/admin/v1/tenants", { name: "Keys" });
    expectError(
      await admin(`/admin/v1/tenants/${t.json.tenant_id}/api-keys`, { permissions: ["root"] }),
      422,
      "invalid_request",
      "/permissions/0",
    );
    expectError(
      await admin(`/admin/v1/tenants/${t.json.tenant_id}/api-keys`, { region: "eu" }),
      422,
      "invalid_request",
      "/region",
    );
  });

  it("creates and retires callback signing keys", async () => {
    const t = await admin("/admin/v1/tenants", { name: "Hooks" });
    const k = await admin(`/admin/v1/tenants/${t.json.tenant_id}/callback-signing-keys`, {});
    expect(k.status).toBe(201);
    expect(k.json.id).toMatch(/^whk_/);
    expect(k.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const r = await admin(`/admin/v1/callback-signing-keys/${k.json.id}/retire`, {});
    expect(r.status).toBe(200);
    expect(r.json.status).toBe("retired");
    expect(r.json.retired_at).toBeTruthy();
    expectError(await admin("/admin/v1/callback-signing-keys/whk_nope/retire", {}), 404, "callback_signing_key_not_found");
  });
});
