/**
 * No structural bound of a request is tighter than a card's own limit: walks every operation's
 * body schema as the served OpenAPI document declares it (numbers' maximum and minimum, strings'
 * length, lists' length) against every card of its capability as the catalog publishes it
 * (controls' bounds and allowed values, the prompt limit, the input counts). A value a card
 * accepts is never `invalid_request`; past a concrete card's own limit, while structurally sound,
 * it is that card's `unsupported_option` at the field.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/operations";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { newKey } from "../helpers/tasks";
import { catalogView, held, minimalRequest, PATHS } from "./requests";

/** Characters a token can stand for, at the least this service assumes (src/operations/shared.ts promptTokens). */
const CHARACTERS_PER_TOKEN = 4;

let t: TestTenant;
let doc: any;
let detail: Record<string, any>;
let voices: any[];
beforeAll(async () => {
  t = await newTenant({ credits: "100000000" });
  doc = (await call("/openapi.json")).json;
  ({ detail, voices } = await catalogView(t.api_key));
});

const resolve = (schema: any): any => (schema?.$ref ? resolve(doc.components.schemas[schema.$ref.split("/").pop()]) : schema);

/** Every schema a value at `path` (field names, `[]` for a list's entries) may be checked by, unions opened. */
function leaves(schema: any, path: string[]): any[] {
  const s = resolve(schema);
  if (!s) return [];
  const branches = s.anyOf ?? s.oneOf ?? s.allOf;
  if (branches) return branches.flatMap((b: any) => leaves(b, path));
  if (path.length === 0) return [s];
  const [head, ...rest] = path as [string, ...string[]];
  if (head === "[]") return s.items ? leaves(s.items, rest) : [];
  const sub = s.properties?.[head];
  return sub ? leaves(sub, rest) : [];
}

function bodySchema(capability: string) {
  return doc.paths[PATHS[capability] as string].post.requestBody.content["application/json"].schema;
}

/** The body field that carries an operation's prompt, as its declaration names it. */
function promptField(capability: string): string | undefined {
  const op = OPERATIONS.find((o) => o.capability === capability);
  const anyText = new Proxy({}, { get: () => "x" });
  return op?.prompt?.(anyText as never)?.field;
}

interface Limit {
  capability: string;
  model: string;
  what: string;
  path: string[];
  kind: "number" | "string" | "array";
  max?: number;
  min?: number;
}

/** What each card publishes as its own limits, as paths into the body. */
function cardLimits(capability: string, card: any): Limit[] {
  const out: Limit[] = [];
  const at = (what: string, path: string[], kind: Limit["kind"], max?: number, min?: number) =>
    out.push({
      capability,
      model: card.model,
      what,
      path,
      kind,
      ...(max !== undefined ? { max } : {}),
      ...(min !== undefined ? { min } : {}),
    });
  for (const c of card.controls ?? []) {
    const path = c.field.split(".");
    const numeric = c.value_type === "integer" || c.value_type === "number";
    const allowed = (c.allowed_values ?? []).filter((v: unknown) => typeof v === "number") as number[];
    if (numeric && (typeof c.maximum === "number" || typeof c.minimum === "number"))
      at(`${c.field} bounds`, path, "number", c.maximum, c.minimum);
    if (numeric && allowed.length) at(`${c.field} allowed values`, path, "number", Math.max(...allowed), Math.min(...allowed));
    if (typeof c.max_length === "number") at(`${c.field} max_length`, path, "string", c.max_length);
    if (typeof c.max_items === "number" || typeof c.min_items === "number")
      at(`${c.field} items`, path, "array", c.max_items, c.min_items);
  }
  const prompt = promptField(capability);
  if (prompt && card.prompt?.limit) {
    const chars = card.prompt.unit === "tokens" ? card.prompt.limit * CHARACTERS_PER_TOKEN : card.prompt.limit;
    at(`prompt limit (${card.prompt.limit} ${card.prompt.unit})`, [prompt], "string", chars);
  }
  // Inputs of one field (a kind each) share its list: together they may fill it.
  const byField = new Map<string, { max: number; min: number }>();
  for (const input of card.inputs ?? []) {
    const seen = byField.get(input.field) ?? { max: 0, min: 0 };
    byField.set(input.field, { max: seen.max + (input.public_max_count ?? 0), min: seen.min + (input.minimum_count ?? 0) });
  }
  for (const [field, { max }] of byField) {
    const schemas = leaves(bodySchema(capability), [field]);
    // A single media input is one value, not a list.
    if (schemas.some((s) => s.type === "array")) at(`${field} count`, [field], "array", max);
  }
  return out;
}

function structural(schema: any, kind: Limit["kind"]): { max?: number; min?: number } {
  if (kind === "number" && (schema.type === "number" || schema.type === "integer"))
    return { max: schema.maximum ?? schema.exclusiveMaximum, min: schema.minimum ?? schema.exclusiveMinimum };
  if (kind === "string" && schema.type === "string") return { max: schema.maxLength, min: schema.minLength };
  if (kind === "array" && schema.type === "array") return { max: schema.maxItems, min: schema.minItems };
  return {};
}

describe("structural bounds", () => {
  it("none is tighter than any card's own limit", () => {
    const tighter: string[] = [];
    let compared = 0;
    for (const capability of Object.keys(PATHS)) {
      for (const card of detail[capability].models) {
        for (const limit of cardLimits(capability, card)) {
          const schemas = leaves(bodySchema(capability), limit.path).filter((s) => Object.keys(structural(s, limit.kind)).length);
          if (schemas.length === 0) {
            tighter.push(`${capability} ${card.model}: ${limit.what} has no ${limit.kind} field at /${limit.path.join("/")}`);
            continue;
          }
          for (const s of schemas) {
            const bound = structural(s, limit.kind);
            compared++;
            if (limit.max !== undefined && bound.max !== undefined && bound.max < limit.max)
              tighter.push(
                `${capability} ${card.model}: /${limit.path.join("/")} at most ${bound.max}, below the card's ${limit.what} ${limit.max}`,
              );
            if (limit.min !== undefined && bound.min !== undefined && bound.min > limit.min)
              tighter.push(
                `${capability} ${card.model}: /${limit.path.join("/")} at least ${bound.min}, above the card's ${limit.what} ${limit.min}`,
              );
          }
        }
      }
    }
    expect(tighter).toEqual([]);
    expect(compared).toBeGreaterThan(300);
  });

  it("past a concrete card's own maximum, within the structural bound, is that card's unsupported_option at the field", async () => {
    let checked = 0;
    for (const capability of Object.keys(PATHS)) {
      const controls = OPERATIONS.find((o) => o.capability === capability)?.controls ?? [];
      for (const card of detail[capability].models) {
        const base = await minimalRequest(capability, card, t.tenant_id, voices);
        for (const c of card.controls) {
          if (!controls.includes(c.field)) continue;
          const numeric = (c.value_type === "integer" || c.value_type === "number") && typeof c.maximum === "number";
          if (!numeric && typeof c.max_length !== "number") continue;
          const value = numeric ? c.maximum + (c.value_type === "integer" ? 1 : 0.01) : "x".repeat(c.max_length + 1);
          const kind = numeric ? "number" : "string";
          const bounds = leaves(bodySchema(capability), [c.field]).map((s) => structural(s, kind).max);
          if (bounds.some((b) => b !== undefined && (numeric ? (value as number) > b : (value as string).length > b))) continue;
          const res = await call(PATHS[capability] as string, {
            key: t.api_key,
            body: held({ ...base, [c.field]: value }),
            headers: { "Idempotency-Key": newKey() },
          });
          const e = expectError(res, 422, "unsupported_option", `/${c.field}`);
          expect(e.details.candidate_failures[0], `${capability} ${card.model} ${c.field}`).toMatchObject({ model: card.model });
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it("image understanding: a card's maximum output is accepted; past it is unsupported_option at the field", async () => {
    const cards = detail.image_to_text.models.filter((c: any) => c.controls.some((x: any) => x.field === "max_output_tokens"));
    const highest = cards.reduce((a: any, b: any) => (control(a).maximum >= control(b).maximum ? a : b));
    expect(control(highest).maximum).toBeGreaterThan(65_536);
    for (const card of cards) {
      const base = await minimalRequest("image_to_text", card, t.tenant_id, voices);
      const max = control(card).maximum;
      const post = (value: number) =>
        call(PATHS.image_to_text as string, {
          key: t.api_key,
          body: held({ ...base, max_output_tokens: value }),
          headers: { "Idempotency-Key": newKey() },
        });
      const ok = await post(max);
      expect(ok.status, `${card.model} at its maximum ${max}: ${ok.text.slice(0, 300)}`).toBe(202);
      const e = expectError(await post(max + 1), 422, "unsupported_option", "/max_output_tokens");
      expect(e.details.candidate_failures[0]).toMatchObject({ model: card.model });
    }
  });
});

function control(card: any) {
  return card.controls.find((x: any) => x.field === "max_output_tokens");
}
