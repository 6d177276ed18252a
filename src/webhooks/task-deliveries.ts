/**
 * A task object's webhook work, run by its alarm once the task is terminal: fan each recorded
 * event out to the endpoints subscribed to it (asked of the tenant's account), then make every
 * attempt that is due, on the schedule of callbacks (now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h).
 */
import type { KeyMode } from "../keys/api-keys";
import type { UrlPolicy } from "../lib/url-policy";
import { knownWithout } from "../tenancy/tenant-features";
import { RETRY_SCHEDULE_MS } from "./callback-delivery";
import type { LoggedDelivery } from "./delivery-log";
import {
  beginAttempt,
  type DeliveryRow,
  deliveryIdFor,
  dueDeliveries,
  fanOut,
  finishAttempt,
  markReported,
  recordAttempt,
  resumeInterrupted,
  unfannedEvents,
  unreported,
  type WebhookEvent,
  webhookEvent,
} from "./delivery-rows";
import { type EventType, TEST_EVENT } from "./event-types";
import { sendWebhook } from "./send";

/**
 * The account as a task's fan-out sees it: a tenant known to have no endpoint (an answer of its
 * account younger than the key cache's bound, src/tenancy/tenant-features.ts) is not asked for them.
 */
export function webhookAccount(account: WebhookAccount, tenantId: string): WebhookAccount {
  if (!knownWithout(tenantId, "webhook_endpoints")) return account;
  return {
    webhookTargets: () => [],
    webhookEndpointForDelivery: (endpointId) => account.webhookEndpointForDelivery(endpointId),
    logWebhookDeliveries: (rows) => account.logWebhookDeliveries(rows),
  };
}

/** What the deliveries need of the tenant's account: a stub from a task object, the object itself inside it. */
export interface WebhookAccount {
  webhookTargets(
    type: EventType,
    mode: KeyMode,
  ): Promise<{ endpoint_id: string; enabled: boolean }[]> | { endpoint_id: string; enabled: boolean }[];
  webhookEndpointForDelivery(endpointId: string): Promise<{ url: string; enabled: boolean; secrets: string[] } | null>;
  logWebhookDeliveries(rows: LoggedDelivery[]): Promise<unknown> | unknown;
}

export interface TaskWebhookContext {
  /** The task object that holds the deliveries; null: the account itself. */
  task_id: string | null;
  /** The holder's key mode: its events go to that mode's endpoints only, its callbacks are logged under it. */
  mode: KeyMode;
  /** The account's own events are each of their endpoint's mode; absent: every event is of `mode`. */
  eventMode?: (event: WebhookEvent) => KeyMode;
  sql: SqlStorage;
  account: WebhookAccount;
  policy: UrlPolicy;
  /** The event's `data` when not fixed at the event: the final task envelope, as a read and the callback show it. */
  data: () => Promise<unknown>;
  /** The clock (tests move it). */
  now: () => number;
  /** Deliveries this instance is attempting right now (another run of the object may overlap). */
  inFlight: Set<string>;
}

/** The body every endpoint receives: `{type, created_at, data}`. */
export function eventBody(event: WebhookEvent, data: unknown): string {
  return JSON.stringify({ type: event.type, created_at: event.created_at, data });
}

export async function runTaskWebhooks(w: TaskWebhookContext): Promise<void> {
  // Attempts a restart interrupted were counted, never answered: they are made again now.
  resumeInterrupted(w.sql, w.now(), w.inFlight);
  for (const event of unfannedEvents(w.sql)) {
    // A test event names its one endpoint when it is recorded; it is never fanned out here.
    const endpoints = event.type === TEST_EVENT ? [] : await w.account.webhookTargets(event.type, w.eventMode?.(event) ?? w.mode);
    const targets = await Promise.all(
      endpoints.map(async (e) => ({ ...e, delivery_id: await deliveryIdFor(event.event_id, e.endpoint_id) })),
    );
    fanOut(w.sql, event.event_id, targets, w.now());
  }
  const due = dueDeliveries(w.sql, w.now());
  if (due.length > 0) {
    let envelope: Promise<unknown> | undefined;
    const dataOf = (event: WebhookEvent): Promise<unknown> => {
      if (event.data != null) return Promise.resolve(JSON.parse(event.data));
      envelope ??= w.data();
      return envelope;
    };
    await Promise.all(due.map((d) => attempt(w, d, dataOf)));
  }
  await reportDeliveries(w);
}

/** Tells the tenant's log of the deliveries made or ended since the last report (retried by the alarm). */
export async function reportDeliveries(w: Pick<TaskWebhookContext, "task_id" | "mode" | "sql" | "account">): Promise<void> {
  const rows = unreported(w.sql);
  if (rows.length === 0) return;
  try {
    await w.account.logWebhookDeliveries(rows.map((r) => ({ ...r, task_id: w.task_id, mode: w.mode })));
  } catch {
    return;
  }
  markReported(w.sql, rows);
}

async function attempt(w: TaskWebhookContext, d: DeliveryRow, dataOf: (e: WebhookEvent) => Promise<unknown>): Promise<void> {
  const event = webhookEvent(w.sql, d.event_id);
  if (!event) return;
  const data = await dataOf(event);
  const endpoint = await w.account.webhookEndpointForDelivery(d.endpoint_id as string);
  const stoppedAt = new Date(w.now()).toISOString();
  if (!endpoint) {
    finishAttempt(w.sql, d.delivery_id, { status: "failed", error: "endpoint deleted", at: stoppedAt });
    return;
  }
  if (!endpoint.enabled) {
    finishAttempt(w.sql, d.delivery_id, { status: "failed", error: "endpoint disabled", at: stoppedAt });
    return;
  }
  // The row may have been taken by an overlapping run while the endpoint was read.
  if (w.inFlight.has(d.delivery_id)) return;
  w.inFlight.add(d.delivery_id);
  const n = beginAttempt(w.sql, d.delivery_id);
  const startedMs = w.now();
  const result = await sendWebhook({
    url: endpoint.url,
    eventId: event.event_id,
    body: eventBody(event, data),
    secrets: endpoint.secrets,
    policy: w.policy,
    nowMs: startedMs,
  }).finally(() => w.inFlight.delete(d.delivery_id));
  const answeredMs = w.now();
  recordAttempt(w.sql, { delivery_id: d.delivery_id, attempt: n, attempted_at: new Date(startedMs).toISOString(), ...result });
  if (result.ok) {
    finishAttempt(w.sql, d.delivery_id, { status: "succeeded", error: null, at: new Date(answeredMs).toISOString() });
  } else if (n >= RETRY_SCHEDULE_MS.length) {
    finishAttempt(w.sql, d.delivery_id, {
      status: "failed",
      error: `${result.error}; gave up after ${n} attempts`,
      at: new Date(answeredMs).toISOString(),
    });
  } else {
    finishAttempt(w.sql, d.delivery_id, {
      status: "pending",
      error: result.error as string,
      nextAt: answeredMs + (RETRY_SCHEDULE_MS[n] as number),
    });
  }
}
