/**
 * The request body of `generate`, from the command line and the generated operation table:
 * `--body` (JSON or @file) first, then `--set key=value` and `--<field> value` (dotted for nested
 * fields, e.g. `--canvas.tier 1K`), each value read as the JSON type the field takes. Media inputs
 * (`--media`) go to the operation's media fields by what they are: an image to the first image
 * field still free, a video to the video field, … or to the field named (`--media last_frame=b.png`,
 * or the field's own flag: `--last_frame b.png`).
 * The routing flags (`--models`, `--provider-order|only|ignore`, `--sort`, `--no-fallbacks`) set
 * `models` and `provider` (routing()).
 */
import type { OperationRow } from "../operation-row.js";
import { type Options, type OptionValue, UsageError } from "./args.js";

export type MediaKind = "image" | "video" | "audio";

/** The kind of media a field takes, told by its name (`images`, `first_frame`, `video`, `driving_audio`, …). */
export function fieldKind(field: string): MediaKind | undefined {
  if (/audio|voice/.test(field)) return "audio";
  if (/video/.test(field)) return "video";
  if (/image|frame/.test(field)) return "image";
  return undefined;
}

/** The JSON types a dotted field takes (`[]` when the table does not say). */
export function typesOf(row: OperationRow, path: string): string[] | undefined {
  const fields = row.fields ?? {};
  if (fields[path]) return fields[path] as string[];
  const parent = path.slice(0, path.lastIndexOf("."));
  return parent ? (fields[`${parent}.*`] as string[] | undefined) : undefined;
}

/**
 * Other names of a field, where the operation has no field of that name: the text to speak is
 * `input`, and `--prompt` says it too, as it gives every other operation's text; `--destination`
 * is `output_destination_id` (the storage destination the outputs are delivered to).
 */
const ALIASES: Readonly<Record<string, string>> = { prompt: "input", destination: "output_destination_id" };

/** The field a flag names: `generate-audio` is `generate_audio` when that is the field. */
export function fieldFor(row: OperationRow, flag: string): string | undefined {
  const fields = row.fields ?? {};
  for (const candidate of [flag, flag.replaceAll("-", "_")]) {
    const [top, ...rest] = candidate.split(".") as [string, ...string[]];
    if (top in fields) return candidate;
    const alias = ALIASES[top];
    if (alias !== undefined && alias in fields) return [alias, ...rest].join(".");
  }
  return undefined;
}

const NUMBER = /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** A command-line value as the field's JSON type; a value no type fits is sent as written, for the server to judge. */
export function coerce(value: OptionValue, types: string[] | undefined, flag: string): unknown {
  if (typeof value === "boolean") {
    if (!types || types.length === 0 || types.includes("boolean")) return value;
    throw new UsageError(`--${flag} needs a value (${types.join(" or ")})`);
  }
  const t = types ?? [];
  // A field that also takes a string (a credit amount, `duration: "auto"`) gets a number only when the
  // number says exactly what was typed; otherwise the digits go as written, never as a rounded binary fraction.
  if ((t.includes("integer") || t.includes("number")) && NUMBER.test(value)) {
    if (!t.includes("string") || String(Number(value)) === value) return Number(value);
  }
  if (t.includes("boolean") && (value === "true" || value === "false")) return value === "true";
  if (t.includes("null") && value === "null") return null;
  if ((t.includes("array") || t.includes("object") || t.length === 0) && /^\s*[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      throw new UsageError(`--${flag}: not valid JSON: ${value}`);
    }
  }
  // A list given as words: `--events task.succeeded,task.failed`.
  if (t.includes("array") && !t.includes("string")) return value.split(",").map((x) => x.trim());
  if (t.length === 0) {
    if (NUMBER.test(value)) return Number(value);
    if (value === "true" || value === "false") return value === "true";
    if (value === "null") return null;
  }
  return value;
}

function setPath(body: Record<string, unknown>, path: string, value: unknown, append: boolean): void {
  const parts = path.split(".");
  let node = body;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (next === undefined || next === null || typeof next !== "object" || Array.isArray(next)) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1] as string;
  if (append && Array.isArray(node[last])) (node[last] as unknown[]).push(value);
  else node[last] = append ? [value] : value;
}

/** Applies `--<field> value` flags and `--set field=value` pairs to the body. */
export function applyFields(
  body: Record<string, unknown>,
  row: OperationRow,
  flags: [string, OptionValue[]][],
  sets: string[],
  capability: string,
): void {
  const pairs: [string, OptionValue][] = flags.flatMap(([flag, values]) => values.map((v) => [flag, v] as [string, OptionValue]));
  for (const s of sets) {
    const eq = s.indexOf("=");
    if (eq <= 0) throw new UsageError(`--set takes field=value (got '${s}')`);
    pairs.push([s.slice(0, eq), s.slice(eq + 1)]);
  }
  const counts = new Map<string, number>();
  for (const [flag] of pairs) counts.set(flag, (counts.get(flag) ?? 0) + 1);
  for (const [flag, value] of pairs) {
    const field = fieldFor(row, flag);
    if (!field) {
      const known = Object.keys(row.fields ?? {}).filter((f) => !f.includes("."));
      const hint = flag === "input" ? " (media files, URLs and artifacts are given with --media)" : "";
      throw new UsageError(`${capability} has no field '${flag}'${hint}. Its fields: ${known.join(", ")}`);
    }
    const types = typesOf(row, field);
    // A field given more than once is a list (when it is one).
    const repeated = (counts.get(flag) ?? 0) > 1 && !!types?.includes("array");
    setPath(body, field, coerce(value, repeated ? [] : types, flag), repeated);
  }
}

/** A media input as the API takes it, from a URL, a data URI, `artifact:<id>` or (uploaded first) a local file. */
export type InputSource =
  | { type: "url"; url: string; kind: MediaKind | undefined }
  | { type: "data_uri"; data_uri: string; kind: MediaKind | undefined }
  | { type: "artifact"; artifact_id: string; kind: MediaKind | undefined }
  | { type: "file"; path: string; kind: MediaKind | undefined };

export interface InputSpec {
  /** A field (or, for references, a kind) named before `=`. */
  target: string | undefined;
  value: string;
}

const JSON_VALUE = /^\s*[[{]/;

/**
 * Takes media fields' flags out of the field flags: a media field given a file, a URL, a data:
 * URI or artifact:<id> (`--image a.png`) is a media input for that field, as `--media image=a.png`
 * is; given JSON, it stays the field's value as written.
 */
export function splitMediaFlags(
  row: OperationRow,
  flags: [string, OptionValue[]][],
): { fields: [string, OptionValue[]][]; media: InputSpec[] } {
  const mediaFields = new Set((row.media ?? []).map((m) => m.field));
  const fields: [string, OptionValue[]][] = [];
  const media: InputSpec[] = [];
  for (const [flag, values] of flags) {
    const field = fieldFor(row, flag);
    if (field === undefined || !mediaFields.has(field)) {
      fields.push([flag, values]);
      continue;
    }
    const asWritten = values.filter((v) => typeof v !== "string" || JSON_VALUE.test(v));
    if (asWritten.length) fields.push([flag, asWritten]);
    for (const v of values) if (typeof v === "string" && !JSON_VALUE.test(v)) media.push({ target: field, value: v });
  }
  return { fields, media };
}

/** `--media [field=]value`: the part before `=` counts as a target only when it is a field or a kind. */
export function splitInput(row: OperationRow, raw: string): InputSpec {
  const eq = raw.indexOf("=");
  if (eq > 0) {
    const name = raw.slice(0, eq);
    const names = new Set([...(row.media ?? []).map((m) => m.field), "image", "video", "audio"]);
    if (names.has(name) && !/^[a-z]+:\/\//i.test(raw) && !raw.startsWith("data:"))
      return { target: name, value: raw.slice(eq + 1) };
  }
  return { target: undefined, value: raw };
}

export interface Assignment {
  field: string;
  shape: "one" | "many" | "reference";
  kind: MediaKind | undefined;
}

/** Where each input goes, in the order given. */
export function assignInputs(
  row: OperationRow,
  inputs: { target: string | undefined; kind: MediaKind | undefined }[],
  capability: string,
) {
  const media = row.media ?? [];
  if (inputs.length && media.length === 0) throw new UsageError(`${capability} takes no media inputs`);
  const filled = new Set<string>();
  const out: Assignment[] = [];
  for (const input of inputs) {
    let field = input.target ? media.find((m) => m.field === input.target) : undefined;
    let kind = input.kind;
    if (!field && input.target) {
      // A kind named for a capability whose media are references.
      kind = input.target as MediaKind;
      field = media.find((m) => m.shape === "reference" && (!m.kinds || m.kinds.includes(kind as string)));
      if (!field) {
        const choices = media.map((m) => m.field).join(", ");
        throw new UsageError(`${capability} has no media field '${input.target}' (its media fields: ${choices})`);
      }
    }
    if (!field) {
      const free = media.filter((m) => m.shape !== "one" || !filled.has(m.field));
      field =
        free.find((m) => m.shape !== "reference" && kind !== undefined && fieldKind(m.field) === kind) ??
        free.find((m) => m.shape === "reference" && kind !== undefined && (!m.kinds || m.kinds.includes(kind))) ??
        (kind === undefined ? free.find((m) => m.shape !== "reference") : undefined);
      if (!field && kind === undefined && free.some((m) => m.shape === "reference")) {
        throw new UsageError("cannot tell what kind of media a reference is; name it: --media image=…, video=… or audio=…");
      }
      if (!field) {
        const what = kind ? `a ${kind} input` : "this input";
        throw new UsageError(
          `${capability} has no free media field for ${what}; name one with --media <field>=… (fields: ${media.map((m) => m.field).join(", ")})`,
        );
      }
    }
    if (field.shape === "one" && filled.has(field.field)) throw new UsageError(`${field.field} takes one input, and got more`);
    if (field.shape === "reference" && !kind) {
      throw new UsageError(`cannot tell what kind of media a reference is; name it: --media image=…, video=… or audio=…`);
    }
    filled.add(field.field);
    out.push({ field: field.field, shape: field.shape, kind });
  }
  return out;
}

/** Puts resolved inputs into the body: single fields, lists, or references `{kind, media}`. */
export function placeInputs(body: Record<string, unknown>, assignments: Assignment[], refs: Record<string, unknown>[]): void {
  assignments.forEach((a, i) => {
    const media = refs[i];
    if (a.shape === "one") body[a.field] = media;
    else {
      const list = Array.isArray(body[a.field]) ? (body[a.field] as unknown[]) : [];
      list.push(a.shape === "reference" ? { kind: a.kind, media } : media);
      body[a.field] = list;
    }
  });
}

/** The orders `--sort` takes. */
export const SORTS = ["price", "latency"] as const;

/** `a,b , c` (and the same flag given again) as one list; an empty name is refused. */
function commaList(flag: string, values: string[]): string[] {
  const list = values.flatMap((v) => v.split(",").map((x) => x.trim()));
  if (list.some((x) => x === ""))
    throw new UsageError(`--${flag} takes comma-separated names, none empty (got '${values.join(",")}')`);
  return list;
}

/**
 * The routing flags into the body: `--models a,b,c` is the `models` fallback list (a JSON array
 * is taken as written), `--provider-order|only|ignore p,q`, `--sort price|latency` and
 * `--no-fallbacks` are `provider` preferences, merged over any `provider` the body already has.
 */
export function applyRouting(body: Record<string, unknown>, opts: Options): void {
  const models = opts.strings("models");
  if (models.length) {
    const first = models[0] as string;
    if (models.length === 1 && JSON_VALUE.test(first)) body.models = coerce(first, ["array"], "models");
    else body.models = commaList("models", models);
  }
  const provider: Record<string, unknown> = {};
  for (const key of ["order", "only", "ignore"] as const) {
    const values = opts.strings(`provider-${key}`);
    if (values.length) provider[key] = commaList(`provider-${key}`, values);
  }
  const sort = opts.string("sort");
  if (sort !== undefined) {
    if (!(SORTS as readonly string[]).includes(sort)) throw new UsageError(`--sort takes ${SORTS.join(" or ")} (got '${sort}')`);
    provider.sort = sort;
  }
  if (opts.flag("no-fallbacks")) provider.allow_fallbacks = false;
  if (Object.keys(provider).length) {
    const given = body.provider;
    body.provider = { ...(given && typeof given === "object" && !Array.isArray(given) ? given : {}), ...provider };
  }
}

/** `model` and `models` together (by flags, --set or --body) are refused before anything is uploaded or sent. */
export function checkOneModel(body: Record<string, unknown>): void {
  if (body.model !== undefined && body.models !== undefined) {
    throw new UsageError(
      "--model and --models cannot be given together: --models names every model to try, in order (the first that can serve does)",
    );
  }
}

/** `--body`: a JSON object, as written or `@file.json`. */
export async function readBody(spec: string | undefined): Promise<Record<string, unknown>> {
  if (spec === undefined) return {};
  let text = spec;
  if (spec.startsWith("@")) {
    const { readFile } = await import("node:fs/promises");
    try {
      text = await readFile(spec.slice(1), "utf8");
    } catch {
      throw new UsageError(`--body ${spec}: cannot read the file`);
    }
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new UsageError("--body is not valid JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) throw new UsageError("--body must be a JSON object");
  return body as Record<string, unknown>;
}

/**
 * The JSON body of any operation of the table from the command line, as `generate` builds a
 * create's: `--body` first, then `--set field=value` and every option no one else read as a field
 * flag (kebab-case or snake_case, dotted when nested), each as the JSON type the field takes.
 * Read the command's own options before calling this.
 */
export async function bodyFromFlags(opts: Options, row: OperationRow, title: string): Promise<Record<string, unknown>> {
  const body = await readBody(opts.string("body"));
  const sets = opts.strings("set");
  applyFields(body, row, opts.rest(), sets, title);
  return body;
}
