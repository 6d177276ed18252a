const encoder = new TextEncoder();

/** Two hex digits per byte value: hashing runs on every authenticated request. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

export async function sha256Hex(input: string | Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", typeof input === "string" ? encoder.encode(input) : input));
  let out = "";
  for (let i = 0; i < digest.length; i++) out += HEX[digest[i] as number];
  return out;
}

/** Compares two strings in time that depends only on their lengths. */
export function timingSafeEqualStrings(a: string, b: string): boolean {
  const ab = encoder.encode(a);
  const bb = encoder.encode(b);
  if (ab.byteLength !== bb.byteLength) {
    // Still do the work so a length mismatch is not faster than a content mismatch.
    crypto.subtle.timingSafeEqual(ab, ab);
    return false;
  }
  return crypto.subtle.timingSafeEqual(ab, bb);
}

/** HMAC-SHA256 of `message` under `secret`, as lowercase hex. */
export async function hmacSha256Hex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(message));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
