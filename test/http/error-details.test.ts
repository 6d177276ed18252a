/**
 * Error messages are sentences that end once: a reason that is itself a sentence (an artifact's
 * "No artifact '…' exists for this account.") is quoted inside another without a second period.
 * And `details.errors[].loc` holds an array index as a number, wherever the error was built
 * (a schema's issue, a pointer named by a rule), while `param` is the plain JSON pointer.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error";
import { clause } from "../../src/errors/sentence";
import { fromJsonPointer } from "../../src/lib/json-pointer";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { pngInput } from "../helpers/media-fixtures";
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

describe("error locations", () => {
  it("a batch item's bad media: the index is a number in loc and plain in param", async () => {
    const png = await pngInput(64, 64);
    const bad = { type: "data_uri", data_uri: "data:image/png;base64,AAAA" };
    const res = await call("/v1/batches", {
      key: t.api_key,
      body: { operation: "image_to_image", items: [{ custom_id: "a", body: { prompt: "x", images: [png, bad] } }] },
      headers: { "Idempotency-Key": newKey() },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.json.error.param).toBe("/items/0/body/images/1");
    expect(res.json.error.details.errors[0].loc).toEqual(["body", "items", 0, "body", "images", 1]);
  });

  it("a schema's issue in an array item", async () => {
    const res = await call("/v1/images/image-to-image", {
      key: t.api_key,
      body: { prompt: "x", images: [{ type: "bogus" }] },
      headers: { "Idempotency-Key": newKey() },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.json.error.param).toMatch(/^\/images\/0(\/|$)/);
    expect(res.json.error.details.errors[0].loc.slice(0, 3)).toEqual(["body", "images", 0]);
  });

  it("a provider key naming an unknown model at models[1]", async () => {
    const manager = await newTenant({ permissions: ["providers:manage"] });
    const res = await call("/v1/provider-keys/openai", {
      method: "PUT",
      key: manager.api_key,
      body: { api_key: "sk-test-0123456789", mode: "only", models: ["gpt-6-luna", "no-such-model"] },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.json.error.param).toBe("/models/1");
    expect(res.json.error.details.errors[0].loc).toEqual(["body", "models", 1]);
  });

  it("a pointer's tokens: indices as numbers, escapes undone", () => {
    expect(fromJsonPointer("/items/0/body/images/12")).toEqual(["items", 0, "body", "images", 12]);
    expect(fromJsonPointer("/metadata/a~1b~0c/007")).toEqual(["metadata", "a/b~c", "007"]);
    expect(fromJsonPointer("")).toEqual([]);
  });
});
