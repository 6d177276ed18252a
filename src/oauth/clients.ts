/**
 * Who a `client_id` is. Two kinds, both public clients (no secret; PKCE proves the exchange):
 * - `cli_…`: registered here through dynamic client registration (RFC 7591), kept in the
 *   OAuthObject `client:<client_id>`;
 * - an https URL: a client ID metadata document (draft-ietf-oauth-client-id-metadata-document),
 *   fetched when needed (5 s, 64 KiB, JSON, its `client_id` equal to the URL) and kept for a few
 *   minutes in the OAuthObject named by the URL.
 */
import type { Env } from "../env";
import { newId } from "../lib/ids";
import { readAtMost, TooLarge } from "../lib/streams";
import { checkOutsideUrl, policyFrom } from "../lib/url-policy";
import type { OAuthClient } from "./oauth-records";
import { clientObject } from "./oauth-stub";
import { redirectUriProblem } from "./redirect-uris";

export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
export const GRANT_TYPES = ["authorization_code", "refresh_token", DEVICE_GRANT] as const;

const REGISTERED_ID = /^cli_[0-9a-z]{26}$/;
const METADATA_FETCH_TIMEOUT_MS = 5_000;
const METADATA_MAX_BYTES = 64 * 1024;
/** How long a fetched metadata document is trusted before it is fetched again. */
export const METADATA_CACHE_MS = 5 * 60 * 1000;
const NAME_MAX = 200;

export type ClientLookup = { ok: true; client: OAuthClient } | { ok: false; reason: string };

/** An RFC 7591 §3.2.2 refusal: `invalid_redirect_uri` or `invalid_client_metadata`, with why. */
export class ClientMetadataError extends Error {
  constructor(
    readonly error: "invalid_redirect_uri" | "invalid_client_metadata",
    readonly description: string,
  ) {
    super(description);
  }
}

function isMetadataUrl(clientId: string): boolean {
  return clientId.startsWith("https://") || clientId.startsWith("http://");
}

/** The client a `client_id` names, or why there is none (unknown, or its document unusable). */
export async function resolveClient(env: Env, clientId: string, now = Date.now()): Promise<ClientLookup> {
  if (REGISTERED_ID.test(clientId)) {
    const client = await clientObject(env, clientId).client(now);
    return client ? { ok: true, client } : { ok: false, reason: "This client_id is not registered here." };
  }
  if (isMetadataUrl(clientId)) return metadataClient(env, clientId, now);
  return {
    ok: false,
    reason: "client_id must be a registered client id (cli_…) or the https URL of a client metadata document.",
  };
}

/**
 * Validates client metadata (a registration's body, or a fetched document) into a client.
 * Unsupported choices are replaced, as RFC 7591 §3.2.1 allows: every client here is public
 * (`token_endpoint_auth_method` "none"), and the answer says so.
 */
export function clientFromMetadata(
  body: unknown,
  base: { client_id: string; kind: OAuthClient["kind"]; created_at: string; fallbackName: string },
): OAuthClient {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ClientMetadataError("invalid_client_metadata", "The client metadata must be a JSON object.");
  }
  const m = body as Record<string, unknown>;
  let grantTypes: string[] = ["authorization_code", "refresh_token"];
  if (m.grant_types !== undefined) {
    if (!Array.isArray(m.grant_types) || m.grant_types.length === 0 || !m.grant_types.every((g) => typeof g === "string")) {
      throw new ClientMetadataError("invalid_client_metadata", "grant_types must be a non-empty array of strings.");
    }
    const unknown = m.grant_types.filter((g) => !(GRANT_TYPES as readonly string[]).includes(g as string));
    if (unknown.length) {
      throw new ClientMetadataError(
        "invalid_client_metadata",
        `grant_types: ${unknown.join(", ")} not supported (supported: ${GRANT_TYPES.join(", ")}).`,
      );
    }
    grantTypes = [...new Set(m.grant_types as string[])];
  }
  const usesRedirects = grantTypes.includes("authorization_code");
  if (m.response_types !== undefined) {
    if (!Array.isArray(m.response_types) || !m.response_types.every((r) => r === "code")) {
      throw new ClientMetadataError("invalid_client_metadata", 'response_types: only "code" is supported.');
    }
  }
  let redirectUris: string[] = [];
  // A client of the device grant alone has nowhere to be sent back to: none, or an empty list.
  const noRedirects =
    !usesRedirects &&
    base.kind === "registered" &&
    (m.redirect_uris === undefined || (Array.isArray(m.redirect_uris) && m.redirect_uris.length === 0));
  if (!noRedirects) {
    if (!Array.isArray(m.redirect_uris) || m.redirect_uris.length === 0) {
      throw new ClientMetadataError("invalid_redirect_uri", "redirect_uris must be a non-empty array of URLs.");
    }
    if (m.redirect_uris.length > 20) throw new ClientMetadataError("invalid_redirect_uri", "redirect_uris: at most 20.");
    m.redirect_uris.forEach((u, i) => {
      const problem = redirectUriProblem(u);
      if (problem) throw new ClientMetadataError("invalid_redirect_uri", `redirect_uris[${i}] ${problem}.`);
    });
    redirectUris = [...new Set(m.redirect_uris as string[])];
  }
  if (m.client_secret !== undefined) {
    throw new ClientMetadataError("invalid_client_metadata", "Clients here are public: client_secret must not be given.");
  }
  let name = base.fallbackName;
  if (m.client_name !== undefined) {
    if (typeof m.client_name !== "string" || m.client_name.trim() === "") {
      throw new ClientMetadataError("invalid_client_metadata", "client_name must be a non-empty string.");
    }
    // No control characters: the name is shown on consent pages and in the console.
    name =
      m.client_name
        .replace(/[\p{Cc}\p{Cf}]/gu, "")
        .trim()
        .slice(0, NAME_MAX) || base.fallbackName;
  }
  let clientUri: string | null = null;
  if (m.client_uri !== undefined) {
    if (typeof m.client_uri !== "string" || !/^https:\/\//i.test(m.client_uri) || m.client_uri.length > 2000) {
      throw new ClientMetadataError("invalid_client_metadata", "client_uri must be an https URL.");
    }
    clientUri = m.client_uri;
  }
  let applicationType: string | null = null;
  if (m.application_type !== undefined) {
    if (m.application_type !== "web" && m.application_type !== "native") {
      throw new ClientMetadataError("invalid_client_metadata", 'application_type must be "web" or "native".');
    }
    applicationType = m.application_type;
  }
  return {
    client_id: base.client_id,
    kind: base.kind,
    client_name: name,
    redirect_uris: redirectUris,
    grant_types: grantTypes,
    application_type: applicationType,
    client_uri: clientUri,
    created_at: base.created_at,
  };
}

/** Dynamic client registration (RFC 7591 §3): a new public client with its own `cli_…` id. */
export async function registerClient(env: Env, body: unknown, now = Date.now()): Promise<OAuthClient> {
  const client = clientFromMetadata(body, {
    client_id: newId("cli"),
    kind: "registered",
    created_at: new Date(now).toISOString(),
    fallbackName: "Unnamed client",
  });
  if (!(await clientObject(env, client.client_id).putClient(client, null))) {
    throw new Error("client id collision");
  }
  return client;
}

/** RFC 7591 §3.2.1: what was registered, as the client must use it. */
export function registrationResponse(client: OAuthClient) {
  return {
    client_id: client.client_id,
    client_id_issued_at: Math.floor(Date.parse(client.created_at) / 1000),
    client_name: client.client_name,
    redirect_uris: client.redirect_uris,
    grant_types: client.grant_types,
    response_types: client.grant_types.includes("authorization_code") ? ["code"] : [],
    token_endpoint_auth_method: "none",
    ...(client.application_type ? { application_type: client.application_type } : {}),
    ...(client.client_uri ? { client_uri: client.client_uri } : {}),
  };
}

/** Why a URL cannot be a client ID metadata document's client_id, or null when it can. */
export function metadataUrlProblem(env: Env, raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a valid URL";
  }
  // The client_id is compared as a string: only the canonical spelling is accepted (this also
  // refuses dot segments, which the parser would have removed).
  if (url.href !== raw) return "must be written in canonical form (lower-case host, no dot segments, no default port)";
  if (url.hash) return "must not contain a fragment";
  if (url.pathname === "/" || url.pathname === "") return "must contain a path";
  const verdict = checkOutsideUrl(raw, policyFrom(env));
  if (!verdict.ok) return verdict.reason;
  return null;
}

async function metadataClient(env: Env, url: string, now: number): Promise<ClientLookup> {
  const problem = metadataUrlProblem(env, url);
  if (problem) return { ok: false, reason: `client_id ${problem}.` };
  const cache = clientObject(env, url);
  const cached = await cache.client(now);
  if (cached) return { ok: true, client: cached };
  let res: Response;
  try {
    // Redirects are not followed: the document must be at the URL that is its client_id.
    res = await fetch(url, {
      headers: { Accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(METADATA_FETCH_TIMEOUT_MS),
    });
  } catch {
    return { ok: false, reason: "The client's metadata document could not be fetched." };
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    return { ok: false, reason: `The client's metadata document answered HTTP ${res.status}.` };
  }
  let bytes: Uint8Array;
  try {
    if (Number(res.headers.get("Content-Length") ?? "0") > METADATA_MAX_BYTES) {
      await res.body?.cancel();
      throw new TooLarge(METADATA_MAX_BYTES);
    }
    bytes = await readAtMost(res.body, METADATA_MAX_BYTES);
  } catch (e) {
    return {
      ok: false,
      reason:
        e instanceof TooLarge
          ? `The client's metadata document is larger than ${METADATA_MAX_BYTES / 1024} KiB.`
          : "The client's metadata document could not be read.",
    };
  }
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { ok: false, reason: "The client's metadata document is not JSON." };
  }
  const doc = body as { client_id?: unknown; token_endpoint_auth_method?: unknown };
  if (typeof body !== "object" || body === null || doc.client_id !== url) {
    return { ok: false, reason: "The client's metadata document does not name its own URL as client_id." };
  }
  if (doc.token_endpoint_auth_method !== undefined && doc.token_endpoint_auth_method !== "none") {
    return {
      ok: false,
      reason: 'The client\'s metadata document asks for client authentication; only "none" (public clients) is supported.',
    };
  }
  let client: OAuthClient;
  try {
    client = clientFromMetadata(body, {
      client_id: url,
      kind: "metadata_document",
      created_at: new Date(now).toISOString(),
      fallbackName: new URL(url).host,
    });
  } catch (e) {
    if (e instanceof ClientMetadataError) return { ok: false, reason: `The client's metadata document: ${e.description}` };
    throw e;
  }
  await cache.putClient(client, now + METADATA_CACHE_MS);
  return { ok: true, client };
}
