/** The words callers read for health: a route's circuit, a provider's or a model's state. */
import type { CircuitState } from "./circuit";

export type HealthState = "operational" | "degraded" | "down";
export const HEALTH_STATES: readonly HealthState[] = ["operational", "degraded", "down"];

/** A route as the catalog shows it: closed is operational, half-open (probing) degraded, open down. */
export function routeHealthWord(state: CircuitState): HealthState {
  return state === "closed" ? "operational" : state === "half_open" ? "degraded" : "down";
}
