/** RFC 9728 and RFC 8414 metadata: what an MCP client discovers before anything else. */
import { describe, expect, it } from "vitest";
import { BASE, call, send } from "../helpers/api";

describe("OAuth metadata", () => {
  it("the protected resource metadata of /mcp names its resource, this server and the scopes (RFC 9728)", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const res = await call(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toContain("application/json");
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
      expect(res.json).toEqual({
        resource: `${BASE}/mcp`,
        authorization_servers: [BASE],
        scopes_supported: ["catalog:read", "tasks:read", "tasks:write", "chat", "logs:read"],
        bearer_methods_supported: ["header"],
        resource_name: "Media API (MCP)",
      });
    }
  });

  it("the authorization server metadata lists every endpoint, PKCE S256, public clients, CIMD and iss (RFC 8414)", async () => {
    const res = await call("/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      issuer: BASE,
      authorization_endpoint: `${BASE}/oauth/authorize`,
      token_endpoint: `${BASE}/oauth/token`,
      registration_endpoint: `${BASE}/oauth/register`,
      device_authorization_endpoint: `${BASE}/oauth/device_authorization`,
      revocation_endpoint: `${BASE}/oauth/revoke`,
      scopes_supported: ["catalog:read", "tasks:read", "tasks:write", "chat", "logs:read"],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      revocation_endpoint_auth_methods_supported: ["none"],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });

  it("addresses come from PUBLIC_BASE_URL, never from the request's Host", async () => {
    const res = await send(new Request("https://evil.example.net/.well-known/oauth-authorization-server"));
    expect(res.json.issuer).toBe(BASE);
    expect(res.json.token_endpoint).toBe(`${BASE}/oauth/token`);
  });

  it("browser clients get a CORS preflight answer on the endpoints they call", async () => {
    for (const path of ["/oauth/token", "/oauth/register", "/.well-known/oauth-authorization-server"]) {
      const res = await send(
        new Request(`${BASE}${path}`, {
          method: "OPTIONS",
          headers: { Origin: "https://client.example.org", "Access-Control-Request-Method": "POST" },
        }),
      );
      expect(res.status).toBe(204);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
      expect(res.headers.get("Access-Control-Allow-Methods")).toContain("POST");
    }
  });
});
