/**
 * Bodies are bounded before any work: over the size limit is 413 with the envelope, decided on
 * the declared length or as soon as the stream passes the limit (the rest is read and discarded
 * before the answer, up to a ceiling, so that a client still sending can read it); nesting deeper than the limit is
 * 422 naming it, found without recursion, so no depth can overflow a stack.
 */
import { exports } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH, nestingDepth } from "../../src/http/json-body";
import { DRAIN_CEILING_BYTES, discard } from "../../src/http/unread-body";
import { MAX_UPLOAD_BYTES } from "../../src/media/uploads";
import { ADMIN_TOKEN, BASE, call, expectError, newTenant } from "../helpers/api";
import { newKey } from "../helpers/tasks";

describe("body limits", () => {
  it("answers 413 on a declared length over the limit, without reading the body", async () => {
    const t = await newTenant();
    const res = await call("/v1/images/generations", {
      key: t.api_key,
      rawBody: '{"prompt":"x"}',
      headers: { "Content-Type": "application/json", "Content-Length": String(MAX_BODY_BYTES + 1), "Idempotency-Key": newKey() },
    });
    const e = expectError(res, 413, "media_too_large");
    expect(e.details.limit_bytes).toBe(MAX_BODY_BYTES);
  });

  it("answers 413 to a body without a length past the limit, once the rest is read and discarded", async () => {
    const t = await newTenant();
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    const total = MAX_BODY_BYTES * 2;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= total) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const res = await exports.default.fetch(
      new Request(`${BASE}/v1/images/generations`, {
        method: "POST",
        body,
        headers: { Authorization: `Bearer ${t.api_key}`, "Content-Type": "application/json", "Idempotency-Key": newKey() },
      }),
    );
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe("media_too_large");
    // The whole body was taken: a client still sending it can read the answer (test/e2e/unread-bodies.e2e.test.ts).
    expect(sent).toBe(total);
  });

  it("reads nothing of a body declared past the discard ceiling, and still answers", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    const res = await exports.default.fetch(
      new Request(`${BASE}/v1/uploads`, {
        method: "POST",
        body,
        headers: { "Content-Type": "video/mp4", "Content-Length": String(DRAIN_CEILING_BYTES + 1) },
      }),
    );
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.code).toBe("unauthorized");
    expect(pulled).toBeLessThan(4);
  });

  it("stops discarding past the ceiling or the deadline", async () => {
    const endless = (pace = 0) =>
      new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (pace) await new Promise((r) => setTimeout(r, pace));
          controller.enqueue(new Uint8Array(1024));
        },
      });
    expect(await discard(endless(), 64 * 1024, 10_000)).toBe(false);
    expect(await discard(endless(5), 1024 * 1024 * 1024, 100)).toBe(false);
    const finite = new Blob([new Uint8Array(64 * 1024)]).stream();
    expect(await discard(finite, 64 * 1024, 10_000)).toBe(true);
  });

  it.each([100, 5_000, 50_000])("answers 422 naming the limit for JSON nested %i deep", async (depth) => {
    const t = await newTenant();
    const res = await call("/v1/images/generations", {
      key: t.api_key,
      rawBody: `{"prompt":"x","metadata":${"[".repeat(depth)}${"]".repeat(depth)}}`,
      headers: { "Content-Type": "application/json", "Idempotency-Key": newKey() },
    });
    const e = expectError(res, 422, "invalid_request", "");
    expect(e.message).toContain(String(MAX_JSON_DEPTH));
  });

  it("counts depth like a parser would, ignoring brackets in strings", () => {
    expect(nestingDepth('{"a":[1,{"b":"[[[[{{{{"}]}', 64)).toBe(3);
    expect(nestingDepth('"\\"[["', 64)).toBe(0);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (v) => {
        const depthOf = (x: unknown): number =>
          x !== null && typeof x === "object" ? 1 + Math.max(0, ...Object.values(x as object).map(depthOf)) : 0;
        return nestingDepth(JSON.stringify(v), 64) === depthOf(v);
      }),
      { numRuns: 500 },
    );
  });
});

describe("a body over the cap, to every route", () => {
  /** Every route that takes a body: the document's, and those outside it (webhooks, MCP, OAuth, console). */
  async function routes(): Promise<{ method: string; path: string }[]> {
    const doc = (await call("/openapi.json")).json;
    const documented = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      ["post", "put", "patch"].filter((m) => item[m]).map((method) => ({ method, path: path.replace(/\{[^}]+\}/g, "x") })),
    );
    const others = [
      "/webhooks/providers/fal/x",
      "/webhooks/payments/stripe",
      "/mcp",
      "/oauth/token",
      "/oauth/register",
      // The console reads its forms under its own cap and answers a script asking for JSON with the envelope.
      "/console/sign-in",
    ];
    return [...documented, ...others.map((path) => ({ method: "post", path }))];
  }

  it("is 413 media_too_large with the envelope, on its declared length", async () => {
    const t = await newTenant();
    const all = await routes();
    expect(all.length).toBeGreaterThan(30);
    for (const { method, path } of all) {
      const key = path.startsWith("/admin/") ? ADMIN_TOKEN : t.api_key;
      const upload = path === "/v1/uploads";
      const res = await call(path, {
        method: method.toUpperCase(),
        key,
        rawBody: "{}",
        headers: {
          "Content-Type": upload ? "video/mp4" : "application/json",
          Accept: "application/json",
          "Content-Length": String(upload ? MAX_UPLOAD_BYTES + 1 : MAX_BODY_BYTES + 1),
          "Idempotency-Key": newKey(),
        },
      });
      expectError(res, 413, "media_too_large");
    }
  });

  it.each(["/webhooks/providers/fal/x", "/mcp", "/oauth/token", "/v1/chat/completions", "/admin/v1/tenants"])(
    "is 413 media_too_large with the envelope at %s, sent without a length",
    async (path) => {
      let sent = 0;
      const total = MAX_BODY_BYTES + 4 * 1024 * 1024;
      const chunk = new Uint8Array(1024 * 1024).fill(0x20);
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= total) return controller.close();
          sent += chunk.length;
          controller.enqueue(chunk);
        },
      });
      const res = await exports.default.fetch(
        new Request(`${BASE}${path}`, {
          method: "POST",
          body,
          headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
        }),
      );
      const json = (await res.json()) as any;
      expect(res.status, JSON.stringify(json)).toBe(413);
      expect(json.error.code).toBe("media_too_large");
      expect(sent).toBe(total);
    },
  );
});
