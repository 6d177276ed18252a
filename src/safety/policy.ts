/**
 * A tenant's content review policy, set by the operator (`PUT /admin/v1/tenants/{id}/safety`) and
 * kept in the tenant's AccountObject (`tenant.safety_policy`). It can only make review stricter,
 * or turn it off for a tenant that runs its own moderation:
 *  - `enabled: false`: nothing of the tenant's is reviewed (the decision is still recorded);
 *  - `thresholds`: a category also refuses when its score reaches the tenant's threshold;
 *  - `block_categories`: categories refused from a low score (their threshold, else BLOCK_THRESHOLD).
 * What the provider itself flags always refuses: a policy never lets flagged content through.
 */
import { z } from "@hono/zod-openapi";
import { CATEGORIES } from "./categories";
import type { ItemVerdict } from "./provider";

export interface SafetyPolicy {
  enabled: boolean;
  block_categories: string[];
  thresholds: Record<string, number>;
}

export const DEFAULT_POLICY: SafetyPolicy = Object.freeze({ enabled: true, block_categories: [], thresholds: {} });

/** The score from which a blocked category refuses when the tenant gave it no threshold of its own. */
export const BLOCK_THRESHOLD = 0.3;

const Category = z.string().refine((c) => CATEGORIES.includes(c), { message: `must be one of ${CATEGORIES.join(", ")}` });

/** The operator's body; `thresholds` keys are categories, values in (0, 1]. */
export const SafetyPolicyInput = z
  .object({
    enabled: z.boolean(),
    block_categories: z.array(Category).max(CATEGORIES.length).optional(),
    thresholds: z
      .record(z.string(), z.number().gt(0).max(1))
      .optional()
      .superRefine((t, ctx) => {
        for (const key of Object.keys(t ?? {})) {
          if (!CATEGORIES.includes(key)) {
            ctx.addIssue({ code: "custom", path: [key], message: `'${key}' is not a category (${CATEGORIES.join(", ")})` });
          }
        }
      }),
  })
  .strict();

export function normalizePolicy(input: z.infer<typeof SafetyPolicyInput>): SafetyPolicy {
  return {
    enabled: input.enabled,
    block_categories: [...new Set(input.block_categories ?? [])].sort(),
    thresholds: Object.fromEntries(Object.entries(input.thresholds ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}

/** A stored policy (JSON text, or null for none) as the policy that applies. */
export function parsePolicy(stored: string | null | undefined): SafetyPolicy {
  if (!stored) return DEFAULT_POLICY;
  try {
    const parsed = SafetyPolicyInput.safeParse(JSON.parse(stored));
    // A policy that no longer reads (a category renamed) keeps review on, never off.
    return parsed.success ? normalizePolicy(parsed.data) : DEFAULT_POLICY;
  } catch {
    return DEFAULT_POLICY;
  }
}

/** The categories that refuse one reviewed field under a policy. */
export function refusedCategories(verdict: ItemVerdict, policy: SafetyPolicy): string[] {
  const refused = new Set(verdict.flagged);
  for (const [category, score] of Object.entries(verdict.scores)) {
    const threshold = policy.thresholds[category] ?? (policy.block_categories.includes(category) ? BLOCK_THRESHOLD : undefined);
    if (threshold !== undefined && score >= threshold) refused.add(category);
  }
  return [...refused].sort();
}
