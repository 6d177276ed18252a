/** What the task keeps of its review (the task record's `safety`). */
export interface SafetyRecord {
  /** `builtin`, `openai`, `llama-guard`. */
  provider: string;
  /** `passed`; `skipped` (the provider gave no verdict, fail-open); `off` (the tenant's policy). */
  outcome: "passed" | "skipped" | "off";
  /** The highest score of each category over the reviewed fields (scores of 0 left out). */
  max_scores: Record<string, number>;
  /** Inputs the provider does not review (their pointers): videos, audio, images for a text-only provider. */
  unreviewed: string[];
  /** Why the review was skipped (fail-open). */
  skipped_reason?: string;
  reviewed_at: string;
}
