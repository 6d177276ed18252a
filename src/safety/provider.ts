/**
 * The one interface every moderation provider implements. A provider scores each item it can
 * review (text, or an image's bytes) in the categories of src/safety/categories.ts, says which
 * of them it flags, and names the items it cannot review (an image for a text-only classifier).
 * It throws ModerationUnavailable when it cannot give a verdict at all (an error status, a
 * timeout, an answer it cannot read); the deployment's failure mode decides what happens then.
 */

export type ReviewItem =
  | { kind: "text"; param: string; text: string }
  | { kind: "image"; param: string; bytes: Uint8Array; mime: string };

export interface ItemVerdict {
  /** JSON Pointer of the reviewed field. */
  param: string;
  /** Category → score in [0, 1] (a provider without scores gives 1 for what it flags). */
  scores: Record<string, number>;
  /** Categories the provider itself flags. */
  flagged: string[];
}

export interface ModerationResult {
  verdicts: ItemVerdict[];
  /** Items the provider does not review (their pointers). */
  unreviewed: string[];
}

export interface ModerationProvider {
  /** `builtin`, `openai`, `llama-guard`. */
  readonly name: string;
  /** Whether a review leaves the Worker (a replay is then answered before one is made). */
  readonly external: boolean;
  /** Whether it looks at images (else admission does not keep their bytes for it). */
  readonly reviewsImages: boolean;
  review(items: ReviewItem[], deadline: number): Promise<ModerationResult>;
}

/** The provider gave no verdict; `message` is safe to log (no credentials). */
export class ModerationUnavailable extends Error {
  constructor(
    message: string,
    readonly reason: "timeout" | "rate_limited" | "upstream_error" | "malformed" | "misconfigured",
  ) {
    super(message);
    this.name = "ModerationUnavailable";
  }
}

/** Milliseconds left before `deadline` (never negative). */
export function remaining(deadline: number): number {
  return Math.max(0, deadline - Date.now());
}
