/** The rate counter's RPC surface, declared apart from its class so `Env` needs no object. */
import type { RateCounter } from "./rate-limit";

export interface RateCounterRpc extends RateCounter, Rpc.DurableObjectBranded {
  /** Takes one from a stored count that ends at `expireAt` (sign-in, OAuth and console form limits). */
  takeStored(window: number, limit: number, expireAt?: number): Promise<{ allowed: boolean; total: number }>;
}
