import type { AuditInput } from "../audit/audit-store";
import { writeAudited } from "../audit/audit-store";
import type { KeyMode } from "../keys/api-keys";
import { seal } from "../lib/sealed";
import type { AccountContext } from "../tenancy/account-context";
import { readTenant } from "../tenancy/tenant-row";
import { newSigningSecret } from "./callback-signing";
import { type DeliveryLogQuery, deliveryLogPage, type LoggedDelivery, loggedDelivery, unsucceededSince } from "./delivery-log";
import type { EndpointCreation } from "./endpoint-rows";
import {
  countEndpoints,
  type EndpointChange,
  endpointForDelivery,
  endpointRow,
  endpointRows,
  insertEndpoint,
  MAX_ENDPOINTS,
  markEndpointDeleted,
  type NewEndpoint,
  rotateEndpointSecret,
  subscribedEndpoints,
  updateEndpoint,
  type WebhookEndpointRecord,
} from "./endpoint-rows";
import type { EventType } from "./event-types";
import { type SendGrant, settleSends, takeSends } from "./send-budget";

/**
 * A tenant's webhook endpoints (`webhook_endpoints`, secrets sealed here), the index of their
 * deliveries (`webhook_delivery_log`) and the budgets of sends by hand (`webhook_manual_sends`).
 */
export class EndpointStore {
  constructor(private readonly ctx: AccountContext) {}

  /**
   * A new endpoint with a fresh secret, returned once; refused beyond MAX_ENDPOINTS. The secret
   * is sealed before the write, and the count checked again after that await.
   */
  async create(input: NewEndpoint, audit?: AuditInput): Promise<EndpointCreation> {
    const sql = this.ctx.sql;
    if (!readTenant(sql)) return { ok: false, code: "tenant_not_found" };
    if (countEndpoints(sql, input.mode) >= MAX_ENDPOINTS) return { ok: false, code: "too_many" };
    const secret = newSigningSecret();
    const sealed = await seal(this.ctx.env.STORAGE_ENCRYPTION_KEY, secret, input.endpoint_id);
    if (countEndpoints(sql, input.mode) >= MAX_ENDPOINTS) return { ok: false, code: "too_many" };
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => insertEndpoint(sql, input, sealed, now));
    return { ok: true, endpoint: endpointRow(sql, input.endpoint_id) as WebhookEndpointRecord, secret };
  }

  /** The tenant's endpoints of `mode` (both when absent; deleted ones left out), oldest first, without their secrets. */
  list(mode?: KeyMode): WebhookEndpointRecord[] {
    return endpointRows(this.ctx.sql, mode);
  }

  get(endpointId: string): WebhookEndpointRecord | null {
    return endpointRow(this.ctx.sql, endpointId);
  }

  update(endpointId: string, change: EndpointChange, audit?: AuditInput): WebhookEndpointRecord | null {
    if (!this.get(endpointId)) return null;
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => updateEndpoint(this.ctx.sql, endpointId, change, now));
    return this.get(endpointId);
  }

  /** A new secret, returned once; the current one keeps signing beside it for `overlapMs` (0: not at all). */
  async rotateSecret(
    endpointId: string,
    overlapMs: number,
    audit?: AuditInput,
  ): Promise<{ endpoint: WebhookEndpointRecord; secret: string } | null> {
    if (!this.get(endpointId)) return null;
    const secret = newSigningSecret();
    const sealed = await seal(this.ctx.env.STORAGE_ENCRYPTION_KEY, secret, endpointId);
    // Sealing awaited: the endpoint may have been deleted meanwhile.
    if (!this.get(endpointId)) return null;
    const nowMs = Date.now();
    const now = new Date(nowMs).toISOString();
    writeAudited(this.ctx, audit, now, () =>
      rotateEndpointSecret(
        this.ctx.sql,
        endpointId,
        sealed,
        now,
        overlapMs > 0 ? new Date(nowMs + overlapMs).toISOString() : null,
      ),
    );
    return { endpoint: this.get(endpointId) as WebhookEndpointRecord, secret };
  }

  /** Deleted for good: nothing more is delivered to it; its row stays for the log. */
  delete(endpointId: string, audit?: AuditInput): WebhookEndpointRecord | null {
    const endpoint = this.get(endpointId);
    if (!endpoint) return null;
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => markEndpointDeleted(this.ctx.sql, endpointId, now));
    return endpoint;
  }

  /** The endpoints of a task's mode subscribed to an event of `type` (enabled or not), as its object fans it out. */
  targets(type: EventType, mode: KeyMode = "live"): { endpoint_id: string; enabled: boolean }[] {
    return subscribedEndpoints(this.ctx.sql, type, mode);
  }

  /** The secrets leave the object, unsealed, only to sign a delivery (null: the endpoint is deleted). */
  forDelivery(endpointId: string): Promise<{ url: string; enabled: boolean; secrets: string[] } | null> {
    return endpointForDelivery(this.ctx.sql, this.ctx.env.STORAGE_ENCRYPTION_KEY, endpointId);
  }

  /** An endpoint's failed deliveries since `since`, oldest first (what a recover sends again), and its pending ones' count. */
  toRecover(endpointId: string, since: string, limit: number): ReturnType<typeof unsucceededSince> {
    return unsucceededSince(this.ctx.sql, endpointId, since, limit);
  }

  /** Sends asked for by hand, taken from the endpoint's and the tenant's budgets in one step (src/webhooks/send-budget.ts). */
  takeSends(g: Omit<Parameters<typeof takeSends>[1], "nowMs">): SendGrant {
    return takeSends(this.ctx.sql, { ...g, nowMs: Date.now() });
  }

  settleSends(grantId: string, used: number, pacedUntil: number | null): void {
    settleSends(this.ctx.sql, grantId, used, pacedUntil);
  }

  logPage(q: DeliveryLogQuery): { rows: LoggedDelivery[]; has_more: boolean } {
    return deliveryLogPage(this.ctx.sql, q);
  }

  logged(deliveryId: string): LoggedDelivery | null {
    return loggedDelivery(this.ctx.sql, deliveryId);
  }
}
