/** A card's conditional rules, applied to the request's fields. */
import { unicodeLength } from "../prompt-length";
import type { InterfaceFile, ModelFile } from "../schema";
import { pointer } from "./controls";
import type { CandidateFailure } from "./types";

function matches(cond: { operator: string; value?: unknown }, actual: unknown): boolean {
  switch (cond.operator) {
    case "equals":
      return actual === cond.value;
    case "not_equals":
      return actual !== undefined && actual !== cond.value;
    case "in":
      return Array.isArray(cond.value) && cond.value.includes(actual);
    case "not_in":
      return actual !== undefined && Array.isArray(cond.value) && !cond.value.includes(actual);
    case "present":
      return actual !== undefined && actual !== null;
    case "absent":
      return actual === undefined || actual === null;
    case "greater_than":
      return typeof actual === "number" && typeof cond.value === "number" && actual > cond.value;
    case "less_than":
      return typeof actual === "number" && typeof cond.value === "number" && actual < cond.value;
    default:
      return false;
  }
}

/** Card rules: when every condition holds, the effect applies (reject, require or restrict a field). */
export function checkRules(model: ModelFile, card: InterfaceFile, fields: Record<string, unknown>): CandidateFailure[] {
  const failures: CandidateFailure[] = [];
  for (const rule of card.rules) {
    if (!rule.when.every((c) => matches(c, fields[c.field]))) continue;
    const { type, field, value, message } = rule.effect;
    const actual = fields[field];
    const base = {
      model: model.model,
      code: `rule_${rule.id}`,
      param: pointer(field),
      received: actual,
      error: "unsupported_option" as const,
    };
    const say = message ?? rule.description ?? `${model.model}: rule ${rule.id} applies to '${field}'.`;
    // A reject fails when its field is sent, or when the condition itself is about that field
    // (e.g. "references absent → reject references").
    const conditionIsTheField = rule.when.some((c) => c.field === field);
    if (type === "reject" && (conditionIsTheField || (actual !== undefined && actual !== null))) {
      failures.push({ ...base, message: say, supported: null });
    }
    if (type === "require" && (actual === undefined || actual === null || (value !== undefined && actual !== value))) {
      failures.push({ ...base, message: say, supported: value ?? "required" });
    }
    if (type === "restrict" && actual !== undefined && actual !== null) {
      const r = (value ?? {}) as {
        allowed_values?: unknown[];
        max_length?: number;
        max_count?: number;
        maximum?: number;
        minimum?: number;
      };
      const bad =
        (Array.isArray(value) && !value.includes(actual)) ||
        (r.allowed_values && !r.allowed_values.includes(actual)) ||
        (r.max_length !== undefined && typeof actual === "string" && unicodeLength(actual) > r.max_length) ||
        (r.max_count !== undefined && Array.isArray(actual) && actual.length > r.max_count) ||
        (r.max_count !== undefined && typeof actual === "number" && actual > r.max_count) ||
        (r.maximum !== undefined && typeof actual === "number" && actual > r.maximum) ||
        (r.minimum !== undefined && typeof actual === "number" && actual < r.minimum);
      if (bad) failures.push({ ...base, message: say, supported: value });
    }
  }
  return failures;
}
