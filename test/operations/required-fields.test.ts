/**
 * Every required field of every task-creating operation, left out of a request that is otherwise
 * the operation's own documented example: 422 `invalid_request` whose `param` is the field's JSON
 * Pointer and whose message names the field and what it takes, in this service's words (never
 * the validator's "expected string, received undefined"). Walked from the served OpenAPI document,
 * nested objects included.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { toJsonPointer } from "../../src/lib/json-pointer";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { newKey } from "../helpers/tasks";

/** The validator's own phrasing, which must never reach a client. */
const VALIDATOR_WORDING = /received|Invalid input|Invalid option|Too (big|small)|expected (string|number|object|array|boolean)/i;

let t: TestTenant;
let doc: any;
beforeAll(async () => {
  t = await newTenant({ credits: "100000000" });
  doc = (await call("/openapi.json")).json;
});

const resolve = (schema: any): any => (schema?.$ref ? resolve(doc.components.schemas[schema.$ref.split("/").pop()]) : schema);

/** Paths (from the body's root) of the required fields present in `value`, its nested objects and list entries included. */
function requiredPaths(schema: any, value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const s = resolve(schema);
  if (!s || value === null || typeof value !== "object") return [];
  if (Array.isArray(value)) return s.items ? value.flatMap((v, i) => requiredPaths(s.items, v, [...at, i])) : [];
  const out: (string | number)[][] = [];
  for (const field of s.required ?? []) if (field in (value as object)) out.push([...at, field]);
  for (const [field, sub] of Object.entries<any>(s.properties ?? {})) {
    if (field in (value as object)) out.push(...requiredPaths(sub, (value as any)[field], [...at, field]));
  }
  return out;
}

function without(value: any, path: (string | number)[]): any {
  const copy = structuredClone(value);
  let at = copy;
  for (const step of path.slice(0, -1)) at = at[step];
  delete at[path[path.length - 1] as string];
  return copy;
}

describe("required fields", () => {
  it("each one left out is named, with what it takes, at its own pointer", async () => {
    let checked = 0;
    const fields = new Set<string>();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const op = item.post;
      const content = op?.requestBody?.content?.["application/json"];
      if (!op || !path.startsWith("/v1/") || !op.parameters?.some((p: any) => p.name === "Idempotency-Key")) continue;
      for (const example of Object.values<any>(content.examples ?? {})) {
        for (const fieldPath of requiredPaths(content.schema, example.value)) {
          const res = await call(path, {
            key: t.api_key,
            body: without(example.value, fieldPath),
            headers: { "Idempotency-Key": newKey() },
          });
          const pointer = toJsonPointer(fieldPath);
          const what = `${path} without ${pointer}: ${res.text.slice(0, 400)}`;
          const e = expectError(res, 422, "invalid_request", pointer);
          const name = String(fieldPath[fieldPath.length - 1]);
          expect(e.message, what).toContain(`'${name}' is required (`);
          expect(e.message, what).not.toMatch(VALIDATOR_WORDING);
          for (const d of e.details.errors) expect(d.reason, what).not.toMatch(VALIDATOR_WORDING);
          fields.add(`${path} ${pointer}`);
          checked++;
        }
      }
    }
    // Every generating operation requires a prompt or its media.
    expect(fields).toContain("/v1/images/generations /prompt");
    // The music and video understanding operations require `model` unless a `models` list is sent.
    for (const [path, model] of [
      ["/v1/music/text-to-music", "music-2.6"],
      ["/v1/videos/responses", "gemini-3.6-flash"],
    ] as const) {
      const example = Object.values<any>(doc.paths[path].post.requestBody.content["application/json"].examples)[0].value;
      const res = await call(path, {
        key: t.api_key,
        body: without(example, ["model"]),
        headers: { "Idempotency-Key": newKey() },
      });
      const e = expectError(res, 422, "invalid_request", "/model");
      expect(e.message).toContain("'model' is required (");
      // With `models` instead, the body passes validation (the video example's artifact is another tenant's: 404 after it).
      const listed = { ...without(example, ["model"]), models: [model] };
      const ok = await call(path, { key: t.api_key, body: listed, headers: { "Idempotency-Key": newKey() } });
      expect(ok.json.error?.param, ok.text).not.toBe("/model");
      expect(ok.status, ok.text).not.toBe(422);
    }
    expect(checked).toBeGreaterThan(20);
  });

  it("other refusals are worded by the service too: wrong type, bounds, values, unknown fields", async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ prompt: 5 }, "/prompt", /'prompt' must be a string, not an integer/],
      [{ prompt: "x", count: 9 }, "/count", /'count' must be at most 4/],
      [{ prompt: "x", count: 1.5 }, "/count", /'count' must be an integer/],
      [{ prompt: "" }, "/prompt", /'prompt' must not be empty/],
      [
        { prompt: "x", output_relationship: "nope" },
        "/output_relationship",
        /'output_relationship' must be one of 'independent', 'sequence'/,
      ],
      [{ prompt: "x", colour: "red" }, "/colour", /'colour' is not a field here/],
      [
        { prompt: "x", metadata: { ["k".repeat(65)]: "v" } },
        `/metadata/${"k".repeat(65)}`,
        /'metadata' key 'k+' must be at most 64 characters/,
      ],
    ];
    for (const [body, param, wording] of cases) {
      const res = await call("/v1/images/generations", { key: t.api_key, body, headers: { "Idempotency-Key": newKey() } });
      const e = expectError(res, 422, "invalid_request", param);
      expect(e.message, res.text).toMatch(wording);
      expect(e.message, res.text).not.toMatch(VALIDATOR_WORDING);
    }
  });
});
