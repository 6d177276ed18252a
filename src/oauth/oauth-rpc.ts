/** The OAuth object (one client or one device authorization): its RPC surface, declared apart from its class so `Env` needs no object. */
import type { Permission } from "../keys/api-keys";
import type { DevicePoll, DeviceView, OAuthClient } from "./oauth-records";

export interface OAuthRpc extends Rpc.DurableObjectBranded {
  client(now: number): OAuthClient | null;
  putClient(client: OAuthClient, cacheUntil: number | null): Promise<boolean>;
  startDevice(
    input: {
      user_code: string;
      device_code_hash: string;
      client_id: string;
      client_name: string;
      scopes: Permission[];
      resource: string;
      expires_at: number;
      interval_s: number;
    },
    now?: number,
  ): Promise<boolean>;
  device(now?: number): DeviceView | null;
  decideDevice(
    decision:
      | {
          approve: true;
          tenant_id: string;
          tenant_name: string;
          user_id: string;
          email: string;
          scopes: Permission[];
          grant_id: string;
        }
      | { approve: false; tenant_id: string; tenant_name: string; user_id: string; email: string },
    now?: number,
  ): { ok: true; view: DeviceView } | { ok: false; code: "unknown" | "decided" };
  pollDevice(deviceCodeHash: string, clientId: string, now?: number): DevicePoll;
}
