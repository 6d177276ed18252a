/** Request ids of this service's making carry their time, so the request log finds an entry's hour without a search. */
import { randomToken } from "./ids";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** A new request id: `req_`, the time in ms as 9 base32 characters, then 80 random bits. */
export function newRequestId(at = Date.now()): string {
  let time = "";
  for (let ms = at, i = 0; i < 9; i++, ms = Math.floor(ms / 32)) time = ALPHABET[ms % 32] + time;
  return `req_${time}${randomToken(10)}`;
}

/** The time an id of `newRequestId` carries; null for any other id (a caller's own X-Request-Id). */
export function requestIdTime(requestId: string): number | null {
  if (!/^req_[0-9a-hjkmnp-tv-z]{25}$/.test(requestId)) return null;
  let ms = 0;
  for (const ch of requestId.slice(4, 13)) ms = ms * 32 + ALPHABET.indexOf(ch);
  return ms;
}
