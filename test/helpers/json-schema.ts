/**
 * A JSON Schema (2020-12, as OpenAPI 3.1 embeds it) checker for the keywords this service's
 * document uses, so a test can hold every example of /openapi.json to the schema beside it.
 * A keyword it does not know fails the check rather than being ignored.
 */

type Schema = Record<string, any> | boolean;

const ANNOTATIONS = new Set([
  "description",
  "title",
  "example",
  "examples",
  "default",
  "format",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentMediaType",
  "contentEncoding",
  "$schema",
  "$id",
]);
const CHECKED = new Set([
  "$ref",
  "type",
  "enum",
  "const",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "uniqueItems",
  "properties",
  "required",
  "additionalProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "discriminator",
]);

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function typeMatches(expected: string, actual: string): boolean {
  return expected === actual || (expected === "number" && actual === "integer");
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** ECMA-262 as JSON Schema says, with Unicode semantics where the source allows them. */
function pattern(source: string): RegExp {
  try {
    return new RegExp(source, "u");
  } catch {
    return new RegExp(source);
  }
}

function resolve(root: any, ref: string): Schema {
  if (!ref.startsWith("#/")) throw new Error(`only local $ref is supported: ${ref}`);
  let node = root;
  for (const token of ref.slice(2).split("/")) node = node?.[token.replaceAll("~1", "/").replaceAll("~0", "~")];
  if (node === undefined) throw new Error(`unresolved $ref ${ref}`);
  return node;
}

/** Every violation of `schema` by `value`, as `pointer: reason`; empty when valid. */
export function validateJsonSchema(root: any, schema: Schema, value: unknown, at = ""): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${at || "/"}: no value is allowed here`];
  const errors: string[] = [];
  const fail = (reason: string) => errors.push(`${at || "/"}: ${reason}`);
  for (const key of Object.keys(schema)) {
    if (!CHECKED.has(key) && !ANNOTATIONS.has(key) && !key.startsWith("x-")) fail(`unknown keyword '${key}'`);
  }
  if (schema.$ref) errors.push(...validateJsonSchema(root, resolve(root, schema.$ref), value, at));
  const t = typeOf(value);
  if (schema.type !== undefined) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((x) => typeMatches(x, t))) fail(`expected ${types.join(" or ")}, got ${t}`);
  }
  if (schema.enum && !schema.enum.some((e: unknown) => deepEqual(e, value))) fail(`not one of ${JSON.stringify(schema.enum)}`);
  if ("const" in schema && !deepEqual(schema.const, value)) fail(`not ${JSON.stringify(schema.const)}`);
  if (typeof value === "string") {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) fail(`shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && length > schema.maxLength) fail(`longer than ${schema.maxLength}`);
    if (schema.pattern !== undefined && !pattern(schema.pattern).test(value)) fail(`does not match ${schema.pattern}`);
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) fail(`below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) fail(`above ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum)
      fail(`not above ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum)
      fail(`not below ${schema.exclusiveMaximum}`);
    if (schema.multipleOf !== undefined && Math.abs(value / schema.multipleOf - Math.round(value / schema.multipleOf)) > 1e-9)
      fail(`not a multiple of ${schema.multipleOf}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) fail(`fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) fail(`more than ${schema.maxItems} items`);
    if (schema.uniqueItems && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) fail("items repeat");
    const prefix: Schema[] = schema.prefixItems ?? [];
    value.forEach((item, i) => {
      const itemSchema = i < prefix.length ? prefix[i] : schema.items;
      if (itemSchema !== undefined) errors.push(...validateJsonSchema(root, itemSchema as Schema, item, `${at}/${i}`));
    });
  }
  if (t === "object") {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj);
    for (const r of schema.required ?? []) if (!(r in obj)) fail(`missing required '${r}'`);
    if (schema.minProperties !== undefined && keys.length < schema.minProperties) fail(`fewer than ${schema.minProperties} keys`);
    if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) fail(`more than ${schema.maxProperties} keys`);
    const props: Record<string, Schema> = schema.properties ?? {};
    for (const k of keys) {
      const where = `${at}/${k.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (schema.propertyNames) errors.push(...validateJsonSchema(root, schema.propertyNames, k, `${where} (name)`));
      if (k in props) errors.push(...validateJsonSchema(root, props[k] as Schema, obj[k], where));
      else if (schema.additionalProperties !== undefined)
        errors.push(...validateJsonSchema(root, schema.additionalProperties, obj[k], where));
    }
  }
  if (schema.allOf) for (const s of schema.allOf) errors.push(...validateJsonSchema(root, s, value, at));
  if (schema.anyOf && !schema.anyOf.some((s: Schema) => validateJsonSchema(root, s, value, at).length === 0))
    fail("matches none of anyOf");
  if (schema.oneOf) {
    const n = schema.oneOf.filter((s: Schema) => validateJsonSchema(root, s, value, at).length === 0).length;
    if (n !== 1) fail(`matches ${n} of oneOf, not exactly one`);
  }
  if (schema.not && validateJsonSchema(root, schema.not, value, at).length === 0) fail("matches `not`");
  return errors;
}
