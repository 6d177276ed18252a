/** One route a task may run on, as the task record keeps it (no bindings needed to name it). */
import type { Pricing } from "../catalog/schema";

export interface RoutePlan {
  provider: string;
  upstream_model: string;
  /** The route's own price for this capability, when it has one (else the card's). */
  pricing?: Pricing;
  /** "tenant": the route runs on the tenant's own key (src/provider-keys/routing.ts); absent: the platform's. */
  key?: "tenant";
  /** On a tenant's route: its key's mode (`only`: a refused key ends the task rather than moving on). */
  key_mode?: "prefer" | "fallback" | "only";
  /** On a tenant's route: the percentage of the card price charged as the platform fee (`byok_fee`). */
  fee_percent?: string;
}
