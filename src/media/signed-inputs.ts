/**
 * Short-lived signed URLs through which upstreams read a task's inputs from the service's own
 * storage: never the client's original URL (which may be private to the client, slow, or change)
 * and never an R2 key. `GET /inputs/<token>?expires=<unix s>&sig=<hex>`, where the token is the
 * R2 key in base64url and the signature an HMAC over both; only `inputs/…` keys can be named.
 */
import type { Env } from "../env";
import { hmacSha256Hex, timingSafeEqualStrings } from "../lib/crypto";

/** Long enough for a queued upstream job to start and read its inputs; short enough to be useless later. */
export const INPUT_URL_TTL_SECONDS = 2 * 60 * 60;

/**
 * The configured secret behind every signed URL of this deployment (inputs here, outputs in
 * signed-outputs.ts, each under a derivation of its own): INPUT_URL_SECRET, else ADMIN_TOKEN.
 */
export function urlSigningSecret(env: Env): { secret: string; dedicated: boolean } | null {
  if (env.INPUT_URL_SECRET && env.INPUT_URL_SECRET.length >= 16) return { secret: env.INPUT_URL_SECRET, dedicated: true };
  return env.ADMIN_TOKEN && env.ADMIN_TOKEN.length >= 16 ? { secret: env.ADMIN_TOKEN, dedicated: false } : null;
}

function secretOf(env: Env): string | null {
  const base = urlSigningSecret(env);
  // Derived, not the operator token itself: a leaked URL signature says nothing about the token.
  return base === null ? null : base.dedicated ? base.secret : `input-urls:${base.secret}`;
}

const b64url = (s: string) => btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
const unb64url = (s: string) => atob(s.replaceAll("-", "+").replaceAll("_", "/"));

/** A URL under `origin` that serves the stored input `key` until `now + ttl`. */
export async function signInputUrl(env: Env, origin: string, key: string, now = Date.now()): Promise<string> {
  const secret = secretOf(env);
  if (!secret) throw new Error("input URLs cannot be signed: set INPUT_URL_SECRET (or ADMIN_TOKEN)");
  const token = b64url(key);
  const expires = Math.floor(now / 1000) + INPUT_URL_TTL_SECONDS;
  const sig = await hmacSha256Hex(secret, `${token}.${expires}`);
  return `${origin.replace(/\/+$/, "")}/inputs/${token}?expires=${expires}&sig=${sig}`;
}

export type InputUrlCheck = { ok: true; key: string } | { ok: false; status: 403 | 404 | 410; reason: string };

export async function verifyInputUrl(env: Env, token: string, expires: string | null, sig: string | null, now = Date.now()) {
  const secret = secretOf(env);
  if (!secret || !expires || !sig || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(sig)) {
    return { ok: false, status: 403, reason: "missing or malformed signature" } satisfies InputUrlCheck;
  }
  const expected = await hmacSha256Hex(secret, `${token}.${expires}`);
  if (!timingSafeEqualStrings(expected, sig)) return { ok: false, status: 403, reason: "bad signature" } satisfies InputUrlCheck;
  if (Number(expires) * 1000 < now) return { ok: false, status: 410, reason: "expired" } satisfies InputUrlCheck;
  let key: string;
  try {
    key = unb64url(token);
  } catch {
    return { ok: false, status: 404, reason: "unknown input" } satisfies InputUrlCheck;
  }
  if (!key.startsWith("inputs/")) return { ok: false, status: 404, reason: "unknown input" } satisfies InputUrlCheck;
  return { ok: true, key } satisfies InputUrlCheck;
}
