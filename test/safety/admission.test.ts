/**
 * Content review at admission with the built-in reviewer (the local configuration: no provider
 * configured): a flagged field answers 400 safety_rejected with its pointer, its categories and
 * the recovery object; nothing is reserved, charged or listed; the same Idempotency-Key and body
 * keep the same refusal and another body is a conflict; the first refusal is audited; an
 * admitted task records its review.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, newTenant } from "../helpers/api";
import { pngInput } from "../helpers/media-fixtures";
import { accountState, auditOf, safetyOf } from "../helpers/safety";
import { createImage, newKey } from "../helpers/tasks";

const UNSAFE = "a sandbox-unsafe-test scene";
const RECOVERY = { action: "change_input", requires_input_change: true, client_request_id: "new" };

function create(key: string, path: string, body: Record<string, unknown>, idempotencyKey = newKey()) {
  return call(path, { key, body, headers: { "Idempotency-Key": idempotencyKey } });
}

describe("a flagged request", () => {
  it("answers 400 safety_rejected with the pointer, the categories and the recovery object; nothing is charged", async () => {
    const t = await newTenant({ credits: "1000" });
    const before = await accountState(t.tenant_id);
    const res = await createImage(t, { prompt: UNSAFE });
    const e = expectError(res, 400, "safety_rejected", "/prompt");
    expect(e.type).toBe("safety_error");
    expect(e.retryable).toBe(false);
    expect(e.details.categories).toEqual(["test"]);
    expect(e.details.fields).toEqual([{ param: "/prompt", categories: ["test"] }]);
    expect(e.details.recovery).toEqual(RECOVERY);
    // The ledger is untouched: same balance, no hold, no task listed, no usage.
    expect(await accountState(t.tenant_id)).toEqual(before);
    expect((await call("/v1/tasks", { key: t.api_key })).json.data).toEqual([]);
    const balance = await call("/v1/balance", { key: t.api_key });
    expect(balance.json).toMatchObject({ available_credits: "1000", reserved_credits: "0" });
  });

  it("points at the flagged field of each operation", async () => {
    const t = await newTenant({ credits: "1000" });
    const cases: [string, Record<string, unknown>, string][] = [
      [
        "/v1/videos/text-to-video",
        { model: "wan-2.7", prompt: "a calm lake", negative_prompt: "sandbox-unsafe-test" },
        "/negative_prompt",
      ],
      [
        "/v1/music/text-to-music",
        {
          model: "suno-v5",
          prompt: "upbeat indie pop",
          lyrics: "[Verse]\nwe sing sandbox-unsafe-test",
          model_options: { family_a: { custom_mode: true } },
        },
        "/lyrics",
      ],
      ["/v1/audio/speech", { voice: "English_expressive_narrator", input: "Say sandbox-unsafe-test now." }, "/input"],
      ["/v1/videos/text-to-video", { prompt: "waves, SANDBOX-UNSAFE-TEST" }, "/prompt"],
      ["/v1/videos/prompts/enhance", { prompt: "a fox in snow", style: "sandbox-unsafe-test" }, "/style"],
    ];
    for (const [path, body, param] of cases) {
      const res = await create(t.api_key, path, body);
      expectError(res, 400, "safety_rejected", param);
    }
    expect((await accountState(t.tenant_id)).reservations).toBe(0);
  });

  it("names the first flagged field and lists every one", async () => {
    const t = await newTenant();
    const res = await create(t.api_key, "/v1/music/text-to-music", {
      model: "suno-v5",
      prompt: UNSAFE,
      lyrics: "[Verse]\nhow to build a pipe bomb",
      model_options: { family_a: { custom_mode: true } },
    });
    const e = expectError(res, 400, "safety_rejected", "/prompt");
    expect(e.details.categories).toEqual(["illicit/violent", "test"]);
    expect(e.details.fields).toEqual([
      { param: "/prompt", categories: ["test"] },
      { param: "/lyrics", categories: ["illicit/violent"] },
    ]);
  });

  it("is refused the same way with an image input (the image itself is not reviewed by the built-in reviewer)", async () => {
    const t = await newTenant();
    const res = await create(t.api_key, "/v1/images/image-to-image", { prompt: UNSAFE, images: [await pngInput(64, 64)] });
    expectError(res, 400, "safety_rejected", "/prompt");
  });

  it("gets its 422 first when it is also invalid", async () => {
    const t = await newTenant();
    expectError(await createImage(t, { prompt: UNSAFE, count: 9 }), 422, "invalid_request");
    expectError(await createImage(t, { prompt: UNSAFE, model: "no-such-model" }), 400, "unsupported_model");
  });

  it("is refused for a test-mode key too (always the built-in reviewer)", async () => {
    const t = await newTenant({ mode: "test" });
    expectError(await createImage(t, { prompt: UNSAFE }), 400, "safety_rejected", "/prompt");
  });
});

describe("idempotent refusals", () => {
  it("answers the same key and body with the identical refusal, and audits it once", async () => {
    const t = await newTenant({ credits: "1000" });
    const key = newKey();
    const first = await createImage(t, { prompt: UNSAFE }, key);
    const again = await createImage(t, { prompt: UNSAFE }, key);
    const e1 = expectError(first, 400, "safety_rejected", "/prompt");
    const e2 = expectError(again, 400, "safety_rejected", "/prompt");
    const { request_id: _a, ...one } = e1;
    const { request_id: _b, ...two } = e2;
    expect(two).toEqual(one);
    // Key order of the body does not matter (canonical hash).
    const reordered = await call("/v1/images/generations", {
      key: t.api_key,
      rawBody: `{"canvas":{"aspect":"16:9","tier":"2K","type":"preset"},"prompt":${JSON.stringify(UNSAFE)}}`,
      headers: { "Idempotency-Key": newKey(), "Content-Type": "application/json" },
    });
    expectError(reordered, 400, "safety_rejected");
    const audit = await auditOf(t.tenant_id, "safety.refused");
    expect(audit.filter((a) => a.details.idempotency_key === key)).toHaveLength(1);
  });

  it("answers the same key with another body as an idempotency conflict, and admits changed work under a new key", async () => {
    const t = await newTenant({ credits: "1000" });
    const key = newKey();
    expectError(await createImage(t, { prompt: UNSAFE }, key), 400, "safety_rejected");
    const changed = await createImage(t, { prompt: "a calm lake" }, key);
    expectError(changed, 409, "idempotency_conflict");
    expect((await accountState(t.tenant_id)).reservations).toBe(0);
    const fresh = await createImage(t, { prompt: "a calm lake" }, newKey());
    expect(fresh.status, JSON.stringify(fresh.json)).toBe(202);
  });

  it("keeps a refused key's answer for an image request too (answered before the media are fetched again)", async () => {
    const t = await newTenant();
    const key = newKey();
    const body = { prompt: UNSAFE, images: [await pngInput(64, 64)] };
    const e1 = expectError(await create(t.api_key, "/v1/images/image-to-image", body, key), 400, "safety_rejected");
    const e2 = expectError(await create(t.api_key, "/v1/images/image-to-image", body, key), 400, "safety_rejected");
    expect(e2.message).toBe(e1.message);
  });
});

describe("the record of a decision", () => {
  it("writes the refusal to the tenant's audit log with the key, the categories, the scores and the pointer", async () => {
    const t = await newTenant();
    const key = newKey();
    const body = { model: "wan-2.7", prompt: "calm", negative_prompt: UNSAFE };
    expectError(await create(t.api_key, "/v1/videos/text-to-video", body, key), 400, "safety_rejected");
    const [entry] = await auditOf(t.tenant_id, "safety.refused");
    expect(entry.actor).toEqual({ type: "api_key", id: t.key_id });
    expect(entry.target).toBe("POST /v1/videos/text-to-video");
    expect(entry.details).toMatchObject({
      provider: "builtin",
      param: "/negative_prompt",
      categories: ["test"],
      fields: [{ param: "/negative_prompt", categories: ["test"], scores: { test: 1 } }],
      capability: "text_to_video",
      idempotency_key: key,
    });
  });

  it("keeps an admitted task's review in its record, and shows no warning", async () => {
    const t = await newTenant();
    const res = await createImage(t, { prompt: "a calm lake at dawn" });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    expect(res.json.warnings.map((w: { code: string }) => w.code)).not.toContain("safety_review_skipped");
    const safety = await safetyOf(res.json.task_id);
    expect(safety).toMatchObject({ provider: "builtin", outcome: "passed", max_scores: {}, unreviewed: [] });
    expect(typeof safety.reviewed_at).toBe("string");
  });

  it("lists an image input the built-in reviewer does not look at as unreviewed", async () => {
    const t = await newTenant();
    const res = await create(t.api_key, "/v1/images/image-to-image", {
      prompt: "the same sky",
      images: [await pngInput(64, 64)],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    expect((await safetyOf(res.json.task_id)).unreviewed).toEqual(["/images/0"]);
  });
});
