import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ERROR_CODES, TOOL_ONLY_CODES } from "../../src/errors/codes";
import { validationError } from "../../src/http/validation";
import { toJsonPointer } from "../../src/lib/json-pointer";
import { admin, call, expectError, newTenant } from "../helpers/api";

describe("error table", () => {
  it("gives every code a status, a family and a retry flag", () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(info.status, code).toBeGreaterThanOrEqual(400);
      expect(info.status, code).toBeLessThan(600);
      expect(info.type, code).toMatch(/_error$/);
      expect(typeof info.retryable, code).toBe("boolean");
    }
    // A few rows checked against the spec's table.
    expect(ERROR_CODES.insufficient_balance).toMatchObject({ status: 402, retryable: false });
    expect(ERROR_CODES.media_too_large).toMatchObject({ status: 413, retryable: false });
    expect(ERROR_CODES.media_fetch_failed).toMatchObject({ status: 422, retryable: true });
    expect(ERROR_CODES.request_in_progress).toMatchObject({ status: 409, retryable: true });
    expect(ERROR_CODES.model_timeout).toMatchObject({ status: 504, retryable: true });
    expect(ERROR_CODES.api_key_region_mismatch).toMatchObject({ status: 400, retryable: false });
  });
});

const specRows: { code: string; status: number; retryable: boolean }[] = JSON.parse(env.SPEC_ERROR_TABLE);

describe.skipIf(specRows.length === 0)("error table against the spec", () => {
  it("has exactly the spec's codes, each with the spec's status and retry flag", () => {
    // The table holds the spec's rows plus the tool-only code its Errors rule 8 names outside it.
    expect(
      Object.keys(ERROR_CODES)
        .filter((c) => !TOOL_ONLY_CODES.has(c))
        .sort(),
    ).toEqual(specRows.map((r) => r.code).sort());
    expect([...TOOL_ONLY_CODES]).toEqual(["insufficient_scope"]);
    expect(ERROR_CODES.insufficient_scope).toMatchObject({ status: 403, retryable: false });
    for (const row of specRows) {
      const info = ERROR_CODES[row.code as keyof typeof ERROR_CODES];
      expect({ code: row.code, status: info.status, retryable: info.retryable }).toEqual(row);
    }
  });
});

describe("request ids", () => {
  it("echoes the client's X-Request-Id as the error's request_id", async () => {
    const res = await call("/v1/nowhere", { headers: { "X-Request-Id": "client-123" } });
    expect(res.headers.get("X-Request-Id")).toBe("client-123");
    expect(res.json.error.request_id).toBe("client-123");
  });

  it("makes one when the client sends none, and on success too", async () => {
    const res = await call("/healthz");
    expect(res.headers.get("X-Request-Id")).toMatch(/^req_/);
    const err = await call("/v1/nowhere");
    expect(err.json.error.request_id).toBe(err.headers.get("X-Request-Id"));
  });

  it("replaces an unusable id (too long) with one of its own", async () => {
    const res = await call("/v1/nowhere", { headers: { "X-Request-Id": "x".repeat(500) } });
    expect(res.headers.get("X-Request-Id")).toMatch(/^req_/);
  });
});

describe("unknown paths", () => {
  it.each(["/", "/v1", "/v1/nowhere", "/v2/models", "/admin/v1/nothing"])("404 not_found for %s", async (path) => {
    const res = path.startsWith("/admin") ? await admin(path) : await call(path);
    expectError(res, 404, "not_found");
  });

  it("404 for a known path with another method", async () => {
    const t = await newTenant();
    expectError(await call("/v1/models", { method: "DELETE", key: t.api_key }), 404, "not_found");
  });
});

describe("malformed requests", () => {
  it("malformed JSON is 422 invalid_request", async () => {
    const res = await call("/admin/v1/tenants", {
      rawBody: '{"name": ',
      headers: { "Content-Type": "application/json", Authorization: "Bearer test-admin-token-0123456789abcdef" },
    });
    const e = expectError(res, 422, "invalid_request", "");
    expect(e.details.errors[0].loc).toEqual(["body"]);
  });

  it("a body that is not JSON by content type is 422", async () => {
    const res = await call("/admin/v1/tenants", {
      rawBody: "name=x",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: "Bearer test-admin-token-0123456789abcdef" },
    });
    const e = expectError(res, 422, "invalid_request");
    expect(e.details.errors[0].loc).toEqual(["header", "content-type"]);
  });

  it("lists every schema failure and points param at the first", async () => {
    const res = await admin("/admin/v1/tenants", { name: 42, credits: "lots" });
    const e = expectError(res, 422, "invalid_request", "/name");
    const locs = e.details.errors.map((x: { loc: unknown[] }) => x.loc);
    expect(locs).toEqual([
      ["body", "name"],
      ["body", "credits"],
    ]);
  });

  it("a body that is not an object points at the root", async () => {
    expectError(await admin("/admin/v1/tenants", [1, 2]), 422, "invalid_request", "");
  });

  it("query failures are 422 and name the parameter", async () => {
    const t = await newTenant();
    const e = expectError(await call("/v1/voices?category=robot", { key: t.api_key }), 422, "invalid_request", "/category");
    expect(e.details.errors[0].loc).toEqual(["query", "category"]);
  });
});

describe("JSON Pointer", () => {
  it("escapes ~ and / per RFC 6901", () => {
    expect(toJsonPointer(["metadata", "a/b", "c~d", 0])).toBe("/metadata/a~1b/c~0d/0");
    expect(toJsonPointer([])).toBe("");
  });

  it("validation errors use the escaped pointer", () => {
    const schema = z.object({ metadata: z.record(z.string(), z.string().max(2)) });
    const r = schema.safeParse({ metadata: { "a/b~": "long" } });
    expect(r.success).toBe(false);
    const err = validationError("body", r.success ? [] : r.error.issues);
    expect(err.param).toBe("/metadata/a~1b~0");
    expect(err.status).toBe(422);
  });
});
