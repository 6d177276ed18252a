/**
 * fal's webhook signature (docs "Webhooks", Verifying Your Webhook): Ed25519 over
 *   `{X-Fal-Webhook-Request-Id}\n{X-Fal-Webhook-User-Id}\n{X-Fal-Webhook-Timestamp}\n{sha256 hex of the raw body}`
 * with the signature in X-Fal-Webhook-Signature (hex), the public keys in fal's JWKS, and the
 * timestamp (Unix seconds) within five minutes of now. A webhook only wakes the task early, so
 * any doubt answers null and polling decides.
 */
import { sha256Hex } from "../../lib/crypto";
import type { ProviderConfig } from "../config";
import { call, readJson } from "../http";

export const FAL_JWKS_URL = "https://rest.alpha.fal.ai/.well-known/jwks.json";
const TOLERANCE_SECONDS = 300;
/** Keys rotate rarely; fal asks that they be cached no longer than a day. */
const KEYS_TTL_MS = 10 * 60_000;
/** A signature no cached key verifies may mean a rotation: refetch, but not on every forged request. */
const REFETCH_AFTER_MS = 60_000;

interface CachedKeys {
  keys: CryptoKey[];
  fetchedAt: number;
}
const cache = new Map<string, CachedKeys>();

interface Jwk {
  kty?: unknown;
  crv?: unknown;
  x?: unknown;
}

async function fetchKeys(config: ProviderConfig, url: string): Promise<CryptoKey[]> {
  const res = await call(config, {}, { path: url, retries: 1, timeoutMs: Math.min(config.timeoutMs, 10_000) });
  const body = await readJson<{ keys?: unknown }>(config, res);
  const keys: CryptoKey[] = [];
  for (const k of Array.isArray(body?.keys) ? (body.keys as Jwk[]) : []) {
    if (k?.kty !== "OKP" || k.crv !== "Ed25519" || typeof k.x !== "string") continue;
    try {
      // fal's published `x` has carried base64 padding, which strict JWK import refuses.
      const jwk = { kty: "OKP", crv: "Ed25519", x: k.x.replace(/=+$/, "") };
      keys.push(await crypto.subtle.importKey("jwk", jwk, { name: "Ed25519" }, false, ["verify"]));
    } catch {
      // A key this runtime cannot import verifies nothing.
    }
  }
  return keys;
}

/** The cached keys, fetched when missing or stale (or, with `refresh`, when the cache is not brand new). */
async function keysFor(config: ProviderConfig, url: string, refresh: boolean): Promise<CryptoKey[] | null> {
  const now = Date.now();
  const cached = cache.get(url);
  const fresh = cached && now - cached.fetchedAt < KEYS_TTL_MS;
  if (cached && fresh && !refresh) return cached.keys;
  if (cached && refresh && now - cached.fetchedAt < REFETCH_AFTER_MS) return null;
  try {
    const keys = await fetchKeys(config, url);
    cache.set(url, { keys, fetchedAt: now });
    return keys;
  } catch {
    return cached?.keys ?? [];
  }
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** The queue's request id: the body's `request_id` (covered by the signature through the body hash), else the header's. */
function requestIdOf(body: Uint8Array, header: string): string {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as { request_id?: unknown };
    if (typeof parsed?.request_id === "string" && parsed.request_id) return parsed.request_id;
  } catch {}
  return header;
}

export async function verifyFalWebhook(
  request: Request,
  body: Uint8Array,
  config: ProviderConfig,
): Promise<{ job_id: string } | null> {
  const h = request.headers;
  const requestId = h.get("x-fal-webhook-request-id");
  const userId = h.get("x-fal-webhook-user-id");
  const timestamp = h.get("x-fal-webhook-timestamp");
  const signature = h.get("x-fal-webhook-signature")?.trim();
  if (!requestId || !userId || !timestamp || !signature) return null;
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return null;
  if (!/^[0-9a-fA-F]{128}$/.test(signature)) return null;
  const message = new TextEncoder().encode(`${requestId}\n${userId}\n${timestamp}\n${await sha256Hex(body)}`);
  const sig = hexBytes(signature);
  const url = config.extra.jwks_url || FAL_JWKS_URL;
  for (const refresh of [false, true]) {
    const keys = await keysFor(config, url, refresh);
    if (!keys) break;
    for (const key of keys) {
      if (await crypto.subtle.verify({ name: "Ed25519" }, key, sig, message).catch(() => false)) {
        return { job_id: requestIdOf(body, requestId) };
      }
    }
  }
  return null;
}
