/**
 * No structural bound of a request is tighter than a card's own limit: walks every operation's
 * body schema as the served OpenAPI document declares it (numbers' maximum and minimum, strings'
 * length, lists' length) against every card of its capability as the catalog publishes it
 * (controls' bounds and allowed values, the prompt limit, the input counts). A value a card
 * accepts is never `invalid_request`; past a concrete card's own limit, while structurally sound,
 * it is that card's `unsupported_option` at the field.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/operations";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { mp4 } from "../helpers/media-fixtures";
import { newKey } from "../helpers/tasks";
import { artifactInput, catalogView, held, minimalRequest, PATHS } from "./requests";

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
          // The spec's own limit wins over a card's wider native range: a bound at the spec's is not tighter.
          const spec = specBound(capability, limit.path);
          for (const s of schemas) {
            const bound = structural(s, limit.kind);
            compared++;
            if (
              limit.max !== undefined &&
              bound.max !== undefined &&
              bound.max < limit.max &&
              !(spec?.max !== undefined && bound.max >= spec.max)
            )
              tighter.push(
                `${capability} ${card.model}: /${limit.path.join("/")} at most ${bound.max}, below the card's ${limit.what} ${limit.max}`,
              );
            if (
              limit.min !== undefined &&
              bound.min !== undefined &&
              bound.min > limit.min &&
              !(spec?.min !== undefined && bound.min <= spec.min)
            )
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

/**
 * The spec's limits table wins over every card: a card may record a wider native range (speech
 * speed 0.25-4 on gpt-4o-mini-tts), but the service offers the spec's. Each limit is read from the
 * spec at test time; just outside it, a request with `auto` is `invalid_request` at the field,
 * and at the limit itself it is not refused there.
 */
const specLimits: { limit: string; value: string; applies_to: string }[] = JSON.parse(env.SPEC_LIMITS_TABLE);

/** Rows of the table that bound no request field. */
const NOT_REQUEST_BOUNDS = new Set(["video understanding sampling", "artifact download"]);

type Body = Record<string, any>;
interface Probe {
  what: string;
  capability: string;
  /** The request for a value; `headers` for a limit on a header. */
  build: (
    base: Body,
    value: number,
  ) => Promise<{ body: Body; headers?: Record<string, string> }> | { body: Body; headers?: Record<string, string> };
  /** Where the refusal points: a JSON pointer into the body (absent for a header, which the body cannot point at). */
  param?: string | ((value: number) => string);
  /** What the refusal's message names, for a header. */
  names?: string;
  min?: number;
  max?: number;
  /** The smallest step past a bound: 1 for counts and lengths, 0.01 for fractional values. */
  step: number;
}

/** "a to b", "maximum b", "up to b", "at most b": the numbers of a limit's value. */
function bounds(text: string): { min?: number; max?: number } {
  const to = text.match(/(-?\d+(?:\.\d+)?) to (-?\d+(?:\.\d+)?)/);
  if (to) return { min: Number(to[1]), max: Number(to[2]) };
  const max = text.match(/(?:maximum|up to|at most) (\d+(?:\.\d+)?)/);
  if (max) return { max: Number(max[1]) };
  throw new Error(`no bounds in '${text}'`);
}

const TASK_CAPABILITIES = Object.keys(PATHS);
const IMAGE_CAPABILITIES = ["text_to_image", "image_to_image", "image_edit"];
const text = (n: number) => "x".repeat(Math.max(0, n));
const paletteOf = (n: number) => {
  // n entries whose weights sum to exactly 1 (hundredths, the remainder on the first).
  const each = Math.floor(100 / n);
  return Array.from({ length: n }, (_, i) => ({ color: "#1e90ff", weight: (i === 0 ? 100 - each * (n - 1) : each) / 100 }));
};

function probesFor(row: { limit: string; value: string }): Probe[] {
  const { min, max } = bounds(row.value);
  const field = (capability: string, name: string, step: number, value: (n: number) => unknown = (n) => n): Probe => ({
    what: row.limit,
    capability,
    build: (base, n) => ({ body: { ...base, [name]: value(n) } }),
    param: `/${name}`,
    min,
    max,
    step,
  });
  switch (row.limit) {
    case "metadata": {
      const keys = Number(row.value.match(/at most (\d+) keys/)?.[1]);
      const keyLength = Number(row.value.match(/key up to (\d+) characters/)?.[1]);
      const valueLength = Number(row.value.match(/value up to (\d+) characters/)?.[1]);
      expect([keys, keyLength, valueLength].every(Number.isFinite), row.value).toBe(true);
      return TASK_CAPABILITIES.flatMap((capability) => [
        {
          what: "metadata keys",
          capability,
          // held() adds one key of its own.
          build: (base, n) => ({
            body: { ...base, metadata: { ...Object.fromEntries(Array.from({ length: n - 1 }, (_, i) => [`k${i}`, "v"])) } },
          }),
          param: "/metadata",
          max: keys,
          step: 1,
        },
        {
          what: "metadata key length",
          capability,
          build: (base, n) => ({ body: { ...base, metadata: { [text(n)]: "v" } } }),
          param: (n) => `/metadata/${text(n)}`,
          max: keyLength,
          step: 1,
        },
        {
          what: "metadata value length",
          capability,
          build: (base, n) => ({ body: { ...base, metadata: { note: text(n) } } }),
          param: "/metadata/note",
          max: valueLength,
          step: 1,
        },
      ]);
    }
    case "Idempotency-Key":
      return TASK_CAPABILITIES.map((capability) => ({
        what: row.limit,
        capability,
        build: (base, n) => ({ body: base, headers: { "Idempotency-Key": `${newKey()}${text(n)}`.slice(0, n) } }),
        names: "Idempotency-Key",
        max,
        step: 1,
      }));
    case "image count":
      return IMAGE_CAPABILITIES.map((c) => field(c, "count", 1));
    case "images input":
      return [field("image_to_image", "images", 1)].map((p) => ({
        ...p,
        build: (base: Body, n: number) => ({ body: { ...base, images: Array.from({ length: n }, () => base.images[0]) } }),
      }));
    case "palette":
      return IMAGE_CAPABILITIES.map((c) => field(c, "palette", 1, paletteOf));
    case "video prompt":
      return [field("text_to_video", "prompt", 1, text)];
    case "extension instruction":
      return [field("video_extend", "instruction", 1, text)];
    case "extension duration":
      return [
        {
          ...field("video_extend", "duration", 1),
          // A one-second source, so that the table's least duration also exceeds the source's.
          build: async (base: Body, n: number) => ({
            body: { ...base, video: await artifactInput(t.tenant_id, mp4(1, 1280, 720), "video/mp4"), duration: n },
          }),
        },
      ];
    case "video understanding prompt":
      return [field("video_to_text", "prompt", 1, text)];
    case "music prompt":
      return [field("text_to_music", "prompt", 1, text)];
    case "speech input":
      return [field("text_to_speech", "input", 1, text)];
    case "speech speed":
      return [field("text_to_speech", "speed", 0.01)];
    case "speech pitch":
      return [field("text_to_speech", "pitch", 0.01)];
    case "speech volume":
      return [field("text_to_speech", "volume", 0.01)];
  }
  throw new Error(`the spec's limit '${row.limit}' (${row.value}) has no probe here: add one`);
}

/** The spec's bounds of a body field of an operation, where its limits table fixes them. */
function specBound(capability: string, path: string[]): { min?: number; max?: number } | undefined {
  for (const row of specLimits.filter((r) => !NOT_REQUEST_BOUNDS.has(r.limit)))
    for (const p of probesFor(row)) if (p.capability === capability && p.param === `/${path.join("/")}`) return p;
  return undefined;
}

describe.skipIf(specLimits.length === 0)("the spec's limits table", () => {
  it("has a probe for every limit that bounds a request", () => {
    const rows = specLimits.filter((r) => !NOT_REQUEST_BOUNDS.has(r.limit));
    expect(rows.length).toBeGreaterThanOrEqual(14);
    for (const row of rows) expect(probesFor(row).length, row.limit).toBeGreaterThan(0);
  });

  it("just outside each limit, with auto, is invalid_request at the field; at the limit it is not refused there", async () => {
    const bases = new Map<string, Body>();
    const base = async (capability: string) => {
      if (!bases.has(capability)) {
        const card = detail[capability].models[0];
        const request = await minimalRequest(capability, card, t.tenant_id, voices);
        bases.set(capability, capability === "video_prompt_enhance" ? request : { ...request, model: "auto" });
      }
      return bases.get(capability) as Body;
    };
    const send = async (probe: Probe, value: number) => {
      const { body, headers } = await probe.build(await base(probe.capability), value);
      return call(PATHS[probe.capability] as string, {
        key: t.api_key,
        body: held(body),
        headers: { "Idempotency-Key": newKey(), ...headers },
      });
    };
    const round = (n: number) => Math.round(n * 100) / 100;
    let checked = 0;
    const wrong: string[] = [];
    for (const row of specLimits.filter((r) => !NOT_REQUEST_BOUNDS.has(r.limit))) {
      for (const probe of probesFor(row)) {
        const label = `${probe.what} (${row.value}) on ${probe.capability}`;
        const edges = [
          ...(probe.max !== undefined ? [{ inside: probe.max, outside: round(probe.max + probe.step) }] : []),
          ...(probe.min !== undefined ? [{ inside: probe.min, outside: round(probe.min - probe.step) }] : []),
        ];
        for (const { inside, outside } of edges) {
          const param = (n: number) => (typeof probe.param === "function" ? probe.param(n) : probe.param);
          const refused = await send(probe, outside);
          const e = refused.json?.error;
          if (
            refused.status !== 422 ||
            e?.code !== "invalid_request" ||
            e?.param !== param(outside) ||
            (probe.names && !String(e?.message).includes(probe.names))
          )
            wrong.push(`${label}: ${outside} → ${refused.status} ${e?.code} at ${e?.param} (${e?.message})`);
          const accepted = await send(probe, inside);
          const a = accepted.json?.error;
          if (
            a?.code === "invalid_request" &&
            a?.param === param(inside) &&
            (!probe.names || String(a.message).includes(probe.names))
          )
            wrong.push(`${label}: ${inside} refused at the field (${a.message})`);
          checked++;
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });
});
