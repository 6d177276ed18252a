/** Identifiers with a readable prefix and 128 bits of randomness (base32, lowercase). */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

export function randomToken(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  let out = "";
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < buf.length; i++) {
    acc = ((acc << 8) | (buf[i] as number)) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(acc >>> bits) & 31];
    }
  }
  if (bits > 0) out += ALPHABET[(acc << (5 - bits)) & 31];
  return out;
}

export function newId(prefix: string): string {
  return `${prefix}_${randomToken(16)}`;
}

export const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Base62 of `bytes` random bytes, fixed width so every secret has the same length. */
export function randomBase62(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  let n = 0n;
  for (const b of buf) n = (n << 8n) | BigInt(b);
  const width = Math.ceil((bytes * 8) / Math.log2(62));
  let out = "";
  for (let i = 0; i < width; i++) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}
