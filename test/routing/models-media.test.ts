import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, expectLedgerBalanced, waitFor } from "../helpers/tasks";

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "1000" });
});

describe("models: a fallback list on a media create", () => {
  it("serves on the first model that fits, reporting every one passed over and why", async () => {
    // The first id is no model at all: passed over at admission with the refusal it alone would get.
    const res = await createImage(t, {
      prompt: "a lighthouse",
      models: ["no-such-model", "flux-2-pro", "gpt-image-2"],
      canvas: { type: "preset", tier: "1K", aspect: "1:1" },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.json.model).toBe("no-such-model");
    expect(res.json.resolved_model).toBe("flux-2-pro");
    expect(res.json.models).toEqual(["no-such-model", "flux-2-pro", "gpt-image-2"]);
    expect(res.json.model_fallbacks).toMatchObject([{ model: "no-such-model", reason: "unsupported_model" }]);
    const done = await waitFor(t, res.json.task_id);
    expect(done.status).toBe("succeeded");
    expect(done.resolved_model).toBe("flux-2-pro");
  });

  it("moves to the next listed model when the first one's upstream fails, and charges the one that served", async () => {
    const own = await newTenant({ credits: "1000" });
    const res = await createImage(own, {
      prompt: "a harbour at dusk",
      models: ["flux-2-pro", "gpt-image-2"],
      metadata: { sandbox_fault: "provider_error", sandbox_fault_model: "flux-2-pro" },
    });
    expect(res.status, res.text).toBe(202);
    const done = await waitFor(own, res.json.task_id);
    expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
    expect(done.resolved_model).toBe("gpt-image-2");
    expect(done.model_fallbacks).toMatchObject([{ model: "flux-2-pro", reason: "upstream_failed" }]);
    expect(done.billing.net_charged_credits).toBe(done.usage.credits);
    await expectLedgerBalanced(own.tenant_id);
  });

  it("never moves on a failure the request caused: the task fails as it would on one model, refunded", async () => {
    const own = await newTenant({ credits: "1000" });
    const res = await createImage(own, {
      prompt: "filtered",
      models: ["flux-2-pro", "gpt-image-2"],
      metadata: { sandbox_fault: "content_filtered" },
    });
    const done = await waitFor(own, res.json.task_id);
    expect(done.status).toBe("failed");
    expect(done.error.code).toBe("content_filtered");
    expect(done.resolved_model).toBe("flux-2-pro");
    expect(done.model_fallbacks).toEqual([]);
    expect(done.billing.net_charged_credits).toBe("0");
    await expectLedgerBalanced(own.tenant_id);
  });

  it("refuses model with models, auto inside it, and a list none of which fits (one entry per model)", async () => {
    const both = await createImage(t, { prompt: "x", model: "flux-2-pro", models: ["gpt-image-2"] });
    expectError(both, 422, "invalid_request", "/models");
    const auto = await createImage(t, { prompt: "x", models: ["flux-2-pro", "auto"] });
    expectError(auto, 422, "invalid_request", "/models/1");
    const none = await createImage(t, { prompt: "x", models: ["no-such-model", "also-missing"] });
    const e = expectError(none, 422, "no_eligible_model");
    expect(e.details.candidate_failures.map((f: any) => [f.model, f.code])).toEqual([
      ["no-such-model", "unsupported_model"],
      ["also-missing", "unsupported_model"],
    ]);
    const six = await createImage(t, { prompt: "x", models: ["a", "b", "c", "d", "e", "f"] });
    expectError(six, 422, "invalid_request", "/models");
  });

  it("passes over a model the key may not use, and one above max_credits", async () => {
    const res = await createImage(t, { prompt: "cheap", models: ["flux-2-max", "gpt-image-2"], max_credits: "0.000001" });
    const e = expectError(res, 422, "no_eligible_model");
    expect(e.details.candidate_failures.map((f: any) => f.code)).toEqual(["over_max_credits", "over_max_credits"]);
  });
});

describe("models: the hold, the charge and quotes", () => {
  const quote = (request: Record<string, unknown>) =>
    call("/v1/quotes", { key: t.api_key, body: { operation: "text_to_image", request } });

  it("holds the dearest listed model's estimate, charges the serving one's usage, and a quote covers the whole list", async () => {
    const body = { prompt: "a red kite", canvas: { type: "preset", tier: "2K", aspect: "1:1" } };
    const single = await Promise.all(["gpt-image-2", "flux-2-max"].map(async (model) => (await quote({ ...body, model })).json));
    const each = single.map((q) => q.credits as string);
    const dearest = Number(each[0]) > Number(each[1]) ? each[0] : each[1];
    const listed = { ...body, models: ["gpt-image-2", "flux-2-max"] };
    const q = await quote(listed);
    expect(q.status, q.text).toBe(201);
    expect(q.json.credits).toBe(dearest);
    // Its lines are the dearest model's, as that model's own quote has them.
    expect(q.json.lines).toEqual(single.find((x) => x.credits === dearest).lines);
    expect(q.json.resolved_model).toBe("gpt-image-2");
    const res = await createImage(t, { ...listed, quote_id: q.json.quote_id });
    expect(res.status, res.text).toBe(202);
    expect(res.json.billing.charged_credits).toBe(dearest);
    const done = await waitFor(t, res.json.task_id);
    expect(done.status).toBe("succeeded");
    expect(done.billing.net_charged_credits).toBe(done.usage.credits);
    expect(Number(done.usage.credits)).toBeLessThanOrEqual(Number(dearest));
    // A max_credits between the two: the dearer model is passed over, and the hold is the cheaper one's.
    if (each[0] !== each[1]) {
      const cheaper = dearest === each[0] ? each[1] : each[0];
      const capped = await createImage(t, { ...body, models: ["gpt-image-2", "flux-2-max"], max_credits: cheaper });
      expect(capped.status, capped.text).toBe(202);
      expect(capped.json.billing.charged_credits).toBe(cheaper);
    }
  });
});

describe("provider: route preferences on a media create", () => {
  it("an unknown provider name is refused where it is written", async () => {
    const res = await createImage(t, { prompt: "x", provider: { order: ["sandbox", "nope"] } });
    expectError(res, 422, "invalid_request", "/provider/order/1");
  });

  it("preferences that leave a model no route refuse it before anything is held", async () => {
    const res = await createImage(t, { prompt: "x", model: "flux-2-pro", provider: { ignore: ["sandbox"] } });
    const e = expectError(res, 422, "no_eligible_model", "/provider");
    expect(e.details.candidate_failures[0]).toMatchObject({ model: "flux-2-pro", code: "excluded_by_provider_preferences" });
    const listed = await createImage(t, { prompt: "x", models: ["flux-2-pro"], provider: { only: ["fal"] } });
    expect(expectError(listed, 422, "no_eligible_model").details.candidate_failures[0].code).toBe(
      "excluded_by_provider_preferences",
    );
    const ok = await call("/v1/images/generations", {
      key: t.api_key,
      body: { prompt: "x", model: "flux-2-pro", provider: { order: ["sandbox"], sort: "price", allow_fallbacks: false } },
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    expect(ok.status, ok.text).toBe(202);
    expect(ok.json.provider.name).toBe("sandbox");
  });
});
