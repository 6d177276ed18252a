/**
 * `max_credits` on a chat call (an extension field): an estimate above it is refused before
 * anything is held or sent upstream; the charge never exceeds it, even when the upstream reports
 * more usage than was estimated; the upstream never sees the field.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { dec } from "../../src/lib/decimal";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { expectSettled, fake, fakeRequests, ledger, minus, uniqueTag } from "./helpers";

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "1000" });
});

const ask = (tag: string, extra: Record<string, unknown>, behaviour: Record<string, unknown> = {}) => ({
  model: "deepseek-flash",
  messages: [{ role: "user", content: "Tell me about Porto" }],
  max_tokens: 100,
  ...fake(tag, behaviour),
  ...extra,
});
const post = (body: unknown) => call("/v1/chat/completions", { key: t.api_key, body });

describe("chat max_credits", () => {
  it("refuses a call whose estimate is above it: nothing held, nothing sent", async () => {
    const tag = uniqueTag("cap-refused");
    const before = await ledger(t.tenant_id);
    const res = await post(ask(tag, { max_credits: "0.000001" }));
    const e = expectError(res, 422, "invalid_request", "/max_credits");
    expect(dec(e.details.estimate_credits).gt("0.000001")).toBe(true);
    expect(await fakeRequests(tag)).toEqual([]);
    expect((await ledger(t.tenant_id)).totals).toEqual(before.totals);
  });

  it("charges at most max_credits when the upstream reports more than the estimate, and keeps the field to itself", async () => {
    const tag = uniqueTag("cap-capture");
    const before = await ledger(t.tenant_id);
    // 200k prompt tokens reported, far beyond the estimate of this short prompt: 6 credits uncapped.
    const res = await post(ask(tag, { max_credits: "0.05" }, { prompt_tokens: 200_000 }));
    expect(res.status, res.text).toBe(200);
    expect(res.json.usage.prompt_tokens).toBe(200_000);
    expect(res.headers.get("X-Credits-Charged")).toBe("0.05");
    const sent = await fakeRequests(tag);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).not.toHaveProperty("max_credits");
    const after = await expectSettled(t.tenant_id);
    expect(minus(after.totals.captured, before.totals.captured)).toBe("0.05");
  });

  it("caps a streamed call's charge too", async () => {
    const tag = uniqueTag("cap-stream");
    const before = await ledger(t.tenant_id);
    const res = await post(ask(tag, { max_credits: "0.05", stream: true }, { prompt_tokens: 200_000 }));
    expect(res.status).toBe(200);
    expect(res.text.trim().endsWith("data: [DONE]")).toBe(true);
    const after = await expectSettled(t.tenant_id);
    expect(minus(after.totals.captured, before.totals.captured)).toBe("0.05");
  });

  it("is validated as a decimal credit figure", async () => {
    expectError(await post(ask(uniqueTag("cap-bad"), { max_credits: "lots" })), 422, "invalid_request", "/max_credits");
  });
});
