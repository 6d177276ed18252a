/**
 * How a chat call chooses its route and its model: route health (a route failing on the provider's
 * side opens its circuit and is skipped; every route open is 503 all_routes_unhealthy), the
 * `models` fallback list, `provider` preferences and the X-Provider header. deepseek-flash gets a
 * second route here (another upstream model on the same fake) so that its routes can fail one by one.
 */
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalog } from "../../src/catalog/build";
import { publishCatalog } from "../../src/catalog/store";
import { forgetStatus } from "../../src/health/status";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { fake, fakeRequests, ledger, uniqueTag, waitUntil } from "./helpers";

const files = JSON.parse(env.TEST_CATALOG) as Record<string, string>;
const second = "deepseek-flash-b";

let a: TestTenant;
let b: TestTenant;
beforeAll(async () => {
  const twin = Object.fromEntries(
    Object.entries(files).map(([name, text]) => {
      if (!name.endsWith("models/deepseek-flash.json")) return [name, text];
      const card = JSON.parse(text);
      card.routes.splice(1, 0, { provider: "deepseek", upstream_model: second });
      return [name, JSON.stringify(card)];
    }),
  );
  const bundle = buildCatalog(twin);
  await publishCatalog(env.CATALOG, { ...bundle, version: `${bundle.version}-twin` });
  // The pointer is re-read within two seconds (src/catalog/store.ts).
  await new Promise((r) => setTimeout(r, 2_100));
  [a, b] = await Promise.all([newTenant({ credits: "1000" }), newTenant({ credits: "1000" })]);
});
afterAll(async () => {
  await publishCatalog(env.CATALOG, buildCatalog(files));
});

const ask = (tag: string, extra: Record<string, unknown> = {}, behaviour: Record<string, unknown> = {}) => ({
  model: "deepseek-flash",
  messages: [{ role: "user", content: "Tell me about Porto" }],
  max_tokens: 50,
  ...fake(tag, behaviour),
  ...extra,
});
const post = (t: TestTenant, body: Record<string, unknown>) => call("/v1/chat/completions", { key: t.api_key, body });
const models = async (tag: string) => (await fakeRequests(tag)).map((r) => r.body.model as string);

describe("chat and route health", () => {
  it("moves to the card's next route when one fails on the provider's side, says which provider served, and reports both", async () => {
    const tag = uniqueTag("failover");
    const res = await post(a, ask(tag, {}, { fail_models: ["deepseek-flash"], status: 404 }));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.headers.get("X-Provider")).toBe("deepseek");
    expect(res.json.model).toBe("deepseek-flash");
    expect(res.json.model_fallbacks).toBeUndefined();
    expect(await models(tag)).toEqual(["deepseek-flash", second]);
  });

  it("opens the failing route's circuit after failures from two tenants, then skips it; its counts show in /v1/status", async () => {
    for (let i = 0; i < 12; i++) {
      const res = await post(i % 2 ? a : b, ask(uniqueTag("open"), {}, { fail_models: ["deepseek-flash"], status: 404 }));
      expect(res.status, JSON.stringify(res.json)).toBe(200);
    }
    // Reports reach the health object after the answers (waitUntil): the skip shows within a few calls.
    const tag = uniqueTag("skipped");
    const served = await waitUntil(
      async () => {
        const t = uniqueTag(tag);
        const res = await post(a, ask(t));
        expect(res.status).toBe(200);
        return models(t);
      },
      (m) => m.length === 1 && m[0] === second,
    );
    expect(served).toEqual([second]);
    forgetStatus();
    const status = (await call("/v1/status")).json;
    const model = status.models.find((m: { model: string }) => m.model === "deepseek-flash");
    expect(model.routes).toContainEqual(expect.objectContaining({ provider: "deepseek", upstream_model: "deepseek-flash" }));
    expect(model.windows["5m"].attempts).toBeGreaterThanOrEqual(12);
    expect(model.windows["5m"].success_rate).toBeLessThan(1);
    expect(status.open_circuits).toContainEqual(
      expect.objectContaining({ provider: "deepseek", upstream_model: "deepseek-flash" }),
    );
  });

  it("every route open: 503 model_unavailable, all_routes_unhealthy, Retry-After; nothing held", async () => {
    // Enough failures to outweigh the second route's successes of the test before, within the window.
    for (let i = 0; i < 30; i++) {
      await post(i % 2 ? a : b, ask(uniqueTag("open-b"), {}, { fail_models: ["deepseek-flash", second], status: 404 }));
    }
    const before = await ledger(a.tenant_id);
    const res = await waitUntil(
      () => post(a, ask(uniqueTag("all-open"))),
      (r) => r.status === 503,
    );
    const e = expectError(res, 503, "model_unavailable", "/model");
    expect(e.details.reason).toBe("all_routes_unhealthy");
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await ledger(a.tenant_id)).totals.reserved).toBe(before.totals.reserved);
  });
});
