/** A provider's health object stub, typed once: the one place a health stub is cast (src/lib/remote.ts says why). */
import type { Env } from "../env";
import type { Remote } from "../lib/remote";
import type { HealthRpc } from "./health-rpc";

export type HealthStub = Remote<HealthRpc>;

export function healthObject(env: Env, provider: string): HealthStub {
  return env.HEALTH.getByName(provider) as unknown as HealthStub;
}
