/**
 * Content review, the service admission and chat call before anything is reserved: the provider
 * the deployment configured (the built-in reviewer for test-mode keys) scores each text field and
 * image input, the tenant's policy decides which categories refuse, and the outcome is one of
 *  - refused: `400 safety_rejected`, `param` the first flagged field, `details.categories`,
 *    `details.fields` and `details.recovery` (a new request with changed content);
 *  - admitted: with the record the task keeps (provider, highest scores, what was not reviewed);
 *  - the provider gave no verdict: fail-closed answers `503 model_unavailable` (retryable),
 *    fail-open admits with a `safety_review_skipped` warning (SAFETY_FAILURE_MODE).
 */

import type { CatalogBundle } from "../catalog/build";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import type { KeyMode } from "../keys/api-keys";
import type { Warning } from "../operations/types";
import type { TaskError } from "../task-record/record";
import type { SafetyRecord } from "../task-record/safety-record";
import { accountSlice } from "../tenancy/account-slice";
import type { SafetyAccountSlice } from "./account-slice";
import { moderationProvider, type SafetyConfig, safetyConfig } from "./config";
import { DEFAULT_POLICY, refusedCategories, type SafetyPolicy } from "./policy";
import { type ModerationProvider, ModerationUnavailable, type ReviewItem } from "./provider";

export type { SafetyRecord } from "../task-record/safety-record";

export const RECOVERY = { action: "change_input", requires_input_change: true, client_request_id: "new" } as const;

/** A refusal: the error the client gets (and gets again on a retry) and what the audit log keeps. */
export interface Refusal {
  error: TaskError;
  audit: {
    provider: string;
    param: string;
    categories: string[];
    fields: { param: string; categories: string[]; scores: Record<string, number> }[];
  };
}

export type ReviewOutcome =
  | { kind: "admitted"; record: SafetyRecord; warnings: Warning[] }
  | { kind: "refused"; refusal: Refusal };

export interface Reviewer {
  provider: ModerationProvider;
  policy: SafetyPolicy;
  config: SafetyConfig;
}

/** Who is reviewed: the tenant, the key's mode, and the policy the key carries (read from the account when absent). */
export interface Reviewed {
  tenant_id: string;
  mode: KeyMode;
  safety_policy?: SafetyPolicy;
}

export async function reviewerFor(env: Env, who: Reviewed, bundle: CatalogBundle | null): Promise<Reviewer> {
  const policy =
    who.safety_policy ?? (await accountSlice<SafetyAccountSlice>(env, who.tenant_id).safetyPolicy()) ?? DEFAULT_POLICY;
  return { provider: moderationProvider(env, who.mode, bundle), policy, config: safetyConfig(env) };
}

/** Scores kept to 4 decimals: enough to compare with a threshold, small to store. */
const round = (n: number) => Math.round(n * 10_000) / 10_000;

function nonZero(scores: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(scores)
      .map(([c, s]) => [c, round(s)] as const)
      .filter(([, s]) => s > 0)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

function log(level: "warn" | "error", message: string, extra: Record<string, unknown>) {
  console[level === "warn" ? "warn" : "error"](JSON.stringify({ level, message, ...extra }));
}

export async function review(reviewer: Reviewer, items: ReviewItem[], requestId: string): Promise<ReviewOutcome> {
  const { provider, policy, config } = reviewer;
  const at = new Date().toISOString();
  if (!policy.enabled) {
    return {
      kind: "admitted",
      record: { provider: provider.name, outcome: "off", max_scores: {}, unreviewed: items.map((i) => i.param), reviewed_at: at },
      warnings: [],
    };
  }
  let result: Awaited<ReturnType<ModerationProvider["review"]>>;
  try {
    result = await provider.review(items, Date.now() + config.timeoutMs);
  } catch (e) {
    if (!(e instanceof ModerationUnavailable)) throw e;
    log("error", `content review failed: ${e.message}`, { request_id: requestId, provider: provider.name, reason: e.reason });
    if (config.failureMode === "closed") {
      throw new ApiError(
        "model_unavailable",
        "Content safety review is unavailable right now, so the request was not admitted and nothing was reserved; retry shortly with the same Idempotency-Key.",
        { retryAfter: 2, details: { reason: "safety_review_unavailable", provider: provider.name } },
      );
    }
    return {
      kind: "admitted",
      record: {
        provider: provider.name,
        outcome: "skipped",
        max_scores: {},
        unreviewed: items.map((i) => i.param),
        skipped_reason: e.reason,
        reviewed_at: at,
      },
      warnings: [
        {
          code: "safety_review_skipped",
          message:
            "The content safety review was unavailable and this deployment admits requests without it (fail-open); the content was not reviewed before it was sent to the model.",
          field: "",
        },
      ],
    };
  }

  // Refusals in the order the fields were given, so `param` is the first flagged one.
  const order = new Map(items.map((item, i) => [item.param, i]));
  const verdicts = [...result.verdicts].sort((a, b) => (order.get(a.param) ?? 0) - (order.get(b.param) ?? 0));
  const fields = verdicts
    .map((v) => ({ param: v.param, categories: refusedCategories(v, policy), scores: nonZero(v.scores) }))
    .filter((f) => f.categories.length > 0);
  if (fields.length > 0) {
    const first = fields[0] as (typeof fields)[number];
    const categories = [...new Set(fields.flatMap((f) => f.categories))].sort();
    return {
      kind: "refused",
      refusal: {
        error: {
          code: "safety_rejected",
          message: `The content at ${first.param || "the request"} failed the content safety review (${categories.join(", ")}). Change it and submit the changed content as a new request (for a task, under a new Idempotency-Key).`,
          param: first.param,
          details: {
            categories,
            fields: fields.map((f) => ({ param: f.param, categories: f.categories })),
            recovery: { ...RECOVERY },
          },
        },
        audit: { provider: provider.name, param: first.param, categories, fields },
      },
    };
  }
  const max: Record<string, number> = {};
  for (const v of verdicts) for (const [c, s] of Object.entries(v.scores)) max[c] = Math.max(max[c] ?? 0, s);
  return {
    kind: "admitted",
    record: {
      provider: provider.name,
      outcome: "passed",
      max_scores: nonZero(max),
      unreviewed: result.unreviewed,
      reviewed_at: at,
    },
    warnings: [],
  };
}

/** The refusal as the client gets it. */
export function refusalError(error: TaskError): ApiError {
  return new ApiError(error.code, error.message, { param: error.param, details: error.details });
}
