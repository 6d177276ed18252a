/**
 * Binding quotes through the public API: a quote prices a create without starting anything, a
 * create with its quote_id runs on the quoted model and is charged at most the quote even after a
 * price rise, and a quote serves exactly the body it was made for, once, while it lives.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalog } from "../../src/catalog/build";
import { publishCatalog } from "../../src/catalog/store";
import { dec } from "../../src/lib/decimal";
import { ADMIN_TOKEN, call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { expectLedgerBalanced, ledger, newKey, taskEvents, waitFor } from "../helpers/tasks";

const BODY = { prompt: "A lighthouse at dusk, oil painting" };

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "100000" });
});

const quote = (tenant: TestTenant, request: Record<string, unknown>, operation = "text_to_image") =>
  call("/v1/quotes", { key: tenant.api_key, body: { operation, request } });
const create = (tenant: TestTenant, body: Record<string, unknown>, key = newKey()) =>
  call("/v1/images/generations", { key: tenant.api_key, body, headers: { "Idempotency-Key": key } });
const reserved = async (taskId: string) => (await taskEvents(taskId)).find((e) => e.kind === "reserve")?.detail.amount;

describe("POST /v1/quotes", () => {
  it("prices the create as it would be reserved, per meter, and starts nothing", async () => {
    const before = await ledger(t.tenant_id);
    const res = await quote(t, BODY);
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const q = res.json;
    expect(q.object).toBe("quote");
    expect(q.quote_id).toMatch(/^quo_/);
    expect(q.operation).toBe("text_to_image");
    expect(typeof q.resolved_model).toBe("string");
    expect(q.lines.length).toBeGreaterThan(0);
    const sum = q.lines.reduce((acc: any, l: any) => {
      expect(dec(l.unit_credits).times(l.quantity).eq(l.credits)).toBe(true);
      return acc.plus(l.credits);
    }, dec(0));
    expect(sum.eq(q.credits)).toBe(true);
    expect(dec(q.credits).gt(0)).toBe(true);
    expect(Date.parse(q.expires_at) - Date.parse(q.created_at)).toBe(15 * 60_000);
    // Nothing held, nothing listed.
    expect(await ledger(t.tenant_id)).toEqual(before);
    const list = await call("/v1/tasks", { key: t.api_key });
    expect(list.json.data).toEqual([]);

    // The create under the quote reserves exactly the quote, on the quoted model, and bills the quote's meters.
    const made = await create(t, { ...BODY, quote_id: q.quote_id });
    expect(made.status, JSON.stringify(made.json)).toBe(202);
    expect(made.json.resolved_model).toBe(q.resolved_model);
    expect(await reserved(made.json.task_id)).toBe(q.credits);
    const done = await waitFor(t, made.json.task_id);
    expect(done.status).toBe("succeeded");
    expect(done.usage.lines.map((l: any) => l.meter)).toEqual(q.lines.map((l: any) => l.meter));
    expect(dec(done.usage.credits).lte(q.credits)).toBe(true);
    expect(done.input.quote_id).toBeUndefined();
    await expectLedgerBalanced(t.tenant_id);
  });

  it("answers the create's validation errors with the create's params", async () => {
    const bad = { prompt: "", model: "auto" };
    const viaCreate = await create(t, bad);
    const viaQuote = await quote(t, bad);
    const e = expectError(viaQuote, viaCreate.status, viaCreate.json.error.code, viaCreate.json.error.param);
    expect(e.param).toBe("/prompt");
    const unknownModel = { ...BODY, model: "no-such-model" };
    const refused = await create(t, unknownModel);
    expectError(await quote(t, unknownModel), refused.status, "unsupported_model", "/model");
    expectError(await quote(t, BODY, "no_such_operation"), 422, "invalid_request", "/operation");
    expectError(
      await call("/v1/quotes", { key: t.api_key, body: { operation: "text_to_image" } }),
      422,
      "invalid_request",
      "/request",
    );
    expectError(await quote(t, { ...BODY, quote_id: "quo_x" }), 422, "invalid_request", "/quote_id");
    const noPermission = await newTenant({ permissions: ["tasks:read"] });
    expectError(await quote(noPermission, BODY), 403, "forbidden");
  });
});

describe("a create with quote_id", () => {
  it("is refused when the body is not the quoted one", async () => {
    const q = (await quote(t, BODY)).json;
    const res = await create(t, { ...BODY, prompt: "Another picture", quote_id: q.quote_id });
    const e = expectError(res, 422, "invalid_request", "/quote_id");
    expect(e.details.reason).toBe("quote_mismatch");
    await expectLedgerBalanced(t.tenant_id);
  });

  it("is refused for an unknown quote and for another tenant's quote", async () => {
    const unknown = expectError(await create(t, { ...BODY, quote_id: "quo_0000" }), 422, "invalid_request", "/quote_id");
    expect(unknown.details.reason).toBe("quote_not_found");
    const other = await newTenant({ credits: "1000" });
    const q = (await quote(other, BODY)).json;
    const foreign = expectError(await create(t, { ...BODY, quote_id: q.quote_id }), 422, "invalid_request", "/quote_id");
    expect(foreign.details.reason).toBe("quote_not_found");
  });

  it("is refused for a quote of the other key mode of the same tenant", async () => {
    const k = await call(`/admin/v1/tenants/${t.tenant_id}/api-keys`, { key: ADMIN_TOKEN, body: { mode: "test" } });
    expect(k.status).toBe(201);
    const testKey = { ...t, api_key: k.json.api_key as string };
    const q = (await quote(testKey, BODY)).json;
    expect(q.credits).toBe("0");
    const e = expectError(await create(t, { ...BODY, quote_id: q.quote_id }), 422, "invalid_request", "/quote_id");
    expect(e.details.reason).toBe("quote_not_found");
    expect((await create(testKey, { ...BODY, quote_id: q.quote_id })).status).toBe(202);
  });

  it("is refused once the quote has expired", async () => {
    const q = (await quote(t, BODY)).json;
    // The quote's 15 minutes, passed: its row says it expired a moment ago.
    await runInDurableObject(env.ACCOUNTS.getByName(t.tenant_id), async (_obj, state) => {
      state.storage.sql.exec("UPDATE quotes SET expires_at = ? WHERE quote_id = ?", Date.now() - 1, q.quote_id);
    });
    const e = expectError(await create(t, { ...BODY, quote_id: q.quote_id }), 422, "invalid_request", "/quote_id");
    expect(e.details.reason).toBe("quote_expired");
  });

  it("serves one task: a retry with the same Idempotency-Key is that task, another key is refused", async () => {
    const q = (await quote(t, BODY)).json;
    const key = newKey();
    const first = await create(t, { ...BODY, quote_id: q.quote_id }, key);
    expect(first.status).toBe(202);
    const retry = await create(t, { ...BODY, quote_id: q.quote_id }, key);
    expect(retry.status).toBe(202);
    expect(retry.json.task_id).toBe(first.json.task_id);
    const again = await create(t, { ...BODY, quote_id: q.quote_id });
    const e = expectError(again, 422, "invalid_request", "/quote_id");
    expect(e.details.reason).toBe("quote_used");
    await waitFor(t, first.json.task_id);
    await expectLedgerBalanced(t.tenant_id);
  });
});

describe("a quote after the catalog's price rises", () => {
  const files = JSON.parse(env.TEST_CATALOG) as Record<string, string>;
  afterAll(async () => {
    await publishCatalog(env.CATALOG, buildCatalog(files));
  });

  it("still binds: the create reserves and is charged at most the quoted credits", async () => {
    const q = (await quote(t, { ...BODY, model: "auto" })).json;
    const model = q.resolved_model as string;
    // The same catalog, with every price of the quoted model (its cards' and its routes') ten times higher.
    const tenfold = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(tenfold)
        : v && typeof v === "object"
          ? Object.fromEntries(
              Object.entries(v).map(([k, x]) => [
                k,
                k === "unit_credits"
                  ? dec(x as string)
                      .times(10)
                      .toString()
                  : tenfold(x),
              ]),
            )
          : v;
    const raised: Record<string, string> = {};
    for (const [path, text] of Object.entries(files)) {
      const file = path.endsWith(".json") ? JSON.parse(text) : null;
      raised[path] = file?.model === model && Array.isArray(file.interfaces) ? JSON.stringify(tenfold(file)) : text;
    }
    expect(Object.keys(raised).filter((p) => raised[p] !== files[p]).length).toBe(1);
    const bundle = buildCatalog(raised);
    await publishCatalog(env.CATALOG, { ...bundle, version: `${bundle.version}-raised` });
    // The pointer is re-read within two seconds (src/catalog/store.ts).
    await new Promise((r) => setTimeout(r, 2_100));
    const now = (await quote(t, { ...BODY, model: "auto" })).json;
    expect(now.resolved_model).toBe(model);
    expect(dec(now.credits).eq(dec(q.credits).times(10))).toBe(true);

    const made = await create(t, { ...BODY, model: "auto", quote_id: q.quote_id });
    expect(made.status, JSON.stringify(made.json)).toBe(202);
    expect(await reserved(made.json.task_id)).toBe(q.credits);
    const done = await waitFor(t, made.json.task_id);
    expect(done.status).toBe("succeeded");
    expect(dec(done.usage.credits).lte(q.credits)).toBe(true);
    for (const [i, l] of done.usage.lines.entries()) {
      expect(dec(l.billed_amount_credits).lte(dec(q.lines[i].unit_credits).times(l.quantity))).toBe(true);
    }
    const settled = (await ledger(t.tenant_id)) as any;
    expect(dec(settled.totals.reserved).eq(0)).toBe(true);
    await expectLedgerBalanced(t.tenant_id);
  });
});
