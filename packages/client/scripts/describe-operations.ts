/**
 * The table of operations the client and the command line are driven by, read from the OpenAPI
 * document: how each operation is called (method, path, parameters, whether it takes an
 * Idempotency-Key) and, for task-creating operations, the body's fields with their JSON types
 * and which fields carry media. Nothing in it is written by hand.
 */

import type { FieldDoc, MediaField, OperationRow } from "../src/operation-row.ts";

type Schema = Record<string, any>;
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components?: { schemas?: Record<string, Schema> };
}

/** A row of the table, with the operationId it is keyed by. */
export interface DescribedOperation extends OperationRow {
  operationId: string;
  fields?: Record<string, string[]>;
  required?: string[];
  media?: MediaField[];
  docs?: Record<string, FieldDoc>;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

function resolve(doc: OpenApiDocument, schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let i = 0; i < 32 && typeof s.$ref === "string"; i++) {
    const name = s.$ref.replace(/^#\/components\/schemas\//, "");
    s = doc.components?.schemas?.[name] ?? {};
  }
  return s;
}

/** The alternatives a schema allows (oneOf/anyOf), each with allOf parts merged. */
function variants(doc: OpenApiDocument, schema: Schema | undefined): Schema[] {
  const s = resolve(doc, schema);
  if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) {
    return [...(s.oneOf ?? []), ...(s.anyOf ?? [])].flatMap((v: Schema) => variants(doc, v));
  }
  if (Array.isArray(s.allOf)) {
    const parts = s.allOf.map((p: Schema) => variants(doc, p));
    // An allOf of one alternative-bearing part (a $ref plus a description) keeps its alternatives.
    const many = parts.find((p: Schema[]) => p.length > 1);
    if (many) return many;
    return [Object.assign({}, ...parts.map((p: Schema[]) => p[0] ?? {}))];
  }
  return [s];
}

function jsonTypes(doc: OpenApiDocument, schema: Schema | undefined): string[] {
  const out = new Set<string>();
  for (const v of variants(doc, schema)) {
    const t = v.type;
    if (Array.isArray(t)) for (const x of t) out.add(x);
    else if (typeof t === "string") out.add(t);
    else if (v.properties) out.add("object");
    else if (Array.isArray(v.enum) || "const" in v) {
      for (const e of v.enum ?? [v.const]) out.add(e === null ? "null" : typeof e === "number" ? "number" : typeof e);
    }
  }
  return [...out].sort();
}

/** A media input: alternatives told apart by a `type` whose values include `url` and `artifact`. */
function isMediaInput(doc: OpenApiDocument, schema: Schema | undefined): boolean {
  const vs = variants(doc, schema);
  const kinds = vs.flatMap((v) => resolve(doc, v.properties?.type).enum ?? []);
  return vs.length > 1 && kinds.includes("url") && kinds.includes("artifact");
}

function mediaShape(doc: OpenApiDocument, schema: Schema): Pick<MediaField, "shape" | "kinds"> | null {
  if (isMediaInput(doc, schema)) return { shape: "one" };
  const s = resolve(doc, schema);
  const items = variants(doc, s.items);
  if (s.type !== "array" || items.length === 0) return null;
  if (isMediaInput(doc, s.items)) return { shape: "many" };
  const item = items[0] as Schema;
  if (items.length === 1 && isMediaInput(doc, item.properties?.media)) {
    return { shape: "reference", kinds: resolve(doc, item.properties?.kind).enum ?? [] };
  }
  return null;
}

/** What the document says of a field for people: its description, default, allowed values and range. */
function fieldDoc(doc: OpenApiDocument, prop: Schema): FieldDoc | null {
  const out: FieldDoc = {};
  const own = resolve(doc, prop);
  const all = [own, ...variants(doc, prop)];
  const description = all.map((v) => v.description).find((d): d is string => typeof d === "string" && d.length > 0);
  if (description) out.description = description.replace(/\s+/g, " ").trim();
  const withDefault = all.find((v) => "default" in v);
  if (withDefault) out.default = withDefault.default;
  // A list's allowed values are its items'.
  const items = all.flatMap((v) =>
    v.type === "array" || (Array.isArray(v.type) && v.type.includes("array")) ? variants(doc, v.items) : [],
  );
  const values = [
    ...new Set([...all, ...items].flatMap((v) => (Array.isArray(v.enum) ? v.enum : "const" in v ? [v.const] : []))),
  ];
  if (values.length) out.enum = values as FieldDoc["enum"];
  const min = all.map((v) => v.minimum ?? v.exclusiveMinimum).find((n) => typeof n === "number");
  const max = all.map((v) => v.maximum ?? v.exclusiveMaximum).find((n) => typeof n === "number");
  if (typeof min === "number") out.minimum = min;
  if (typeof max === "number") out.maximum = max;
  return Object.keys(out).length ? out : null;
}

function collectFields(
  doc: OpenApiDocument,
  schema: Schema,
  prefix: string,
  depth: number,
  out: Record<string, string[]>,
  docs: Record<string, FieldDoc>,
) {
  for (const v of variants(doc, schema)) {
    for (const [name, prop] of Object.entries<Schema>(v.properties ?? {})) {
      const path = prefix ? `${prefix}.${name}` : name;
      const types = new Set([...(out[path] ?? []), ...jsonTypes(doc, prop)]);
      out[path] = [...types].sort();
      const described = docs[path] ? null : fieldDoc(doc, prop);
      if (described) docs[path] = described;
      if (depth < 3 && !isMediaInput(doc, prop) && types.has("object")) {
        collectFields(doc, prop, path, depth + 1, out, docs);
        // A map (`metadata`, `model_options`): the types its values take, under `<field>.*`.
        for (const pv of variants(doc, prop)) {
          const extra = pv.additionalProperties;
          if (extra && typeof extra === "object") out[`${path}.*`] = jsonTypes(doc, extra);
        }
      }
    }
  }
}

function contentTypes(content: Record<string, unknown> | undefined): string[] {
  return Object.keys(content ?? {}).sort();
}

export function describeOperations(doc: OpenApiDocument): DescribedOperation[] {
  const rows: DescribedOperation[] = [];
  const missing: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      if (typeof op.operationId !== "string" || !op.operationId) {
        missing.push(`${method.toUpperCase()} ${path}`);
        continue;
      }
      const params: Schema[] = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      const security: Record<string, unknown>[] = op.security ?? [];
      const schemes = security.flatMap((s) => Object.keys(s));
      const body = op.requestBody?.content?.["application/json"]?.schema as Schema | undefined;
      const row: DescribedOperation = {
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        tag: op.tags?.[0] ?? null,
        summary: op.summary ?? "",
        capability: op["x-capability"] ?? null,
        auth: schemes.includes("adminToken") ? "admin" : schemes.length ? "apiKey" : "none",
        idempotencyKey: params.some((p) => p.in === "header" && String(p.name).toLowerCase() === "idempotency-key"),
        pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
        queryParams: params.filter((p) => p.in === "query").map((p) => p.name),
        requestTypes: contentTypes(op.requestBody?.content),
        responseTypes: [
          ...new Set(
            Object.entries<Schema>(op.responses ?? {})
              .filter(([status]) => status.startsWith("2"))
              .flatMap(([, r]) => contentTypes(r.content)),
          ),
        ].sort(),
      };
      // Every JSON body: its fields with their types and what the document says of each; the
      // task-creating operations also: which fields take media.
      if (body) {
        const fields: Record<string, string[]> = {};
        const docs: Record<string, FieldDoc> = {};
        collectFields(doc, body, "", 0, fields, docs);
        const top = resolve(doc, body);
        const required: string[] = top.required ?? [];
        if (row.capability) {
          const media: MediaField[] = [];
          for (const [name, prop] of Object.entries<Schema>(top.properties ?? {})) {
            const shape = mediaShape(doc, prop);
            if (shape) media.push({ field: name, required: required.includes(name), ...shape });
          }
          Object.assign(row, { fields, required, media, docs });
        } else Object.assign(row, { fields, required, docs });
      }
      rows.push(row);
    }
  }
  if (missing.length) throw new Error(`operations without an operationId:\n  ${missing.join("\n  ")}`);
  const seen = new Set<string>();
  for (const r of rows) {
    if (seen.has(r.operationId)) throw new Error(`operationId '${r.operationId}' is used twice`);
    seen.add(r.operationId);
  }
  return rows.sort((a, b) => a.operationId.localeCompare(b.operationId));
}

/** The table as a TypeScript module (stable output: rows sorted by operationId). */
export function renderOperations(rows: DescribedOperation[]): string {
  const entries = rows.map(({ operationId, ...row }) => {
    const props = Object.entries(row).map(([k, v]) => `    ${k}: ${JSON.stringify(v)},`);
    return [`  ${operationId}: {`, ...props, "  },"].join("\n");
  });
  return [
    "/**",
    " * The operations of the API, read from its OpenAPI document by packages/client/scripts/generate.ts.",
    " * Do not make direct changes to the file: run `npm run client:generate` at the repository root.",
    " */",
    "",
    'import type { OperationRow } from "../operation-row.js";',
    "",
    "export const OPERATIONS = {",
    ...entries,
    "} as const satisfies Record<string, OperationRow>;",
    "",
    "export type OperationId = keyof typeof OPERATIONS;",
    "",
  ].join("\n");
}
