/**
 * Tool schemas as JSON Schema 2020-12, made by the same generator as /openapi.json from the same
 * zod schemas, so a tool's arguments are documented exactly as the REST body is (descriptions,
 * bounds, defaults). Named parts (`Canvas`, `Artifact`, ...) become `$defs` of the tool's schema.
 */
import { OpenAPIHono, type z } from "@hono/zod-openapi";

export type JsonSchema = Record<string, unknown>;

const ROOT = "McpToolSchema";
const COMPONENT_REF = "#/components/schemas/";

/** OpenAPI-only keywords with no JSON Schema meaning; strict validators refuse unknown keywords. */
const OPENAPI_ONLY = new Set(["discriminator", "xml", "externalDocs", "example"]);

/** Rewrites component refs to `$defs` refs, `example` to `examples`, and drops OpenAPI-only keywords. */
function toJsonSchema(node: unknown, refs: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => toJsonSchema(n, refs));
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string" && value.startsWith(COMPONENT_REF)) {
      const name = value.slice(COMPONENT_REF.length);
      refs.add(name);
      out.$ref = `#/$defs/${name}`;
    } else if (key === "example") {
      if (!("examples" in node)) out.examples = [value];
    } else if (!OPENAPI_ONLY.has(key) && !key.startsWith("x-")) {
      out[key] = toJsonSchema(value, refs);
    }
  }
  return out;
}

/**
 * The JSON Schema of `schema`: its root object inline, every named part it reaches under `$defs`.
 * The generator walks the whole schema: callers keep the result (tools make theirs once per isolate).
 */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const generator = new OpenAPIHono();
  generator.openAPIRegistry.register(ROOT, schema);
  const components = (generator.getOpenAPI31Document({ openapi: "3.1.0", info: { title: ROOT, version: "1" } }).components
    ?.schemas ?? {}) as Record<string, unknown>;
  // A schema that carries its own name is registered under it; the root is then only a ref to it.
  let rootName = ROOT;
  for (let hops = 0; hops < 4; hops++) {
    const ref = (components[rootName] as { $ref?: string } | undefined)?.$ref;
    if (!ref?.startsWith(COMPONENT_REF)) break;
    rootName = ref.slice(COMPONENT_REF.length);
  }
  const refs = new Set<string>();
  const root = toJsonSchema(components[rootName] ?? {}, refs) as JsonSchema;
  const defs: Record<string, unknown> = {};
  // Every part reachable from the root, following the parts' own refs.
  const pending = [...refs];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (name in defs) continue;
    const found = new Set<string>();
    defs[name] = toJsonSchema(components[name] ?? {}, found);
    for (const f of found) if (!(f in defs)) pending.push(f);
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...root,
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  };
}

/** An object schema with more properties: a tool's own arguments beside a REST body's fields. */
export function withProperties(schema: JsonSchema, properties: Record<string, JsonSchema>): JsonSchema {
  return { ...schema, properties: { ...(schema.properties as Record<string, unknown> | undefined), ...properties } };
}
