/** What the OAuth object answers (clients, device authorizations): plain data, so callers need not import the object. */
import type { Permission } from "../keys/api-keys";

/** A client as the authorization server knows it, registered or described by its metadata document. */
export interface OAuthClient {
  client_id: string;
  kind: "registered" | "metadata_document";
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  application_type: string | null;
  client_uri: string | null;
  created_at: string;
}

export type DeviceStatus = "pending" | "approved" | "denied" | "issued";

/** A device authorization as the console shows it. */
export interface DeviceView {
  user_code: string;
  client_id: string;
  client_name: string;
  scopes: Permission[];
  resource: string;
  status: DeviceStatus;
  expires_at: number;
  tenant_id: string | null;
  tenant_name: string | null;
  email: string | null;
}

/** What one poll of the token endpoint gets (RFC 8628 §3.5), `approved` exactly once. */
export type DevicePoll =
  | { state: "invalid" | "pending" | "slow_down" | "denied" | "expired" | "issued" }
  | {
      state: "approved";
      grant_id: string;
      tenant_id: string;
      user_id: string;
      client_id: string;
      client_name: string;
      scopes: Permission[];
      resource: string;
    };
