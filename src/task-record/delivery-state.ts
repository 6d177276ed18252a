/** The delivery state the task record keeps (`delivery`): plain data, one item per output and destination. */

export interface DeliveryItem {
  destination_id: string;
  index: number;
  artifact_id: string;
  key: string;
  content_type: string;
  bytes: number;
  status: "pending" | "delivered" | "failed";
  etag: string | null;
  /** The store's last refusal, e.g. `SlowDown: Please reduce your request rate.`; null once delivered. */
  error: string | null;
  delivered_at: string | null;
}

export interface DeliveryState {
  /** Where the outputs go now: the create's destination, or the one a later "deliver again" named. */
  destination_id: string;
  /** The destination's prefix when the delivery was planned: keys stay the same across attempts. */
  prefix: string;
  attempt_count: number;
  last_attempt_at: string | null;
  /** One per output and destination, made when the outputs are stored. */
  items: DeliveryItem[];
}
