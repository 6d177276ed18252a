/**
 * What webhooks ask of the tenant's account object: its endpoints, their secrets, send budgets and the delivery log of the account's own events. The account object
 * implements it (src/accounts/account-rpc.ts); callers reach it with `accountSlice` (src/tenancy/account-slice.ts).
 */
import type { AuditInput } from "../audit/audit-store";
import type { KeyMode } from "../keys/api-keys";
import type { DeliveryLogQuery, LoggedDelivery, unsucceededSince } from "./delivery-log";
import type { AttemptRow, DeliveryRow, RequeueOutcome } from "./delivery-rows";
import type { EndpointChange, EndpointCreation, NewEndpoint, WebhookEndpointRecord } from "./endpoint-rows";
import type { EventType } from "./event-types";
import type { SendGrant, takeSends } from "./send-budget";

export interface WebhooksAccountSlice {
  createWebhookEndpoint(input: NewEndpoint, audit?: AuditInput): Promise<EndpointCreation>;
  webhookEndpoints(mode?: KeyMode): WebhookEndpointRecord[];
  webhookEndpoint(endpointId: string): WebhookEndpointRecord | null;
  updateWebhookEndpoint(endpointId: string, change: EndpointChange, audit?: AuditInput): WebhookEndpointRecord | null;
  webhookTargets(type: EventType, mode?: KeyMode): { endpoint_id: string; enabled: boolean }[];
  webhookDeliveriesToRecover(endpointId: string, since: string, limit: number): ReturnType<typeof unsucceededSince>;
  takeWebhookSends(g: Omit<Parameters<typeof takeSends>[1], "nowMs">): SendGrant;
  settleWebhookSends(grantId: string, used: number, pacedUntil: number | null): void;
  webhookEndpointForDelivery(endpointId: string): Promise<{ url: string; enabled: boolean; secrets: string[] } | null>;
  rotateWebhookSecret(
    endpointId: string,
    overlapMs: number,
    audit?: AuditInput,
  ): Promise<{ endpoint: WebhookEndpointRecord; secret: string } | null>;
  deleteWebhookEndpoint(endpointId: string, audit?: AuditInput): WebhookEndpointRecord | null;
  webhookDeliveryLog(q: DeliveryLogQuery): { rows: LoggedDelivery[]; has_more: boolean };
  webhookDeliveryLogged(deliveryId: string): LoggedDelivery | null;
  logWebhookDeliveries(rows: LoggedDelivery[]): void;
  sendTestWebhook(endpointId: string, audit?: AuditInput): Promise<{ delivery_id: string } | null>;
  webhookDelivery(deliveryId: string): (DeliveryRow & { attempts: AttemptRow[] }) | null;
  resendWebhookDelivery(deliveryId: string, wait: boolean): Promise<(DeliveryRow & { attempts: AttemptRow[] }) | null>;
  requeueWebhookDelivery(deliveryId: string, atMs: number): Promise<RequeueOutcome | null>;
}
