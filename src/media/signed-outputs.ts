/**
 * Signed, expiring URLs for a task's outputs, which work without an API key (a browser, a player,
 * another service): `GET /files/<artifact_id>?expires=<unix s>&sig=<hex>`, beside the owner-only
 * `GET /v1/artifacts/{id}`. The signature is an HMAC over the artifact id and the expiry under a
 * key of its own (derived apart from the input URLs' key, with another message prefix and another
 * route), so an input URL can never serve an output, nor an output URL an input.
 *
 * Expiries are rounded up to the end of the current hour, then OUTPUT_URL_TTL_SECONDS added: an
 * envelope read twice within the hour is the same bytes (its ETag holds), and every read still
 * gets at least 24 hours of validity.
 */
import type { Env } from "../env";
import { hmacSha256Hex, timingSafeEqualStrings } from "../lib/crypto";
import { urlSigningSecret } from "./signed-inputs";

/** The least validity a signed output URL has when an envelope is read (it has at most an hour more). */
export const OUTPUT_URL_TTL_SECONDS = 24 * 60 * 60;
/** Expiries are rounded up to these boundaries, so the same envelope reads the same within one. */
export const OUTPUT_URL_BUCKET_SECONDS = 60 * 60;

const ARTIFACT_ID = /^art_[0-9a-f]{32}$/;

function secretOf(env: Env): string | null {
  // The same configured secret as the input URLs, under another derivation.
  const base = urlSigningSecret(env);
  return base === null ? null : `output-urls:${base.secret}`;
}

/** Whether this deployment can sign output URLs (it can wherever ADMIN_TOKEN or INPUT_URL_SECRET is set). */
export function canSignOutputUrls(env: Env): boolean {
  return secretOf(env) !== null;
}

/** The expiry (unix seconds) of URLs signed at `nowMs`: the end of the current hour plus the TTL. */
export function outputUrlExpiry(nowMs: number): number {
  const bucketEnd = (Math.floor(nowMs / 1000 / OUTPUT_URL_BUCKET_SECONDS) + 1) * OUTPUT_URL_BUCKET_SECONDS;
  return bucketEnd + OUTPUT_URL_TTL_SECONDS;
}

const message = (artifactId: string, expires: number | string) => `output:${artifactId}:${expires}`;

/** The signed URL of `artifactId` under `origin`, valid until `expires` (unix seconds). */
export async function signOutputUrl(env: Env, origin: string, artifactId: string, expires: number): Promise<string> {
  const secret = secretOf(env);
  if (!secret) throw new Error("output URLs cannot be signed: set ADMIN_TOKEN (or INPUT_URL_SECRET)");
  const sig = await hmacSha256Hex(secret, message(artifactId, expires));
  return `${origin.replace(/\/+$/, "")}/files/${artifactId}?expires=${expires}&sig=${sig}`;
}

/**
 * Whether a `/files/…` request is authorised until when: the expiry (unix seconds) when the
 * signature is right and the URL has not expired, else null. Every failure looks the same.
 */
export async function verifyOutputUrl(
  env: Env,
  artifactId: string,
  expires: string | undefined,
  sig: string | undefined,
  nowMs = Date.now(),
): Promise<number | null> {
  const secret = secretOf(env);
  if (!secret || !ARTIFACT_ID.test(artifactId) || !expires || !sig || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(sig))
    return null;
  const expected = await hmacSha256Hex(secret, message(artifactId, expires));
  if (!timingSafeEqualStrings(expected, sig)) return null;
  const until = Number(expires);
  return until * 1000 > nowMs ? until : null;
}

/**
 * The `expires` and `sig` of a `/files/…` link's query, or null unless the query is exactly those
 * two, once each: a duplicated, extra or unnamed parameter is an altered link like any other.
 */
export function signedLinkQuery(search: string): { expires: string; sig: string } | null {
  const params = [...new URLSearchParams(search)];
  if (params.length !== 2) return null;
  const found = Object.fromEntries(params);
  return typeof found.expires === "string" && typeof found.sig === "string" ? { expires: found.expires, sig: found.sig } : null;
}

/** An artifact entry of `output` (`images[]`, `artifacts[]`) as the envelope shows it. */
interface ArtifactView {
  artifact_id?: unknown;
  [field: string]: unknown;
}

/**
 * Adds `signed_url` and `signed_url_expires_at` to a task output's artifacts. One per task object:
 * it keeps the URLs of the current expiry bucket, so a read signs nothing once the first has.
 */
export class OutputUrlSigner {
  private expires = 0;
  private readonly urls = new Map<string, string>();

  constructor(
    private readonly env: Env,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The expiry that reads at this moment carry (unix seconds). */
  currentExpiry(): number {
    return outputUrlExpiry(this.clock());
  }

  /** `output` with its artifacts signed; the same object when there is nothing to sign (or no secret). */
  async sign<T extends Record<string, unknown> | null>(output: T, origin: string): Promise<T> {
    if (!output) return output;
    const lists = (["images", "artifacts"] as const).filter((k) => Array.isArray(output[k]) && (output[k] as unknown[]).length);
    if (lists.length === 0 || !canSignOutputUrls(this.env)) return output;
    const expires = this.currentExpiry();
    if (expires !== this.expires) {
      this.urls.clear();
      this.expires = expires;
    }
    const expiresAt = new Date(expires * 1000).toISOString();
    const signed: Record<string, unknown> = { ...output };
    for (const list of lists) {
      const views: ArtifactView[] = [];
      for (const a of output[list] as ArtifactView[]) {
        const id = a.artifact_id;
        // A deleted or expired output keeps its place in the list, with no URL to advertise.
        if (typeof id !== "string" || !ARTIFACT_ID.test(id) || a.deleted === true || a.expired === true) {
          views.push(a);
          continue;
        }
        // A link never outlives its artifact's retention.
        const end = typeof a.expires_at === "string" ? Math.floor(Date.parse(a.expires_at) / 1000) : Number.NaN;
        const until = Number.isFinite(end) ? Math.min(end, expires) : expires;
        let url = this.urls.get(id);
        if (url === undefined) {
          url = await signOutputUrl(this.env, origin, id, until);
          // A read that began in the next bucket meanwhile owns the cache now.
          if (this.expires === expires) this.urls.set(id, url);
        }
        const untilAt = until === expires ? expiresAt : new Date(until * 1000).toISOString();
        views.push({ ...a, signed_url: url, signed_url_expires_at: untilAt });
      }
      signed[list] = views;
    }
    return signed as T;
  }
}
