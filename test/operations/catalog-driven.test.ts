/**
 * Table-driven over every card of catalog-data/: a minimal valid request per model and
 * operation is admitted as asked; each control's bounds, one by one, give 422 with the field's
 * pointer; a control a card does not list is refused as unsupported_option.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/operations";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { newKey } from "../helpers/tasks";
import { held, minimalRequest, PATHS, PLAUSIBLE } from "./requests";

let t: TestTenant;
let voices: any[];
const cards: { capability: string; card: any }[] = [];

beforeAll(async () => {
  t = await newTenant({ credits: "100000000" });
  voices = (await call("/v1/voices", { key: t.api_key })).json.data;
  for (const capability of Object.keys(PATHS)) {
    const detail = await call(`/v1/catalog/capabilities/${capability}`, { key: t.api_key });
    for (const card of detail.json.models) cards.push({ capability, card });
  }
});

const post = (capability: string, body: unknown) =>
  call(PATHS[capability] as string, { key: t.api_key, body: held(body), headers: { "Idempotency-Key": newKey() } });

/** Body fields each operation maps to card controls, as src/operations declares them. */
const OPERATION_CONTROLS: Record<string, readonly string[]> = Object.fromEntries(
  OPERATIONS.map((o) => [o.capability, o.controls]),
);

function palette(n: number) {
  const w = Math.floor(10000 / n) / 10000;
  const weights = Array.from({ length: n }, (_, i) => (i === n - 1 ? Number((1 - w * (n - 1)).toFixed(4)) : w));
  return weights.map((weight, i) => ({ color: `#${(i * 40).toString(16).padStart(2, "0")}8080`, weight }));
}

/** Values just outside a control's bounds, one per bound. */
function outOfBounds(control: any): { label: string; value: unknown }[] {
  const out: { label: string; value: unknown }[] = [];
  if (control.allowed_values && control.value_type !== "boolean") {
    const vals = control.allowed_values;
    if (control.value_type === "string") out.push({ label: "not allowed", value: "zz-not-an-allowed-value" });
    else if (typeof vals[0] === "number")
      out.push({ label: "not allowed", value: Math.max(...vals) + (control.value_type === "integer" ? 1 : 0.5) });
  }
  if (typeof control.minimum === "number")
    out.push({ label: "below minimum", value: control.value_type === "integer" ? control.minimum - 1 : control.minimum - 0.01 });
  if (typeof control.maximum === "number")
    out.push({ label: "above maximum", value: control.value_type === "integer" ? control.maximum + 1 : control.maximum + 0.01 });
  if (typeof control.max_length === "number") out.push({ label: "too long", value: "x".repeat(control.max_length + 1) });
  if (control.field === "palette" && typeof control.max_items === "number" && control.max_items < 10)
    out.push({ label: "too many", value: palette(control.max_items + 1) });
  return out;
}

describe("every card of the catalog", () => {
  it("admits a minimal valid request per model and operation, resolving to exactly that model", async () => {
    expect(cards.length).toBeGreaterThan(60);
    for (const { capability, card } of cards) {
      const body = await minimalRequest(capability, card, t.tenant_id, voices);
      const res = await post(capability, body);
      expect(res.status, `${capability} ${card.model}: ${res.text.slice(0, 400)}`).toBe(202);
      expect(res.json.capability).toBe(capability);
      if (capability !== "video_prompt_enhance") expect(res.json.resolved_model).toBe(card.model);
    }
  });

  it("refuses each control's out-of-bounds values with 422 and the field's pointer", async () => {
    let checked = 0;
    for (const { capability, card } of cards) {
      const base = await minimalRequest(capability, card, t.tenant_id, voices);
      for (const control of card.controls) {
        if (!OPERATION_CONTROLS[capability]?.includes(control.field)) continue;
        for (const { label, value } of outOfBounds(control)) {
          const res = await post(capability, { ...base, [control.field]: value });
          const what = `${capability} ${card.model} ${control.field} ${label}: ${res.text.slice(0, 300)}`;
          expect(res.status, what).toBe(422);
          expect(["unsupported_option", "invalid_request"], what).toContain(res.json.error.code);
          expect(res.json.error.param, what).toMatch(new RegExp(`^/${control.field}(/|$)`));
          if (res.json.error.code === "unsupported_option") {
            const f = res.json.error.details.candidate_failures[0];
            expect(f.code, what).toMatch(/^unsupported_/);
            expect(f.model).toBe(card.model);
            expect(f).toHaveProperty("received");
            expect(f).toHaveProperty("supported");
          }
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("refuses a control the model does not support with unsupported_option (never dropped)", async () => {
    let checked = 0;
    for (const { capability, card } of cards) {
      const listed = new Set(card.controls.map((c: any) => c.field));
      const base = await minimalRequest(capability, card, t.tenant_id, voices);
      for (const field of OPERATION_CONTROLS[capability] ?? []) {
        if (listed.has(field) || !(field in PLAUSIBLE)) continue;
        const res = await post(capability, { ...base, [field]: PLAUSIBLE[field] });
        const what = `${capability} ${card.model} ${field}: ${res.text.slice(0, 300)}`;
        expect(res.status, what).toBe(422);
        expect(res.json.error.code, what).toBe("unsupported_option");
        expect(res.json.error.param, what).toBe(`/${field}`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
