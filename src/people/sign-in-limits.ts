/**
 * How often sign-in codes may be asked for: per address and per client address (IP), in fixed
 * windows every isolate agrees on, counted in storage by one RateCounterObject per address
 * (`takeStored`). The same limits hold whether or not the address belongs to anyone, so the
 * answers never tell the two apart.
 */

import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { sha256Hex } from "../lib/crypto";
import { rateCounterNamed } from "../rate-limits/rate-counter-stub";
import { CODE_MAX_ATTEMPTS, CODE_REQUEST_WINDOW_MS, CODE_REQUESTS_PER_EMAIL, CODE_REQUESTS_PER_IP, CODE_TTL_MS } from "./policy";

async function take(env: Env, name: string, windowMs: number, limit: number, now: number) {
  const window = Math.floor(now / windowMs);
  const { allowed, total } = await rateCounterNamed(env, `sign-in:${name}`).takeStored(window, limit, (window + 1) * windowMs);
  const retryAfter = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000));
  return { allowed, total, retryAfter };
}

function limited(what: string, limit: number, retryAfter: number): ApiError {
  return new ApiError(
    "rate_limited",
    `Too many sign-in codes were asked for ${what}; try again in ${Math.ceil(retryAfter / 60)} minutes.`,
    { retryAfter, details: { limit, window_seconds: CODE_REQUEST_WINDOW_MS / 1000 } },
  );
}

/** Throws `rate_limited` (with Retry-After) when the client or the address asked too often. */
export async function takeCodeRequest(env: Env, email: string, ip: string | null, now: number): Promise<void> {
  if (ip) {
    const byIp = await take(env, `ip:${ip}`, CODE_REQUEST_WINDOW_MS, CODE_REQUESTS_PER_IP, now);
    if (!byIp.allowed) throw limited("from this network address", CODE_REQUESTS_PER_IP, byIp.retryAfter);
  }
  const byEmail = await take(env, `email:${await sha256Hex(email)}`, CODE_REQUEST_WINDOW_MS, CODE_REQUESTS_PER_EMAIL, now);
  if (!byEmail.allowed) throw limited("for this address", CODE_REQUESTS_PER_EMAIL, byEmail.retryAfter);
}

/**
 * Guesses at an address that belongs to no one are counted like those at a real code (five, then
 * "too many attempts"), so that how the answers run does not reveal whether the address exists.
 */
export async function takeUnknownAttempt(env: Env, email: string, now: number): Promise<{ attempts_left: number }> {
  const { allowed, total } = await take(env, `guess:${await sha256Hex(email)}`, CODE_TTL_MS, CODE_MAX_ATTEMPTS, now);
  return { attempts_left: allowed ? CODE_MAX_ATTEMPTS - total : 0 };
}
