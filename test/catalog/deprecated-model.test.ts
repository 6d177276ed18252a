/**
 * A deprecated model as a client meets it (gemini-3.5-flash, deprecated by Google for
 * gemini-3.6-flash): still selectable by name, with Deprecation headers and a successor link on
 * the task and the completion, a model_deprecated warning, never chosen by auto while another
 * model fits, and the catalog showing the deprecation and the replacement.
 */
import { describe, expect, it } from "vitest";
import { call, newTenant } from "../helpers/api";
import { mp4, pngInput } from "../helpers/media-fixtures";
import { newKey } from "../helpers/tasks";
import { artifactInput } from "../operations/requests";

const DEPRECATED = "gemini-3.5-flash";
const announced = `@${Date.parse("2026-10-08T00:00:00Z") / 1000}`;

describe("a deprecated model", () => {
  it("runs when asked for by name, and says it is deprecated in headers and in the envelope", async () => {
    const t = await newTenant();
    const body = { model: DEPRECATED, prompt: "What is in this picture?", images: [await pngInput(64, 64)] };
    const res = await call("/v1/images/responses", { key: t.api_key, body, headers: { "Idempotency-Key": newKey() } });
    expect(res.status).toBe(202);
    expect(res.json.resolved_model).toBe(DEPRECATED);
    expect(res.headers.get("deprecation")).toBe(announced);
    expect(res.headers.get("link")).toBe('</v1/catalog/models/gemini-3.6-flash>; rel="successor-version"');
    expect(res.headers.get("sunset")).toBeNull(); // no shutdown date is announced
    const warning = res.json.warnings.find((w: { code: string }) => w.code === "model_deprecated");
    expect(warning.message).toContain("gemini-3.6-flash");
    const read = await call(`/v1/tasks/${res.json.task_id}`, { key: t.api_key });
    expect(read.headers.get("deprecation")).toBe(announced);
  });

  it("carries the headers on chat completions too", async () => {
    const t = await newTenant();
    const res = await call("/v1/chat/completions", {
      key: t.api_key,
      body: { model: DEPRECATED, messages: [{ role: "user", content: "hello" }] },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("deprecation")).toBe(announced);
  });

  it("is not what auto chooses while another model fits", async () => {
    const t = await newTenant();
    const body = { model: "auto", prompt: "Describe it.", images: [await pngInput(64, 64)] };
    const res = await call("/v1/images/responses", { key: t.api_key, body, headers: { "Idempotency-Key": newKey() } });
    expect(res.status).toBe(202);
    expect(res.json.resolved_model).not.toBe(DEPRECATED);
    expect(res.headers.get("deprecation")).toBeNull();
  });

  it("video understanding with auto runs on the live replacement, with no deprecation to warn of", async () => {
    const t = await newTenant();
    const video = await artifactInput(t.tenant_id, mp4(2, 640, 360), "video/mp4");
    const body = { model: "auto", prompt: "What happens?", video };
    const res = await call("/v1/videos/responses", { key: t.api_key, body, headers: { "Idempotency-Key": newKey() } });
    expect(res.status).toBe(202);
    expect(res.json.resolved_model).toBe("gemini-3.6-flash");
    expect(res.json.warnings.some((w: { code: string }) => w.code === "model_deprecated")).toBe(false);
    expect(res.headers.get("deprecation")).toBeNull();
    // The deprecated model no longer offers the operation, so it never advises a model that refuses it.
    const old = { ...body, model: DEPRECATED };
    const refused = await call("/v1/videos/responses", { key: t.api_key, body: old, headers: { "Idempotency-Key": newKey() } });
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe("unsupported_model");
  });

  it("shows the deprecation and its replacement in the catalog", async () => {
    const t = await newTenant();
    const detail = (await call(`/v1/catalog/models/${DEPRECATED}`, { key: t.api_key })).json;
    expect(detail.status).toBe("deprecated");
    expect(detail.deprecation).toMatchObject({ announced_at: "2026-10-08", replacement: "gemini-3.6-flash" });
    expect(detail.checked_at).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const replacement = (await call("/v1/catalog/models/gemini-3.6-flash", { key: t.api_key })).json;
    expect(replacement.status).toBe("live");
  });
});
