/**
 * What a key may spend and use: credits per period, and the models and capabilities it may
 * call. Stored on the key's row (docs/storage/account-object.md); the credit limit is enforced
 * by the account object in the same method that holds the credits (docs/spend-controls.md), the
 * lists by admission and the catalog from the key as cached with the caller.
 */
import { dec, fmt } from "../lib/decimal";
import type { Period } from "./key-period";

export interface KeyLimits {
  /** Credits the key may have reserved plus captured in one period; absent: no credit limit. */
  credits?: string;
  period: Period;
  /** Model ids the key may call; absent: every model. */
  models?: string[];
  /** Capability names (chat counts as `chat_completion`); absent: every capability. */
  capabilities?: string[];
}

/** The alert thresholds, in percent of the credit limit. */
export const ALERT_THRESHOLDS = [50, 80, 100] as const;

/** A limits object as stored and shown: the period always named, empty lists kept (they allow nothing). */
export function normalizeLimits(l: {
  credits?: string | null;
  period?: Period | null;
  models?: string[] | null;
  capabilities?: string[] | null;
}): KeyLimits | null {
  const out: KeyLimits = { period: l.period ?? "total" };
  if (l.credits != null) out.credits = fmt(dec(l.credits));
  if (l.models != null) out.models = [...new Set(l.models)];
  if (l.capabilities != null) out.capabilities = [...new Set(l.capabilities)];
  return out.credits === undefined && out.models === undefined && out.capabilities === undefined && l.period == null ? null : out;
}

export function allowsModel(limits: KeyLimits | null | undefined, model: string): boolean {
  return !limits?.models || limits.models.includes(model);
}

export function allowsCapability(limits: KeyLimits | null | undefined, capability: string): boolean {
  return !limits?.capabilities || limits.capabilities.includes(capability);
}

/** Whether the key's spend is capped (its admissions must then be held, never charged unheld). */
export function hasCreditLimit(limits: KeyLimits | null | undefined): boolean {
  return limits?.credits !== undefined;
}

/** The thresholds passed when spend went from `before` to `after` against `limit`. */
export function crossedThresholds(limit: string, before: string, after: string): number[] {
  const l = dec(limit);
  // A limit of 0 admits nothing, so nothing is ever spent against it.
  if (l.lte(0)) return [];
  return ALERT_THRESHOLDS.filter((t) => {
    const mark = l.times(t).div(100);
    return dec(before).lt(mark) && dec(after).gte(mark);
  });
}

/**
 * Why `wanted` would be wider than `own` (the managing key's limits), as the field that widens
 * it; null when it is within. A limited manager may only hand out keys at least as limited.
 */
export function widerThan(wanted: KeyLimits | null, own: KeyLimits | null): { param: string; reason: string } | null {
  if (!own) return null;
  if (own.credits !== undefined) {
    if (wanted?.credits === undefined) return { param: "/limits/credits", reason: `must be at most ${own.credits}` };
    if (dec(wanted.credits).gt(own.credits)) return { param: "/limits/credits", reason: `must be at most ${own.credits}` };
    if (wanted.period !== own.period) return { param: "/limits/period", reason: `must be ${own.period}, as the managing key's` };
  }
  for (const field of ["models", "capabilities"] as const) {
    const mine = own[field];
    if (!mine) continue;
    const theirs = wanted?.[field];
    if (!theirs) return { param: `/limits/${field}`, reason: `must list only ${mine.join(", ") || "nothing"}` };
    const i = theirs.findIndex((x) => !mine.includes(x));
    if (i >= 0) return { param: `/limits/${field}/${i}`, reason: `${theirs[i]} is not allowed to the managing key` };
  }
  return null;
}
