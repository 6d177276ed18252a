import { sha256Hex } from "../lib/crypto";
import { randomBase62 } from "../lib/ids";

export const PERMISSIONS = ["catalog:read", "tasks:read", "tasks:write", "chat"] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** 32 random bytes in base62 are 43 characters. */
const SECRET_BYTES = 32;
const KEY_PATTERN = /^sk_([a-z]{2,8})_([0-9A-Za-z]{43})$/;
export const REGION_PATTERN = /^[a-z]{2,8}$/;

export interface ParsedKey {
  region: string;
  secret: string;
}

/** `sk_<region>_<secret>`; anything else is a malformed credential. */
export function parseApiKey(token: string): ParsedKey | null {
  const m = KEY_PATTERN.exec(token);
  return m ? { region: m[1] as string, secret: m[2] as string } : null;
}

export function generateApiKey(region: string): string {
  return `sk_${region}_${randomBase62(SECRET_BYTES)}`;
}

/** Only this hash is stored; the key itself is shown once, at creation. */
export function hashApiKey(key: string): Promise<string> {
  return sha256Hex(`api-key:${key}`);
}
