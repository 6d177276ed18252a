/**
 * The authorization server's HTTP doors, outside `/v1` (they speak OAuth, not the API):
 *
 *   GET  /.well-known/oauth-protected-resource/mcp   RFC 9728, the /mcp resource
 *   GET  /.well-known/oauth-protected-resource       the same document
 *   GET  /.well-known/oauth-authorization-server     RFC 8414
 *   POST /oauth/register                             RFC 7591 (public clients)
 *   GET  /oauth/authorize                            RFC 6749 §4.1 + PKCE; on to the console's consent page
 *   POST /oauth/token                                authorization_code, refresh_token, device_code
 *   POST /oauth/device_authorization                 RFC 8628 §3.1
 *   POST /oauth/revoke                               RFC 7009
 */
import { type Context, Hono } from "hono";
import { Layout } from "../console/layout";
import type { AppEnv } from "../http/context";
import {
  ClientMetadataError,
  CORS,
  checkAuthorizationRequest,
  clientIdOf,
  DEVICE_GRANT,
  mcpResourceUrl,
  OAUTH_SCOPES,
  OAuthError,
  oauthErrorResponse,
  oauthJson,
  oauthOrigin,
  readForm,
  registerClient,
  registrationResponse,
  revokeToken,
  startDeviceAuthorization,
  takeOAuthLimit,
  tokenRequest,
} from "../services/oauth";

const METADATA_CACHE = "public, max-age=300";

function protectedResourceMetadata(c: Context<AppEnv>) {
  const origin = oauthOrigin(c.env, c.req.raw);
  return c.json(
    {
      resource: mcpResourceUrl(c.env, c.req.raw),
      authorization_servers: [origin],
      scopes_supported: OAUTH_SCOPES,
      bearer_methods_supported: ["header"],
      resource_name: "Media API (MCP)",
    },
    200,
    { "Cache-Control": METADATA_CACHE, ...CORS },
  );
}

function authorizationServerMetadata(c: Context<AppEnv>) {
  const origin = oauthOrigin(c.env, c.req.raw);
  return c.json(
    {
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      registration_endpoint: `${origin}/oauth/register`,
      device_authorization_endpoint: `${origin}/oauth/device_authorization`,
      revocation_endpoint: `${origin}/oauth/revoke`,
      scopes_supported: OAUTH_SCOPES,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token", DEVICE_GRANT],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      revocation_endpoint_auth_methods_supported: ["none"],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    },
    200,
    { "Cache-Control": METADATA_CACHE, ...CORS },
  );
}

function clientIp(c: Context<AppEnv>): string | null {
  return c.req.header("CF-Connecting-IP")?.trim() || null;
}

async function limited(c: Context<AppEnv>, kind: "register" | "device_authorization"): Promise<void> {
  const ip = clientIp(c);
  if (!ip) return;
  const taken = await takeOAuthLimit(c.env, kind, ip);
  if (!taken.allowed) {
    throw new OAuthError(
      "temporarily_unavailable",
      "Too many requests from this address; try again later.",
      429,
      taken.retry_after,
    );
  }
}

/** Runs an OAuth endpoint: its OAuthError becomes the RFC 6749 §5.2 answer; anything else is the API's 500. */
async function oauthEndpoint(c: Context<AppEnv>, run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof OAuthError) return oauthErrorResponse(c, e);
    throw e;
  }
}

/** The page for an authorization request that cannot be sent back to any client. */
function refusedPage(c: Context<AppEnv>, message: string) {
  const page = (
    <Layout title="This authorization request cannot be used">
      <p role="alert">{message}</p>
      <p class="muted">Go back to the application you came from and try connecting again.</p>
    </Layout>
  );
  return c.html(`<!doctype html>${page}`, 400, { "Cache-Control": "no-store", "X-Frame-Options": "DENY" });
}

export const oauthRoutes = new Hono<AppEnv>();

oauthRoutes.get("/.well-known/oauth-protected-resource/mcp", protectedResourceMetadata);
oauthRoutes.get("/.well-known/oauth-protected-resource", protectedResourceMetadata);
oauthRoutes.get("/.well-known/oauth-authorization-server", authorizationServerMetadata);

for (const path of [
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-authorization-server",
  "/oauth/register",
  "/oauth/token",
  "/oauth/device_authorization",
  "/oauth/revoke",
]) {
  oauthRoutes.options(path, (c) => c.body(null, 204, CORS));
}

oauthRoutes.post("/oauth/register", (c) =>
  oauthEndpoint(c, async () => {
    await limited(c, "register");
    const type = (c.req.header("Content-Type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json")
      throw new OAuthError("invalid_client_metadata", "The registration must be application/json.");
    const text = await c.req.text();
    if (text.length > 16 * 1024) throw new OAuthError("invalid_client_metadata", "The registration is too large.");
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new OAuthError("invalid_client_metadata", "The registration is not valid JSON.");
    }
    try {
      return oauthJson(c, registrationResponse(await registerClient(c.env, body)), 201);
    } catch (e) {
      if (e instanceof ClientMetadataError) throw new OAuthError(e.error, e.description);
      throw e;
    }
  }),
);

oauthRoutes.get("/oauth/authorize", async (c) => {
  const url = new URL(c.req.url);
  const check = await checkAuthorizationRequest(c.env, url.searchParams, {
    issuer: oauthOrigin(c.env, c.req.raw),
    resource: mcpResourceUrl(c.env, c.req.raw),
  });
  if (check.kind === "page") return refusedPage(c, check.message);
  if (check.kind === "redirect") return c.redirect(check.location, 302);
  // The person decides on the console (sign-in first if needed), which checks the request again.
  return c.redirect(`/console/oauth/authorize${url.search}`, 302);
});

oauthRoutes.post("/oauth/token", (c) =>
  oauthEndpoint(c, async () => {
    const form = await readForm(c);
    const token = await tokenRequest(c.env, form, clientIdOf(c, form), mcpResourceUrl(c.env, c.req.raw));
    return oauthJson(c, token);
  }),
);

oauthRoutes.post("/oauth/device_authorization", (c) =>
  oauthEndpoint(c, async () => {
    const form = await readForm(c);
    const clientId = clientIdOf(c, form);
    await limited(c, "device_authorization");
    const started = await startDeviceAuthorization(c.env, form, clientId, {
      origin: oauthOrigin(c.env, c.req.raw),
      resource: mcpResourceUrl(c.env, c.req.raw),
    });
    return oauthJson(c, started);
  }),
);

oauthRoutes.post("/oauth/revoke", (c) =>
  oauthEndpoint(c, async () => {
    const form = await readForm(c);
    await revokeToken(c.env, form, clientIdOf(c, form));
    // RFC 7009 §2.2: 200 whether or not the token was known.
    return c.body(null, 200, { "Cache-Control": "no-store", ...CORS });
  }),
);
