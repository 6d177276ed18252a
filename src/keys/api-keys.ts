import { sha256Hex } from "../lib/crypto";
import { randomBase62 } from "../lib/ids";

/** What a key may do with the service's work; a key issued without a list holds these. */
export const WORK_PERMISSIONS = ["catalog:read", "tasks:read", "tasks:write", "chat"] as const;
/**
 * `keys:manage`: create, list, change and revoke the tenant's keys through `/v1/keys` (never beyond its own).
 * `webhooks:manage`: the tenant's webhook endpoints (`/v1/webhook-endpoints`) and their deliveries.
 * `providers:manage`: the tenant's own provider keys (`/v1/provider-keys`).
 * `storage:manage`: the tenant's storage destinations (`/v1/storage-destinations`), its own buckets.
 * `logs:read`: the tenant's request log (`/v1/requests`); `logs:manage`: its exports (`/v1/log-exports`).
 */
export const PERMISSIONS = [
  ...WORK_PERMISSIONS,
  "keys:manage",
  "webhooks:manage",
  "providers:manage",
  "storage:manage",
  "logs:read",
  "logs:manage",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** 32 random bytes in base62 are 43 characters. */
const SECRET_BYTES = 32;
/** `sk_<region>_<mode>_<secret>`; keys made before modes existed (`sk_<region>_<secret>`) are live. */
const KEY_PATTERN = /^sk_([a-z]{2,8})_(?:(live|test)_)?([0-9A-Za-z]{43})$/;
export const REGION_PATTERN = /^[a-z]{2,8}$/;

/** `live` keys reach real models and pay; `test` keys run on the sandbox only and pay nothing. */
export const KEY_MODES = ["live", "test"] as const;
export type KeyMode = (typeof KEY_MODES)[number];

export interface ParsedKey {
  region: string;
  mode: KeyMode;
  secret: string;
}

/** Anything that is not a key of this shape is a malformed credential. */
export function parseApiKey(token: string): ParsedKey | null {
  const m = KEY_PATTERN.exec(token);
  return m ? { region: m[1] as string, mode: (m[2] as KeyMode | undefined) ?? "live", secret: m[3] as string } : null;
}

/** The mode is part of the key (and of its hash), so it cannot be changed without a new key. */
export function generateApiKey(region: string, mode: KeyMode = "live"): string {
  return `sk_${region}_${mode}_${randomBase62(SECRET_BYTES)}`;
}

/** Keys hashed recently in this isolate (every authenticated request hashes its key). */
const recentHashes = new Map<string, string>();
const RECENT_HASHES_MAX = 10_000;

/**
 * Only this hash is stored; the key itself is shown once, at creation. The isolate remembers the
 * hashes of the keys it saw lately, as it holds each request's key anyway, so that a request
 * skips the digest's asynchronous round.
 */
export async function hashApiKey(key: string): Promise<string> {
  const known = recentHashes.get(key);
  if (known !== undefined) return known;
  const hash = await sha256Hex(`api-key:${key}`);
  if (recentHashes.size >= RECENT_HASHES_MAX) recentHashes.delete(recentHashes.keys().next().value as string);
  recentHashes.set(key, hash);
  return hash;
}
