/** The numbers of sign-in and sessions, in one place (the console's help text quotes them). */

/** A code is good for 10 minutes… */
export const CODE_TTL_MS = 10 * 60_000;
/** …and 5 tries; the fifth wrong one ends it and a new code is needed. */
export const CODE_MAX_ATTEMPTS = 5;

/** Code requests per address per window, and per client address (IP) per window. */
export const CODE_REQUESTS_PER_EMAIL = 5;
export const CODE_REQUESTS_PER_IP = 20;
export const CODE_REQUEST_WINDOW_MS = 15 * 60_000;

/** A session ends after 12 hours without a request, and 7 days after sign-in whatever happens. */
export const SESSION_IDLE_MS = 12 * 60 * 60_000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60_000;
/** `last_seen_at` is written at most once a minute, not on every request. */
export const SESSION_TOUCH_MS = 60_000;
