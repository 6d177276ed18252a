import { type AuditInput, appendAudit } from "../audit/audit-store";
import { newId } from "../lib/ids";
import { policyFrom } from "../lib/url-policy";
import { mailSender } from "../mail/sender";
import { activeOwnerMembers } from "../people/members-store";
import type { AccountContext } from "../tenancy/account-context";
import { readTenant } from "../tenancy/tenant-row";
import { type LoggedDelivery, logDeliveries } from "./delivery-log";
import {
  type AttemptRow,
  attemptRows,
  type DeliveryRow,
  deliveryIdFor,
  deliveryRow,
  nextWebhookAt,
  type RequeueOutcome,
  rearm,
  recordEvent,
  recordTestEvent,
  requeue,
} from "./delivery-rows";
import {
  accountEventMode,
  disableFailing,
  endpointForDelivery,
  endpointRow,
  noteDeliveryEnd,
  subscribedEndpoints,
  type WebhookEndpointRecord,
} from "./endpoint-rows";
import { reportDeliveries, runTaskWebhooks, type WebhookAccount } from "./task-deliveries";
import { TEST_ANSWER_WAIT_MS, waitAtMost } from "./test-wait";

/**
 * The account's own webhook events (`endpoint.disabled`, `key.spend_threshold`, `webhook.test`):
 * fanned out and attempted like a task's, by the account object's alarm; and the delivery ends
 * its task objects report, which move each endpoint's failure streak.
 */
export class AccountEvents {
  private readonly inFlight = new Set<string>();

  constructor(private readonly ctx: AccountContext) {}

  /**
   * A task object reports its deliveries: when made, and when ended. An end moves the endpoint's
   * failure streak; an endpoint whose every delivery has failed for 5 days is disabled here.
   */
  logDeliveries(rows: LoggedDelivery[]): void {
    const sql = this.ctx.sql;
    const nowMs = Date.now();
    const failing = new Set<string>();
    this.ctx.transaction(() => {
      logDeliveries(sql, rows);
      for (const r of rows) {
        if (r.endpoint_id === null || r.status === "pending") continue;
        if (noteDeliveryEnd(sql, r.endpoint_id, r.status, r.created_at, nowMs)) failing.add(r.endpoint_id);
      }
    });
    for (const endpointId of failing) this.disableFailing(endpointId);
  }

  /**
   * Disables an endpoint that failed for 5 days, recording `endpoint.disabled` in the same write
   * (delivered to the endpoints subscribed to it by the alarm), and mails the owners.
   */
  private disableFailing(endpointId: string): void {
    const { sql, env } = this.ctx;
    const now = new Date().toISOString();
    let endpoint: WebhookEndpointRecord | null = null;
    this.ctx.transaction(() => {
      disableFailing(sql, endpointId, now);
      endpoint = endpointRow(sql, endpointId);
      recordEvent(sql, "endpoint.disabled", now, { object: "webhook_endpoint", ...endpoint });
      appendAudit(
        sql,
        {
          actor: { type: "operator", id: "service" },
          action: "webhook_endpoint.disable",
          target: endpointId,
          details: { reason: "failing" },
        },
        now,
      );
    });
    this.ctx.wakeAt(Date.now());
    const disabled = endpoint as WebhookEndpointRecord | null;
    if (!disabled) return;
    const owners = activeOwnerMembers(sql);
    const tenant = readTenant(sql);
    const send = async () => {
      for (const o of owners) {
        await mailSender(env).send({
          to: o.email,
          subject: `Webhook endpoint ${disabled.url} was disabled`,
          text:
            `Every delivery to the webhook endpoint ${disabled.url} (${endpointId}) of ${tenant?.name ?? "your tenant"} ` +
            `has failed since ${disabled.failing_since}, so it was disabled: nothing more is sent to it. ` +
            'Once it answers again, enable it (PATCH {"enabled": true}) and recover what it missed ' +
            "(POST /v1/webhook-endpoints/{endpoint_id}/recover).",
        });
      }
    };
    this.ctx.waitUntil(
      send().catch((e) =>
        console.error(
          JSON.stringify({ level: "error", message: "endpoint disabled mail failed", endpoint_id: endpointId, error: String(e) }),
        ),
      ),
    );
  }

  private account(): WebhookAccount {
    const sql = this.ctx.sql;
    const encryptionKey = this.ctx.env.STORAGE_ENCRYPTION_KEY;
    return {
      webhookTargets: (type, mode) => subscribedEndpoints(sql, type, mode),
      webhookEndpointForDelivery: (id) => endpointForDelivery(sql, encryptionKey, id),
      logWebhookDeliveries: (rows) => this.logDeliveries(rows),
    };
  }

  /** Attempts what is due (the alarm's part). */
  async run(): Promise<void> {
    const sql = this.ctx.sql;
    await runTaskWebhooks({
      task_id: null,
      mode: "live",
      eventMode: (event) => accountEventMode(sql, event.data),
      sql,
      account: this.account(),
      policy: policyFrom(this.ctx.env),
      data: async () => null,
      now: () => Date.now(),
      inFlight: this.inFlight,
    });
  }

  /**
   * A `webhook.test` event to one endpoint, attempted now; answers its delivery after the attempt,
   * or as it stands after TEST_ANSWER_WAIT_MS while the attempt goes on (null: no such endpoint).
   * Retried on the schedule like any event if the attempt fails.
   */
  async sendTest(endpointId: string, audit?: AuditInput): Promise<{ delivery_id: string } | null> {
    const sql = this.ctx.sql;
    const endpoint = endpointRow(sql, endpointId);
    if (!endpoint) return null;
    const eventId = newId("evt");
    const deliveryId = await deliveryIdFor(eventId, endpointId);
    const nowMs = Date.now();
    this.ctx.transaction(() => {
      recordTestEvent(sql, { event_id: eventId, delivery_id: deliveryId, endpoint_id: endpointId }, nowMs, {
        object: "webhook_test",
        endpoint_id: endpointId,
        message: "A test event: this endpoint receives and verifies this tenant's webhooks.",
      });
      if (audit) appendAudit(sql, audit, new Date(nowMs).toISOString());
    });
    // A receiver slower than the wait: the attempt goes on, its delivery is logged pending now and follows.
    if (!(await waitAtMost(this.run(), TEST_ANSWER_WAIT_MS))) {
      await reportDeliveries({ task_id: null, mode: "live", sql, account: this.account() });
    }
    const next = nextWebhookAt(sql, Date.now());
    if (next != null) this.ctx.wakeAt(next);
    return { delivery_id: deliveryId };
  }

  /** One of the account's own deliveries with every attempt. */
  delivery(deliveryId: string): (DeliveryRow & { attempts: AttemptRow[] }) | null {
    const row = deliveryRow(this.ctx.sql, deliveryId);
    return row ? { ...row, attempts: attemptRows(this.ctx.sql, deliveryId) } : null;
  }

  /** As a task object's: one more attempt, now (`wait`) or from the alarm. */
  async resend(deliveryId: string, wait: boolean): Promise<(DeliveryRow & { attempts: AttemptRow[] }) | null> {
    if (!rearm(this.ctx.sql, deliveryId, Date.now())) return null;
    if (wait) await this.run();
    else this.ctx.wakeAt(Date.now());
    return this.delivery(deliveryId);
  }

  /** As a task object's: a recover makes a failed delivery due at `atMs`, one still pending is left alone. */
  async requeue(deliveryId: string, atMs: number): Promise<RequeueOutcome | null> {
    const outcome = requeue(this.ctx.sql, deliveryId, atMs);
    if (outcome !== "queued") return outcome;
    // The log shows it pending at once, so the next recover goes on to the deliveries after it.
    await reportDeliveries({
      task_id: null,
      // A recovered delivery is an endpoint's: the log keeps the endpoint's mode whatever this says.
      mode: "live",
      sql: this.ctx.sql,
      account: {
        webhookTargets: () => [],
        webhookEndpointForDelivery: async () => null,
        logWebhookDeliveries: (rows) => this.logDeliveries(rows),
      },
    });
    this.ctx.wakeAt(atMs);
    return outcome;
  }
}
