/** What a provider's HealthObject answers: the snapshot the isolates cache, and what /v1/status shows. */
import type { CircuitState } from "./circuit";
import type { WindowStats } from "./window-stats";

/** What the create path and the task objects read about a route. */
export interface RouteSnapshot {
  state: CircuitState;
  /** When an open circuit lets its probe through (epoch ms); null when closed. */
  retry_at: number | null;
  /** Time from acceptance to stored outputs over the last hour (bucket precision), null without data. */
  p50_ms: number | null;
  p95_ms: number | null;
}

export interface ProviderSnapshot {
  provider: string;
  at: number;
  routes: Record<string, RouteSnapshot>;
}

export interface Incident {
  id: number;
  provider: string;
  upstream_model: string;
  started_at: number;
  ended_at: number | null;
  failures: number;
  codes: Record<string, number>;
}

export interface RouteStatus {
  upstream_model: string;
  state: CircuitState;
  retry_at: number | null;
  windows: { "5m": WindowStats; "1h": WindowStats; "24h": WindowStats };
  /** The last 24 hours hour by hour, oldest first: completed and failed. */
  hourly: { completed: number; failed: number }[];
}

export interface ProviderStatus {
  provider: string;
  at: number;
  routes: RouteStatus[];
  incidents: Incident[];
}
