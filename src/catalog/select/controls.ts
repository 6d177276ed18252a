/** Sent controls against the card's control specs: type, allowed values, range, length, item count. */
import { unicodeLength } from "../prompt-length";
import type { Control } from "../schema";
import type { CandidateFailure } from "./types";

export const pointer = (field: string) => `/${field.split(".").join("/")}`;

function typeMatches(control: Control, value: unknown): boolean {
  switch (control.value_type) {
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
  }
}

export function checkControl(
  modelId: string,
  control: Control | undefined,
  field: string,
  value: unknown,
): CandidateFailure | null {
  const base = { model: modelId, param: pointer(field), received: value, error: "unsupported_option" as const };
  const code = `unsupported_${field.split(".").pop()}`;
  if (!control) return { ...base, code, message: `${modelId} does not support '${field}'.`, supported: null };
  if (value === null) {
    return control.nullable || control.null_behavior !== "invalid"
      ? null
      : { ...base, code, message: `${modelId} does not accept null for '${field}'.`, supported: "non-null" };
  }
  if (!typeMatches(control, value)) {
    return {
      ...base,
      code,
      message: `'${field}' must be of type ${control.value_type} for ${modelId}.`,
      supported: control.value_type,
    };
  }
  if (control.allowed_values && !control.allowed_values.some((v) => v === value)) {
    return {
      ...base,
      code,
      message: `${modelId} does not support ${field}=${JSON.stringify(value)}.`,
      supported: control.allowed_values,
    };
  }
  if (typeof value === "number") {
    if (
      (control.minimum !== undefined && value < control.minimum) ||
      (control.maximum !== undefined && value > control.maximum)
    ) {
      return {
        ...base,
        code,
        message: `${field}=${value} is outside ${modelId}'s range.`,
        supported: { minimum: control.minimum, maximum: control.maximum },
      };
    }
  }
  if (typeof value === "string" && control.max_length !== undefined && unicodeLength(value) > control.max_length) {
    return {
      ...base,
      code,
      message: `'${field}' is longer than ${control.max_length} characters for ${modelId}.`,
      supported: { max_length: control.max_length },
    };
  }
  if (Array.isArray(value)) {
    if (
      (control.min_items !== undefined && value.length < control.min_items) ||
      (control.max_items !== undefined && value.length > control.max_items)
    ) {
      return {
        ...base,
        code,
        received: value.length,
        message: `'${field}' has ${value.length} items; ${modelId} takes ${control.min_items ?? 0} to ${control.max_items ?? "any"}.`,
        supported: { min_items: control.min_items, max_items: control.max_items },
      };
    }
  }
  return null;
}
