/**
 * The OAuth credentials this server issues, all opaque: a readable prefix, what routing needs
 * (region, tenant, user code) and 32 random bytes in base64url. Only SHA-256 hashes are stored.
 *
 *   access token        mcp_at_<region>_<tenant26>_<secret>     1 hour
 *   refresh token       mcp_rt_<region>_<tenant26>_<secret>     30 days, rotated on every use
 *   authorization code  mcp_ac_<tenant26>_<secret>              5 minutes, single use
 *   device code         mcp_dc_<USERCODE>_<secret>              10 minutes, single use
 */
import { toBase64Url } from "../lib/base64";
import { sha256Hex } from "../lib/crypto";

export const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const AUTHORIZATION_CODE_TTL_MS = 5 * 60 * 1000;
export const DEVICE_CODE_TTL_MS = 10 * 60 * 1000;
/** RFC 8628 §3.2 `interval`, and what each slow_down adds to it (§3.5). */
export const DEVICE_POLL_INTERVAL_S = 5;
export const SLOW_DOWN_STEP_S = 5;

const SECRET = "[A-Za-z0-9_-]{43}";
const ACCESS = new RegExp(`^mcp_at_([a-z]{2,8})_([0-9a-z]{26})_${SECRET}$`);
const REFRESH = new RegExp(`^mcp_rt_([a-z]{2,8})_([0-9a-z]{26})_${SECRET}$`);
const CODE = new RegExp(`^mcp_ac_([0-9a-z]{26})_${SECRET}$`);
const DEVICE = new RegExp(`^mcp_dc_([B-DF-HJ-NP-TV-XZ]{8})_${SECRET}$`);

/** User codes use consonants only (no vowels: no words; no look-alike digits), RFC 8628 §6.1. */
export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";

function secret(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

function tenant26(tenantId: string): string {
  return tenantId.slice("ten_".length);
}

export function newAccessToken(region: string, tenantId: string): string {
  return `mcp_at_${region}_${tenant26(tenantId)}_${secret()}`;
}

export function newRefreshToken(region: string, tenantId: string): string {
  return `mcp_rt_${region}_${tenant26(tenantId)}_${secret()}`;
}

export function newAuthorizationCode(tenantId: string): string {
  return `mcp_ac_${tenant26(tenantId)}_${secret()}`;
}

export function newDeviceCode(userCode: string): string {
  return `mcp_dc_${userCode}_${secret()}`;
}

/** 8 letters from USER_CODE_ALPHABET (20^8 ≈ 2.6e10), drawn without modulo bias. */
export function newUserCode(): string {
  let out = "";
  while (out.length < 8) {
    for (const b of crypto.getRandomValues(new Uint8Array(16))) {
      // 240 = 12 × 20: bytes above it would favour the first letters.
      if (b < 240 && out.length < 8) out += USER_CODE_ALPHABET[b % 20];
    }
  }
  return out;
}

/** `XXXX-XXXX`, as the user reads and types it. */
export function displayUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * What a person typed, as the stored form: case, spaces and dashes do not matter (RFC 8628 §6.1);
 * null when it cannot be a user code.
 */
export function normalizeUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]+/g, "");
  return /^[B-DF-HJ-NP-TV-XZ]{8}$/.test(code) ? code : null;
}

export interface TenantToken {
  region: string;
  tenant_id: string;
}

export function parseAccessToken(token: string): TenantToken | null {
  const m = ACCESS.exec(token);
  return m ? { region: m[1] as string, tenant_id: `ten_${m[2]}` } : null;
}

export function parseRefreshToken(token: string): TenantToken | null {
  const m = REFRESH.exec(token);
  return m ? { region: m[1] as string, tenant_id: `ten_${m[2]}` } : null;
}

export function parseAuthorizationCode(token: string): { tenant_id: string } | null {
  const m = CODE.exec(token);
  return m ? { tenant_id: `ten_${m[1]}` } : null;
}

export function parseDeviceCode(token: string): { user_code: string } | null {
  const m = DEVICE.exec(token);
  return m ? { user_code: m[1] as string } : null;
}

/** The stored form of any of these credentials. */
export function hashToken(token: string): Promise<string> {
  return sha256Hex(`oauth:${token}`);
}
