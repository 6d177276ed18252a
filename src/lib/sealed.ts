/**
 * Secrets at rest (callback signing secrets): AES-256-GCM under STORAGE_ENCRYPTION_KEY (32 bytes,
 * base64), with a fresh 96-bit IV per value and the row's id as associated data, so a sealed value
 * copied onto another row does not open. Stored as `v1.<iv>.<ciphertext>` in base64url.
 */
import { fromBase64Url, toBase64Url } from "./base64";

const PREFIX = "v1";
const keys = new Map<string, Promise<CryptoKey>>();

export class MissingEncryptionKey extends Error {
  constructor() {
    super("STORAGE_ENCRYPTION_KEY is not set (32 random bytes, base64): secrets cannot be stored or read.");
  }
}

function keyOf(secret: string | undefined): Promise<CryptoKey> {
  if (!secret) throw new MissingEncryptionKey();
  let key = keys.get(secret);
  if (!key) {
    const raw = fromBase64Url(secret);
    if (raw.length !== 32) throw new Error("STORAGE_ENCRYPTION_KEY must be 32 bytes, base64-encoded.");
    key = crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
    keys.set(secret, key);
  }
  return key;
}

export async function seal(secret: string | undefined, plaintext: string, boundTo: string): Promise<string> {
  const key = await keyOf(secret);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = new TextEncoder().encode(plaintext);
  const ad = new TextEncoder().encode(boundTo);
  const ct = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: ad }, key, data));
  return `${PREFIX}.${toBase64Url(iv)}.${toBase64Url(ct)}`;
}

export async function unseal(secret: string | undefined, sealed: string, boundTo: string): Promise<string> {
  const [prefix, iv, ct] = sealed.split(".");
  if (prefix !== PREFIX || !iv || !ct) throw new Error("not a sealed value");
  const key = await keyOf(secret);
  const ad = new TextEncoder().encode(boundTo);
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: fromBase64Url(iv), additionalData: ad },
    key,
    fromBase64Url(ct),
  );
  return new TextDecoder().decode(plain);
}
