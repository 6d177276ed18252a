/** A provider's route health object: its RPC surface, declared apart from its class so `Env` needs no object. */
import type { ProviderSnapshot, ProviderStatus } from "./health-views";
import type { RouteOutcome } from "./outcomes";

export interface HealthRpc extends Rpc.DurableObjectBranded {
  report(outcomes: RouteOutcome[], now?: number): ProviderSnapshot;
  claimProbe(route: string, taskId: string, now?: number): { granted: boolean; snapshot: ProviderSnapshot };
  snapshot(now?: number): ProviderSnapshot;
  status(now?: number): ProviderStatus;
}
