/**
 * The key that sign-in codes and CSRF tokens are hashed under. Derived from STORAGE_ENCRYPTION_KEY
 * (a secret per region, a fixed value locally) under a purpose of its own, so a stolen copy of the
 * storage alone cannot test the million possible codes against a stored hash.
 */
import type { Env } from "../env";

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function keyFor(env: Pick<Env, "STORAGE_ENCRYPTION_KEY" | "ADMIN_TOKEN">, purpose: string): Promise<CryptoKey> {
  const base = env.STORAGE_ENCRYPTION_KEY || env.ADMIN_TOKEN;
  if (!base) throw new Error("STORAGE_ENCRYPTION_KEY is not set: sign-in codes and console tokens cannot be hashed.");
  const name = `${purpose}\u0000${base}`;
  let key = keys.get(name);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(`people:${name}`), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(name, key);
  }
  return key;
}

/** HMAC-SHA256 of `message` under the purpose's key, as lowercase hex. */
export async function keyedHash(
  env: Pick<Env, "STORAGE_ENCRYPTION_KEY" | "ADMIN_TOKEN">,
  purpose: "sign-in-code" | "csrf" | "session",
  message: string,
): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await keyFor(env, purpose), encoder.encode(message)));
  let out = "";
  for (const b of mac) out += b.toString(16).padStart(2, "0");
  return out;
}
