/**
 * What an understanding task holds: the estimated prompt plus the card's default output budget
 * (the budget the upstream is also held to), not the card's maximum output, so a small balance
 * is not refused for a cost the task cannot reach. Asking for a longer answer reserves for it.
 */

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildCatalog } from "../../src/catalog/build";
import { dec, fmt } from "../../src/lib/decimal";
import { promptTokens } from "../../src/operations/shared";
import { call, expectError, newTenant } from "../helpers/api";
import { pngInput } from "../helpers/media-fixtures";
import { expectLedgerBalanced, newKey, taskEvents, waitFor } from "../helpers/tasks";

const bundle = buildCatalog(JSON.parse(env.TEST_CATALOG));
const MODEL = "gemini-3.6-flash";
const card = bundle.models[MODEL]?.interfaces.find((i) => i.capability === "image_to_text");
const price = (type: string) => card?.pricing.options.find((o) => o.dimensions.token_type === type)?.unit_credits as string;
const PROMPT = "What is in this picture?";

describe("understanding reservations", () => {
  it("hold the prompt and the default output budget, and settle within the hold", async () => {
    const budget = card?.default_output_tokens as number;
    expect(budget).toBeLessThan(card?.max_output_tokens as number);
    const expected = fmt(
      dec(price("input"))
        .times(promptTokens(PROMPT, 1))
        .plus(dec(price("output")).times(budget)),
    );
    // Enough for the budget, far too little for the card's maximum output.
    const maximum = dec(price("output")).times(card?.max_output_tokens as number);
    const t = await newTenant({ credits: "5" });
    expect(maximum.gt(5)).toBe(true);
    const body = { model: MODEL, prompt: PROMPT, images: [await pngInput(64, 64)] };
    const res = await call("/v1/images/responses", { key: t.api_key, body, headers: { "Idempotency-Key": newKey() } });
    expect(res.status).toBe(202);
    const reserve = (await taskEvents(res.json.task_id)).find((e) => e.kind === "reserve");
    expect(reserve?.detail.amount).toBe(expected);
    const done = await waitFor(t, res.json.task_id);
    expect(done.status).toBe("succeeded");
    expect(dec(done.usage.credits).lte(expected)).toBe(true);
    await expectLedgerBalanced(t.tenant_id);
  });

  it("reserve for the longer answer a request asks for, and refuse it with 402 when the balance cannot cover it", async () => {
    const t = await newTenant({ credits: "5" });
    const body = { model: MODEL, prompt: PROMPT, images: [await pngInput(64, 64)], max_output_tokens: 65_536 };
    const res = await call("/v1/images/responses", { key: t.api_key, body, headers: { "Idempotency-Key": newKey() } });
    expectError(res, 402, "insufficient_balance");
    const ledger = await expectLedgerBalanced(t.tenant_id);
    expect(ledger.balance).toBe("5");
  });
});
