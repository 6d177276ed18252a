/**
 * A validation issue in the service's own words: what the field is and what it must be, never
 * the validator's phrasing ("Invalid input: expected string, received undefined"). Checks the
 * schemas spell out themselves (`refine` messages) are already worded and pass as they are.
 */
import type { z } from "zod";

const A_TYPE: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  bigint: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
  date: "a date",
  literal: "a fixed value",
};

/** The JSON type of a value as a client reads it (`null` and arrays apart from objects). */
function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a number";
  return A_TYPE[typeof value] ?? typeof value;
}

/** The value at `path` in `input`, or undefined when any step is missing. */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let at: unknown = input;
  for (const step of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<PropertyKey, unknown>)[step];
  }
  return at;
}

const UNITS: Record<string, [string, string]> = {
  string: ["character", "characters"],
  array: ["item", "items"],
  set: ["item", "items"],
  file: ["byte", "bytes"],
};

function bound(issue: { origin?: string; inclusive?: boolean }, limit: number | bigint, side: "most" | "least"): string {
  const unit = UNITS[issue.origin ?? ""];
  if (unit) return `at ${side} ${limit} ${limit === 1 || limit === 1n ? unit[0] : unit[1]}`;
  const inclusive = issue.inclusive !== false;
  if (side === "most") return inclusive ? `at most ${limit}` : `below ${limit}`;
  return inclusive ? `at least ${limit}` : `above ${limit}`;
}

const quote = (v: unknown) => (typeof v === "string" ? `'${v}'` : String(v));

function oneOf(values: readonly unknown[]): string {
  if (values.length === 1) return quote(values[0]);
  return `one of ${values.map(quote).join(", ")}`;
}

/** Codes whose reason is this module's, which begins with a verb about the field it names. */
const WORDED_HERE = new Set([
  "invalid_type",
  "too_big",
  "too_small",
  "invalid_value",
  "unrecognized_keys",
  "not_multiple_of",
  "invalid_key",
  "invalid_element",
  "invalid_union",
]);

/**
 * One issue as a sentence naming its field: "'model' is required (a string)", "'max_output_tokens'
 * must be at most 1000000". A check's own message (a refine, a pattern's) is kept as it is worded.
 */
export function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const reason = issueReason(issue, input);
  if (!WORDED_HERE.has(issue.code) && !(issue.code === "invalid_format" && issue.format !== "regex")) return reason;
  const path = issue.code === "unrecognized_keys" && issue.keys[0] !== undefined ? [...issue.path, issue.keys[0]] : issue.path;
  const field = path.length > 0 ? String(path[path.length - 1]) : "";
  // A map's key: the issue's path ends at the key itself.
  if (issue.code === "invalid_key" && path.length > 1) {
    const inner = issue.issues[0];
    const keyReason = inner ? issueReason({ ...inner, path: [] } as z.core.$ZodIssue, undefined) : "is not valid here";
    return `'${String(path[path.length - 2])}' key '${field}' ${keyReason}`;
  }
  if (field === "") return `The value ${reason}`;
  // An index names its list: "'images' entry 2 must be an object".
  if (/^\d+$/.test(field) && path.length > 1) return `'${String(path[path.length - 2])}' entry ${field} ${reason}`;
  return `'${field}' ${reason}`;
}

/**
 * The reason for one issue, beginning with what is wrong with the field (the caller names it):
 * "is required: a string", "must be at most 128000", "must be one of 'text', 'json'".
 */
export function issueReason(issue: z.core.$ZodIssue, input: unknown): string {
  // Left out: whatever the check, the field is missing.
  if ((issue.code === "invalid_value" || issue.code === "invalid_union") && issue.path.length > 0) {
    if (valueAt(input, issue.path) === undefined)
      return issue.code === "invalid_value" ? `is required (${oneOf(issue.values)})` : "is required";
  }
  switch (issue.code) {
    case "invalid_type": {
      const expected = A_TYPE[issue.expected] ?? issue.expected;
      const value = valueAt(input, issue.path);
      if (value === undefined) return `is required (${expected})`;
      return `must be ${expected}, not ${typeOf(value)}`;
    }
    case "too_big":
      return `must be ${bound(issue, issue.maximum as number, "most")}`;
    case "too_small": {
      if (issue.origin === "string" && issue.minimum === 1) return "must not be empty";
      if (issue.origin === "array" && issue.minimum === 1) return "must have at least 1 item";
      return `must be ${bound(issue, issue.minimum as number, "least")}`;
    }
    case "invalid_value":
      return `must be ${oneOf(issue.values)}`;
    case "unrecognized_keys":
      return `is not a field here${issue.keys.length > 1 ? ` (nor ${issue.keys.slice(1).map(quote).join(", ")})` : ""}`;
    case "invalid_format":
      // A pattern declared with its own message says what it wants; a bare one says only that.
      if (issue.format === "regex") return /^Invalid\b/.test(issue.message) ? "is not in the expected form" : issue.message;
      return `must be a valid ${issue.format}`;
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    case "invalid_union": {
      // A tagged union says which tag it wants; otherwise the first branch's own reason is the clearest.
      const first = issue.errors[0]?.[0];
      return first
        ? issueReason({ ...first, path: [...issue.path, ...first.path] } as z.core.$ZodIssue, input)
        : "is not valid here";
    }
    case "invalid_key":
    case "invalid_element": {
      const inner = issue.issues[0];
      const what = issue.code === "invalid_key" ? "a key" : "an entry";
      return inner
        ? `has ${what} that ${issueReason({ ...inner, path: [] } as z.core.$ZodIssue, undefined)}`
        : `has ${what} that is not valid here`;
    }
    default:
      // `custom`: a check of this service's own, worded where it is declared.
      return issue.message;
  }
}
