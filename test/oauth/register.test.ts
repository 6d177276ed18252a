/** Dynamic client registration (RFC 7591): public clients only, redirect URIs checked. */
import { describe, expect, it } from "vitest";
import { BASE, send } from "../helpers/api";
import { DEVICE_GRANT, register } from "./flow";

describe("POST /oauth/register", () => {
  it("registers a public client and answers 201 with what it must use", async () => {
    const res = await register({
      client_name: "Claude\u0007 Desktop",
      redirect_uris: ["https://claude.example.com/api/mcp/auth_callback", "http://127.0.0.1:33418/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_post",
      application_type: "native",
      scope: "tasks:read",
    });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.json).toMatchObject({
      client_name: "Claude Desktop",
      redirect_uris: ["https://claude.example.com/api/mcp/auth_callback", "http://127.0.0.1:33418/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      // Replaced (RFC 7591 §3.2.1): every client here is public.
      token_endpoint_auth_method: "none",
      application_type: "native",
    });
    expect(res.json.client_id).toMatch(/^cli_[0-9a-z]{26}$/);
    expect(res.json.client_secret).toBeUndefined();
    expect(typeof res.json.client_id_issued_at).toBe("number");
  });

  it("a device-only client needs no redirect URI (none, or an empty list)", async () => {
    const res = await register({ client_name: "CLI", grant_types: [DEVICE_GRANT] });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ grant_types: [DEVICE_GRANT], redirect_uris: [], response_types: [] });
    const empty = await register({ client_name: "CLI", redirect_uris: [], grant_types: [DEVICE_GRANT, "refresh_token"] });
    expect(empty.status, empty.text).toBe(201);
    const bad = await register({ client_name: "CLI", redirect_uris: ["http://example.com/cb"], grant_types: [DEVICE_GRANT] });
    expect(bad.json.error).toBe("invalid_redirect_uri");
  });

  it.each([
    [{ client_name: "x" }, "redirect_uris must be a non-empty array"],
    [{ redirect_uris: [] }, "redirect_uris must be a non-empty array"],
    [{ redirect_uris: ["http://app.example.com/cb"] }, "redirect_uris[0] must use https"],
    [{ redirect_uris: ["https://app.example.com/cb#frag"] }, "redirect_uris[0] must not contain a fragment"],
    [{ redirect_uris: ["https://user:pw@app.example.com/cb"] }, "redirect_uris[0] must not contain credentials"],
    [{ redirect_uris: ["https://ok.example.com/cb", "javascript:alert(1)"] }, "redirect_uris[1] must use https"],
    [{ redirect_uris: ["not a url"] }, "redirect_uris[0] must be an absolute URL"],
    [{ redirect_uris: [42] }, "redirect_uris[0] must be a non-empty string"],
  ])("refuses invalid redirect URIs: %j", async (metadata, reason) => {
    const res = await register(metadata);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("invalid_redirect_uri");
    expect(res.json.error_description).toContain(reason);
  });

  it.each([
    [{ redirect_uris: ["https://a.example.com/cb"], grant_types: ["client_credentials"] }, "not supported"],
    [{ redirect_uris: ["https://a.example.com/cb"], response_types: ["token"] }, 'only "code"'],
    [{ redirect_uris: ["https://a.example.com/cb"], client_secret: "s" }, "public"],
    [{ redirect_uris: ["https://a.example.com/cb"], client_name: 7 }, "client_name"],
    [{ redirect_uris: ["https://a.example.com/cb"], application_type: "desktop" }, "application_type"],
    [[], "JSON object"],
  ])("refuses invalid metadata: %j", async (metadata, reason) => {
    const res = await register(metadata as Record<string, unknown>);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("invalid_client_metadata");
    expect(res.json.error_description).toContain(reason);
  });

  it("refuses a body that is not JSON", async () => {
    for (const [type, body] of [
      ["application/json", "{nope"],
      ["application/x-www-form-urlencoded", "redirect_uris=https://a.example.com/cb"],
    ] as const) {
      const res = await send(new Request(`${BASE}/oauth/register`, { method: "POST", headers: { "Content-Type": type }, body }));
      expect(res.status).toBe(400);
      expect(res.json.error).toBe("invalid_client_metadata");
    }
  });
});
