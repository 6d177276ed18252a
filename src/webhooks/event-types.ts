/**
 * The events an endpoint may subscribe to. `*` subscribes to every type, including those added
 * later. `webhook.test` is not subscribable: it goes to the one endpoint a test is sent to.
 */
export const EVENT_TYPES = [
  "task.succeeded",
  "task.failed",
  "task.canceled",
  "key.spend_threshold",
  "batch.completed",
  "endpoint.disabled",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const ALL_EVENTS = "*";
export type Subscription = EventType | typeof ALL_EVENTS;
export const SUBSCRIPTIONS: readonly Subscription[] = [ALL_EVENTS, ...EVENT_TYPES];

export function subscribes(events: readonly Subscription[], type: EventType): boolean {
  return events.includes(ALL_EVENTS) || events.includes(type);
}

/** The event a tenant sends itself to try an endpoint: delivered to that endpoint alone. */
export const TEST_EVENT = "webhook.test";
/** Every type a delivery may carry. */
export type DeliveredType = EventType | typeof TEST_EVENT;
