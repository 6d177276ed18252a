/**
 * Error messages are sentences that end once: a reason that is itself a sentence (an artifact's
 * "No artifact '…' exists for this account.") is quoted inside another without a second period.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error";
import { clause } from "../../src/lib/sentence";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { newKey } from "../helpers/tasks";

const missing = { type: "artifact", artifact_id: `art_${"0".repeat(32)}` };

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant();
});

describe("error messages end once", () => {
  it("a task naming a missing artifact", async () => {
    const res = await call("/v1/images/image-to-image", {
      key: t.api_key,
      body: { prompt: "make it autumn", images: [missing] },
      headers: { "Idempotency-Key": newKey() },
    });
    expect(res.status, res.text).toBe(404);
    expect(res.json.error.message).toMatch(/for this account\.$/);
  });

  it("a batch whose item names a missing artifact quotes the item's reason without a second period", async () => {
    const res = await call("/v1/batches", {
      key: t.api_key,
      body: {
        operation: "image_to_image",
        items: [{ custom_id: "a", body: { prompt: "make it autumn", images: [missing] } }],
      },
      headers: { "Idempotency-Key": newKey() },
    });
    expect(res.status, res.text).toBeGreaterThanOrEqual(400);
    expect(res.json.error.message).toContain("for this account");
    expect(res.json.error.message).not.toMatch(/\.\.$/);
    expect(res.json.error.message).toMatch(/[^.]\.$/);
  });

  it("a clause drops its own final period, not an ellipsis", () => {
    expect(clause("No artifact 'x' exists for this account.")).toBe("No artifact 'x' exists for this account");
    expect(clause("must be 1 to 128 characters")).toBe("must be 1 to 128 characters");
    expect(clause("and so on...")).toBe("and so on...");
  });

  it("no error leaves with a doubled final period, whoever built it", () => {
    expect(new ApiError("invalid_request", `line 3: ${"No artifact 'x' exists for this account."}.`).message).toBe(
      "line 3: No artifact 'x' exists for this account.",
    );
    expect(new ApiError("invalid_request", "Wait...").message).toBe("Wait...");
  });
});
