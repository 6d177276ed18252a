/**
 * `max_credits` on a create: a concrete model priced above it is refused before anything is held;
 * `auto` passes over the candidates priced above it; what is reserved, and so what is charged,
 * never exceeds it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { dec, fmt } from "../../src/lib/decimal";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { expectLedgerBalanced, ledger, newKey, taskEvents, waitFor } from "../helpers/tasks";

const BODY = { prompt: "A paper boat on a pond" };

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "100000" });
});

const quote = (request: Record<string, unknown>) =>
  call("/v1/quotes", { key: t.api_key, body: { operation: "text_to_image", request } });
const create = (body: Record<string, unknown>) =>
  call("/v1/images/generations", { key: t.api_key, body, headers: { "Idempotency-Key": newKey() } });

describe("max_credits", () => {
  it("refuses a concrete model whose estimate is above it, holding nothing", async () => {
    const q = (await quote({ ...BODY, model: "auto" })).json;
    const cap = fmt(dec(q.credits).minus("0.000000001"));
    const before = await ledger(t.tenant_id);
    const res = await create({ ...BODY, model: q.resolved_model, max_credits: cap });
    const e = expectError(res, 422, "invalid_request", "/max_credits");
    expect(e.details.estimate_credits).toBe(q.credits);
    expect(await ledger(t.tenant_id)).toEqual(before);
    // The quote says the same.
    const quoted = expectError(await quote({ ...BODY, model: q.resolved_model, max_credits: cap }), 422, "invalid_request");
    expect(quoted.param).toBe("/max_credits");
    // At the estimate itself, the request is admitted and reserves no more than the cap.
    const ok = await create({ ...BODY, model: q.resolved_model, max_credits: q.credits });
    expect(ok.status, JSON.stringify(ok.json)).toBe(202);
    const reserve = (await taskEvents(ok.json.task_id)).find((x) => x.kind === "reserve");
    expect(dec(reserve?.detail.amount).lte(q.credits)).toBe(true);
    const done = await waitFor(t, ok.json.task_id);
    expect(dec(done.usage.credits).lte(q.credits)).toBe(true);
    await expectLedgerBalanced(t.tenant_id);
  });

  it("makes auto pass over the candidates priced above it", async () => {
    const first = (await quote({ ...BODY, model: "auto" })).json;
    const cap = fmt(dec(first.credits).minus("0.000000001"));
    const capped = await quote({ ...BODY, model: "auto", max_credits: cap });
    expect(capped.status, JSON.stringify(capped.json)).toBe(201);
    expect(capped.json.resolved_model).not.toBe(first.resolved_model);
    expect(dec(capped.json.credits).lte(cap)).toBe(true);

    const res = await create({ ...BODY, model: "auto", max_credits: cap });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    expect(res.json.resolved_model).toBe(capped.json.resolved_model);
    const done = await waitFor(t, res.json.task_id);
    expect(dec(done.usage.credits).lte(cap)).toBe(true);
    await expectLedgerBalanced(t.tenant_id);
  });

  it("says no_eligible_model, each candidate over_max_credits, when every model costs more", async () => {
    const before = await ledger(t.tenant_id);
    const res = await create({ ...BODY, model: "auto", max_credits: "0.000000001" });
    const e = expectError(res, 422, "no_eligible_model");
    const over = e.details.candidate_failures.filter((f: any) => f.code === "over_max_credits");
    expect(over.length).toBeGreaterThan(1);
    for (const f of over) {
      expect(f.param).toBe("/max_credits");
      expect(dec(f.supported.estimate_credits).gt("0.000000001")).toBe(true);
    }
    expect(await ledger(t.tenant_id)).toEqual(before);
  });

  it("is validated as a decimal credit figure", async () => {
    expectError(await create({ ...BODY, max_credits: "-1" }), 422, "invalid_request", "/max_credits");
    expectError(await create({ ...BODY, max_credits: -5 }), 422, "invalid_request", "/max_credits");
    expectError(await create({ ...BODY, max_credits: "1e3" }), 422, "invalid_request", "/max_credits");
    expectError(await create({ ...BODY, max_credits: true }), 422, "invalid_request", "/max_credits");
  });
});
