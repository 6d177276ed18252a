/**
 * Slow limits on the OAuth doors anyone can knock on, counted per client address (and per member
 * for typed user codes) in stored windows of a RateCounterObject, like sign-in's: registrations
 * and device authorizations per IP, user-code lookups per member (RFC 8628 §5.1: guessing a
 * user code must be impractical). Token polling needs none of its own: the device's interval is
 * enforced by `slow_down`, and every other grant spends what it presents.
 */

import type { Env } from "../env";
import { rateCounterNamed } from "../rate-limits/rate-counter-stub";

export const LIMITS = {
  register: { windowMs: 60 * 60 * 1000, limit: 30 },
  device_authorization: { windowMs: 10 * 60 * 1000, limit: 30 },
  user_code: { windowMs: 15 * 60 * 1000, limit: 20 },
} as const;

/** Counts one event; `retry_after` (s) when the window's limit was reached. */
export async function takeOAuthLimit(
  env: Env,
  kind: keyof typeof LIMITS,
  who: string,
  now = Date.now(),
): Promise<{ allowed: true } | { allowed: false; retry_after: number }> {
  const { windowMs, limit } = LIMITS[kind];
  const window = Math.floor(now / windowMs);
  const { allowed } = await rateCounterNamed(env, `oauth-${kind}:${who}`).takeStored(window, limit, (window + 1) * windowMs);
  return allowed ? { allowed } : { allowed, retry_after: Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000)) };
}
