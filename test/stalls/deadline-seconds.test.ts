/**
 * `deadline_seconds` on a create: from the model card's `timing.min_deadline_seconds` to the
 * service's maximum; the envelope's `deadline_at` follows it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage } from "../helpers/tasks";

const MAX_DEADLINE_SECONDS = 3 * 3600;

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "10000" });
});

const seconds = (task: { created_at: string; deadline_at: string }) =>
  (Date.parse(task.deadline_at) - Date.parse(task.created_at)) / 1000;

async function minimumOf(model: string, capability: string): Promise<number> {
  const res = await call(`/v1/catalog/models/${model}`, { key: t.api_key });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const card = res.json.interfaces.find((i: { capability: string }) => i.capability === capability);
  return card.timing.min_deadline_seconds;
}

describe("deadline_seconds", () => {
  it("sets deadline_at: the card's minimum and the service's maximum are both accepted", async () => {
    const minimum = await minimumOf("flux-2-pro", "text_to_image");
    expect(minimum).toBeGreaterThan(1);
    for (const asked of [minimum, 900, MAX_DEADLINE_SECONDS]) {
      const res = await createImage(t, { model: "flux-2-pro", prompt: "a quick one", deadline_seconds: asked });
      expect(res.status, JSON.stringify(res.json)).toBe(202);
      expect(seconds(res.json)).toBe(asked);
      // The deadline is not the operation's input: it is not echoed with it.
      expect(res.json.input.deadline_seconds).toBeUndefined();
    }
  });

  it("without it, the capability's default deadline applies", async () => {
    const res = await createImage(t, { model: "flux-2-pro", prompt: "default deadline" });
    expect(res.status).toBe(202);
    expect(seconds(res.json)).toBe(600);
  });

  it("below the card's minimum: 422 invalid_request at /deadline_seconds, nothing reserved", async () => {
    const minimum = await minimumOf("flux-2-pro", "text_to_image");
    const fresh = await newTenant({ credits: "100" });
    const e = expectError(
      await createImage(fresh, { model: "flux-2-pro", prompt: "too hasty", deadline_seconds: minimum - 1 }),
      422,
      "invalid_request",
      "/deadline_seconds",
    );
    expect(e.details).toMatchObject({ minimum_seconds: minimum, maximum_seconds: MAX_DEADLINE_SECONDS });
    const balance = (await call("/v1/balance", { key: fresh.api_key })).json;
    expect(balance).toMatchObject({ available_credits: "100", reserved_credits: "0" });
  });

  it("above the service's maximum, not an integer, or not a number: 422 invalid_request at /deadline_seconds", async () => {
    for (const bad of [MAX_DEADLINE_SECONDS + 1, 0, -5, 90.5, "120", null]) {
      expectError(
        await createImage(t, { model: "flux-2-pro", prompt: "bad deadline", deadline_seconds: bad }),
        422,
        "invalid_request",
        "/deadline_seconds",
      );
    }
  });

  it("auto passes over models whose minimum is longer, and says why when none is left", async () => {
    const res = await createImage(t, { prompt: "auto, in a hurry", deadline_seconds: 5 });
    const e = expectError(res, 422, "no_eligible_model", "/deadline_seconds");
    expect(e.details.candidate_failures.length).toBeGreaterThan(0);
    for (const f of e.details.candidate_failures) {
      if (f.code === "no_live_route") continue;
      expect(f).toMatchObject({ code: "deadline_too_short", param: "/deadline_seconds", received: 5 });
    }
  });

  it("a video card's minimum is its own: a deadline fine for an image is too short for a video", async () => {
    const minimum = await minimumOf("kling-4.0", "text_to_video");
    expect(minimum).toBeGreaterThan(60);
    const res = await call("/v1/videos/text-to-video", {
      key: t.api_key,
      body: { model: "kling-4.0", prompt: "a slow pan", deadline_seconds: 60 },
      headers: { "Idempotency-Key": `deadline-video-${Date.now()}` },
    });
    expectError(res, 422, "invalid_request", "/deadline_seconds");
  });
});
