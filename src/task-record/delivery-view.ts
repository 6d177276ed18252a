/** How the task envelope shows a delivery; apart from the delivery steps so the task record can use it alone. */
import type { DeliveryItem, DeliveryState } from "./delivery-state";

function publicItem(i: DeliveryItem) {
  return { destination_id: i.destination_id, key: i.key, etag: i.etag, bytes: i.bytes };
}

/** The envelope's `delivery`: where the outputs go, whether they arrived, and which failed. */
export function deliveryView(state: DeliveryState | null | undefined) {
  if (!state) return null;
  const mine = state.items.filter((i) => i.destination_id === state.destination_id);
  const failed = mine.filter((i) => i.status === "failed");
  const status =
    mine.length === 0 || mine.some((i) => i.status === "pending") ? "pending" : failed.length > 0 ? "failed" : "delivered";
  return {
    destination_id: state.destination_id,
    status,
    attempt_count: state.attempt_count,
    last_attempt_at: state.last_attempt_at,
    failed: failed.map((i) => ({ index: i.index, key: i.key, error: i.error })),
  };
}

/** The envelope with deliveries shown: each artifact's `delivered`, the `delivery` object and the warning. */
export function withDeliveries<E extends { output: Record<string, unknown> | null; warnings: unknown[] }>(
  env: E,
  state: DeliveryState | null | undefined,
): E & { delivery?: ReturnType<typeof deliveryView> } {
  if (!state) return env;
  const view = deliveryView(state);
  const artifacts = env.output?.artifacts as { index: number }[] | undefined;
  const output =
    env.output && artifacts
      ? {
          ...env.output,
          artifacts: artifacts.map((a) => ({
            ...a,
            delivered: state.items.filter((i) => i.index === a.index && i.status === "delivered").map(publicItem),
          })),
        }
      : env.output;
  const warnings =
    view?.status === "failed"
      ? [
          ...env.warnings,
          {
            code: "output_delivery_failed",
            message: `${view.failed.length} output(s) could not be written to storage destination ${view.destination_id}; the service-hosted copies are kept. Deliver them again with POST /v1/tasks/{task_id}/deliveries.`,
            field: "/output_destination_id",
          },
        ]
      : env.warnings;
  return { ...env, output, warnings, delivery: view };
}
