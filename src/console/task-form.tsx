/**
 * The new-task form of an operation, made from the operation's own request schema (the zod
 * schema the REST route validates with, as JSON Schema by the generator /openapi.json and the MCP
 * tools use), and the posted form turned back into that request body:
 * - `model`: a select of `auto` and the catalog's models for the capability;
 * - `voice`: a select of the catalog's voices;
 * - media inputs (a MediaInput, or a list of them): file inputs, the files uploaded as artifacts;
 * - enums: selects; strings: text (a textarea when long); numbers: number inputs; booleans:
 *   "model default / yes / no" (omitted is not false);
 * - anything structured (canvas, palette, metadata, …): JSON, under "More options";
 * - `models` (the fallback list): comma-separated model ids; `provider` (route preferences): an
 *   order, an only and an ignore list (comma-separated), a sort select and an "allow other
 *   providers" checkbox — both under "Models and providers".
 * Fields left empty are omitted, so the schema's defaults apply exactly as on the API. The body is
 * then checked by the same schema, with the same error vocabulary (`param`, `details.errors`).
 */
import type { Context } from "hono";
import { ApiError } from "../errors/api-error";
import { validationError } from "../http/validation";
import { type JsonSchema, jsonSchemaOf } from "../lib/json-schema";
import type { OperationSpec } from "../services/operations";
import type { ConsoleEnv } from "./context";
import { formField, formFiles } from "./form-body";

export type FieldKind =
  | "model"
  | "voice"
  | "media"
  | "enum"
  | "text"
  | "longtext"
  | "number"
  | "boolean"
  | "scalar"
  | "json"
  | "models"
  | "provider";

export interface TaskField {
  name: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  /** enum: the values; model/voice: filled in from the catalog by the page. */
  options?: string[];
  /** media: how many files (1 for a single input). */
  maxFiles?: number;
  minimum?: number;
  maximum?: number;
  integer?: boolean;
  maxLength?: number;
  default?: unknown;
}

const schemas = new Map<string, TaskField[]>();

function resolve(node: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  const ref = node.$ref;
  if (typeof ref === "string" && ref.startsWith("#/$defs/")) return { ...(defs[ref.slice(8)] ?? {}), ...node, $ref: undefined };
  return node;
}

const isMediaRef = (node: JsonSchema | undefined) =>
  node?.$ref === "#/$defs/MediaInput" ||
  (Array.isArray(node?.allOf) && (node.allOf as JsonSchema[]).some((n) => n.$ref === "#/$defs/MediaInput"));

function fieldOf(name: string, raw: JsonSchema, required: boolean, defs: Record<string, JsonSchema>): TaskField {
  const base = {
    name,
    required,
    ...(typeof raw.description === "string" ? { description: raw.description } : {}),
    ...(raw.default !== undefined ? { default: raw.default } : {}),
  };
  if (name === "model") return { ...base, kind: "model" };
  if (name === "voice") return { ...base, kind: "voice" };
  if (name === "models") {
    const node = resolve(raw, defs);
    return { ...base, kind: "models", ...(typeof node.maxItems === "number" ? { maximum: node.maxItems } : {}) };
  }
  if (name === "provider") {
    const node = resolve(raw, defs);
    const sort = (node.properties as Record<string, JsonSchema> | undefined)?.sort;
    const description = typeof node.description === "string" ? { description: node.description } : {};
    return { ...base, ...description, kind: "provider", options: Array.isArray(sort?.enum) ? (sort.enum as string[]) : [] };
  }
  if (isMediaRef(raw)) return { ...base, kind: "media", maxFiles: 1 };
  if (raw.type === "array" && isMediaRef(raw.items as JsonSchema)) {
    return { ...base, kind: "media", maxFiles: typeof raw.maxItems === "number" ? raw.maxItems : 16 };
  }
  const node = resolve(raw, defs);
  const type = node.type;
  if (type === "string" && Array.isArray(node.enum)) return { ...base, kind: "enum", options: node.enum as string[] };
  if (type === "string") {
    const maxLength = typeof node.maxLength === "number" ? node.maxLength : undefined;
    return {
      ...base,
      kind: maxLength !== undefined && maxLength > 2048 ? "longtext" : "text",
      ...(maxLength ? { maxLength } : {}),
    };
  }
  if (type === "integer" || type === "number") {
    return {
      ...base,
      kind: "number",
      integer: type === "integer",
      ...(typeof node.minimum === "number" ? { minimum: node.minimum } : {}),
      ...(typeof node.maximum === "number" ? { maximum: node.maximum } : {}),
    };
  }
  if (type === "boolean" || (Array.isArray(type) && type.includes("boolean"))) return { ...base, kind: "boolean" };
  // A choice between scalars (a number or `auto`): typed as text, read as a number when it is one.
  const variants = (node.anyOf ?? node.oneOf) as JsonSchema[] | undefined;
  if (variants?.every((v) => v.type === "string" || v.type === "integer" || v.type === "number"))
    return { ...base, kind: "scalar" };
  return { ...base, kind: "json" };
}

/** The operation's fields, in the schema's order, from its request schema (made once per isolate). */
export function taskFields(spec: OperationSpec): TaskField[] {
  let fields = schemas.get(spec.name);
  if (!fields) {
    const schema = jsonSchemaOf(spec.schema);
    const defs = (schema.$defs ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema.required ?? []) as string[]);
    fields = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([name, node]) =>
      fieldOf(name, node, required.has(name), defs),
    );
    schemas.set(spec.name, fields);
  }
  return fields;
}

/** The routing fields, shown under "Models and providers". */
export function isRoutingField(f: TaskField): boolean {
  return f.kind === "models" || f.kind === "provider";
}

/** Shown first: what a person must or usually wants to give; the rest goes under "More options". */
export function isMainField(f: TaskField): boolean {
  if (isRoutingField(f)) return false;
  return f.required || f.kind === "model" || f.kind === "voice" || f.kind === "media" || f.kind === "longtext";
}

function refused(name: string, reason: string): ApiError {
  return new ApiError("invalid_request", `${name}: ${reason}.`, {
    param: `/${name}`,
    details: { errors: [{ loc: ["body", name], reason }] },
  });
}

/** A posted text value as the schema's type, or undefined when left empty. */
function typedValue(f: TaskField, text: string): unknown {
  if (text.trim() === "") return undefined;
  switch (f.kind) {
    case "number": {
      // Not a number: passed on as typed, for the schema to refuse with its own words.
      const n = Number(text);
      return Number.isFinite(n) ? n : text;
    }
    case "scalar":
      return /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text.trim();
    case "boolean":
      return text === "true" ? true : text === "false" ? false : text;
    case "json":
      try {
        return JSON.parse(text);
      } catch {
        throw refused(f.name, "is not valid JSON");
      }
    default:
      return text;
  }
}

/** The provider preferences' list inputs: `provider.<key>`, comma-separated provider names. */
export const PROVIDER_LISTS = ["order", "only", "ignore"] as const;
/** Posted with the provider inputs: the "allow other providers" checkbox was on the form (unchecked then means false). */
export const ALLOW_FALLBACKS_SHOWN = "provider.allow_fallbacks_shown";

/** `a, b,c` as ["a", "b", "c"] (empty pieces dropped), or undefined when nothing is named. */
export function commaList(text: string | undefined): string[] | undefined {
  const list = (text ?? "")
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");
  return list.length ? list : undefined;
}

/** The posted provider inputs as the `provider` preferences, or undefined when they ask for nothing. */
function postedProvider(c: Context<ConsoleEnv>): Record<string, unknown> | undefined {
  const prefs: Record<string, unknown> = {};
  for (const key of PROVIDER_LISTS) {
    const list = commaList(formField(c, `provider.${key}`));
    if (list) prefs[key] = list;
  }
  const sort = formField(c, "provider.sort")?.trim();
  if (sort) prefs.sort = sort;
  if (formField(c, ALLOW_FALLBACKS_SHOWN) !== undefined && formField(c, "provider.allow_fallbacks") === undefined)
    prefs.allow_fallbacks = false;
  return Object.keys(prefs).length ? prefs : undefined;
}

export interface PostedTask {
  /** The body without its media, each media input standing as a placeholder until uploaded. */
  raw: Record<string, unknown>;
  /** The files of each media field, in order. */
  files: { field: TaskField; files: File[] }[];
}

/** A placeholder artifact for a file not yet uploaded: lets the schema check the rest first. */
export const PENDING_ARTIFACT = "art_00000000000000000000000000000000";

/** The posted form as the operation's request body (media as placeholders), or the refusal naming the field. */
export function postedTask(c: Context<ConsoleEnv>, spec: OperationSpec): PostedTask {
  const raw: Record<string, unknown> = {};
  const files: PostedTask["files"] = [];
  for (const f of taskFields(spec)) {
    if (f.kind === "media") {
      const given = formFiles(c, f.name);
      if (given.length === 0) continue;
      if (given.length > (f.maxFiles ?? 1)) throw refused(f.name, `at most ${f.maxFiles} files`);
      files.push({ field: f, files: given });
      const pending = given.map(() => ({ type: "artifact", artifact_id: PENDING_ARTIFACT }));
      raw[f.name] = f.maxFiles === 1 ? pending[0] : pending;
      continue;
    }
    if (f.kind === "models") {
      const list = commaList(formField(c, f.name));
      if (list) raw[f.name] = list;
      continue;
    }
    if (f.kind === "provider") {
      const prefs = postedProvider(c);
      if (prefs) raw[f.name] = prefs;
      continue;
    }
    const text = formField(c, f.name);
    if (text === undefined) continue;
    const value = typedValue(f, text);
    if (value !== undefined) raw[f.name] = value;
  }
  // A fallback list stands instead of the model: the model select's default (`auto`) is then not sent.
  if (raw.models !== undefined && raw.model === "auto") delete raw.model;
  return { raw, files };
}

/** Checks a body with the operation's schema, as the REST route does: the parsed body, or 422 with every fault. */
export function checkTask(spec: OperationSpec, raw: Record<string, unknown>): Record<string, unknown> {
  const parsed = spec.schema.safeParse(raw);
  if (!parsed.success) throw validationError("body", parsed.error.issues, { route: spec.path, input: raw });
  return parsed.data as Record<string, unknown>;
}
