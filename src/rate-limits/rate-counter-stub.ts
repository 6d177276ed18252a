/** The rate counters' stubs, typed once: the one place a rate counter stub is cast (src/lib/remote.ts says why). */
import type { Env } from "../env";
import type { Remote } from "../lib/remote";
import type { RateCounterRpc } from "./rate-counter-rpc";

export type RateCounterStub = Remote<RateCounterRpc>;

/** The counter a name picks (`rate:<key id>`, `sign-in:…`, `oauth-…`, `console-form:…`). */
export function rateCounterNamed(env: Env, name: string): RateCounterStub {
  return env.RATE_COUNTERS.getByName(name) as unknown as RateCounterStub;
}

/** The request-rate counter of an API key. */
export function rateCounterFor(env: Env, keyId: string): RateCounterStub {
  return rateCounterNamed(env, `rate:${keyId}`);
}
