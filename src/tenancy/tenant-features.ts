/**
 * Which optional features a tenant uses, as its account object last told this isolate: its own
 * provider keys, webhook endpoints, a default storage destination. A tenant without one pays no
 * call for it: a create reads what the key's resolution carries (src/accounts/key-cache.ts), a task
 * object what the account answered its hold or its settlement (docs/scaling.md, "Features that cost
 * nothing unused"). An answer is trusted for the key cache's bound only, so a feature turned on
 * reaches every isolate within it, as a key change does.
 */

export interface TenantFeatures {
  /** An active or unchecked provider key (src/provider-keys). */
  provider_keys: boolean;
  /** A webhook endpoint, of either mode, not deleted (src/webhooks). */
  webhook_endpoints: boolean;
  /** A default storage destination (src/destinations). */
  default_destination: boolean;
}

export type Feature = keyof TenantFeatures;

/**
 * How long an isolate may use what a tenant's account told it: a key's resolution
 * (src/accounts/key-cache.ts) and the features below.
 */
export const KNOWLEDGE_MAX_AGE_MS = 5_000;
/** Tenants remembered per isolate (the oldest are forgotten first). */
const MAX_TENANTS = 10_000;

const known = new Map<string, { features: TenantFeatures; at: number }>();

/** What the account answered at `at` (ms since the epoch). */
export function learnFeatures(tenantId: string, features: TenantFeatures | undefined, at = Date.now()): void {
  if (!features) return;
  const before = known.get(tenantId);
  if (before && before.at > at) return;
  known.delete(tenantId);
  known.set(tenantId, { features, at });
  if (known.size > MAX_TENANTS) known.delete(known.keys().next().value as string);
}

/** True only when an answer younger than KNOWLEDGE_MAX_AGE_MS says the tenant does not use `feature`. */
export function knownWithout(tenantId: string, feature: Feature, now = Date.now()): boolean {
  const entry = known.get(tenantId);
  return entry !== undefined && now - entry.at < KNOWLEDGE_MAX_AGE_MS && !entry.features[feature];
}

/** This isolate forgets what it was told of a tenant (it changed one of its features here). */
export function forgetFeatures(tenantId: string): void {
  known.delete(tenantId);
  kept.delete(tenantId);
}

/**
 * What a tenant that uses a feature needs of it on every create (its provider-key plans), kept
 * under the same bound: a tenant with the feature on pays the account's call once per bound per
 * isolate, not once per request; a change made here is forgotten at once (forgetFeatures).
 */
const kept = new Map<string, Map<string, { value: unknown; at: number }>>();

export function keptAnswer<T>(tenantId: string, name: string, now = Date.now()): T | undefined {
  const entry = kept.get(tenantId)?.get(name);
  return entry && now - entry.at < KNOWLEDGE_MAX_AGE_MS ? (entry.value as T) : undefined;
}

/** Keeps the account's answer `name` as read at `at` (taken before the call, so the bound runs from then). */
export function keepAnswer(tenantId: string, name: string, value: unknown, at: number): void {
  const answers = kept.get(tenantId) ?? new Map<string, { value: unknown; at: number }>();
  const before = answers.get(name);
  if (before && before.at > at) return;
  answers.set(name, { value, at });
  kept.delete(tenantId);
  kept.set(tenantId, answers);
  if (kept.size > MAX_TENANTS) kept.delete(kept.keys().next().value as string);
}
