/**
 * A route whose body is optional (declared so, or declaring none) accepts a request without one,
 * however the client leaves it out: no body at all, `Content-Length: 0`, curl's `-d ''` (an empty
 * form) or an empty text body. Walks every such operation of the served OpenAPI document.
 */
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, BASE, call, newTenant, readResponse, type TestTenant } from "../helpers/api";
import { createImage, waitFor } from "../helpers/tasks";

const WRITES = ["post", "put", "patch", "delete"];

/** The ways a client sends nothing. */
const EMPTY: { label: string; init: RequestInit }[] = [
  { label: "no body", init: {} },
  { label: "Content-Length: 0", init: { headers: { "Content-Length": "0" } } },
  { label: "curl -d ''", init: { body: "", headers: { "Content-Type": "application/x-www-form-urlencoded" } } },
  { label: "an empty text body", init: { body: "" } },
  { label: "an empty JSON body", init: { body: "", headers: { "Content-Type": "application/json" } } },
];

let t: TestTenant;
let doc: any;
beforeAll(async () => {
  t = await newTenant();
  doc = (await call("/openapi.json")).json;
});

function send(method: string, path: string, key: string, init: RequestInit) {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${key}`);
  return exports.default
    .fetch(new Request(`${BASE}${path}`, { ...init, method: method.toUpperCase(), headers }))
    .then(readResponse);
}

describe("routes whose body is optional", () => {
  it("accept a request without one, in every shape of nothing", async () => {
    const routes = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      WRITES.filter((m) => item[m] && item[m].requestBody?.required !== true).map((m) => ({
        method: m,
        path,
        // A route that asks for an Idempotency-Key (a replay) gets one: the body is what is tested here.
        idempotent: (item[m].parameters ?? []).some(
          (p: any) => p.in === "header" && p.name.toLowerCase() === "idempotency-key" && p.required,
        ),
      })),
    );
    expect(routes.map((r) => `${r.method} ${r.path}`)).toContain("post /v1/tasks/{task_id}/cancel");
    for (const { method, path, idempotent } of routes) {
      // Unknown ids: validation runs before the lookup, so the answer is about the body or a 404.
      const concrete = path.replace(/\{[^}]+\}/g, "unknown_0123456789");
      const key = path.startsWith("/admin/") ? ADMIN_TOKEN : t.api_key;
      for (const { label, init } of EMPTY) {
        const headers = new Headers(init.headers);
        if (idempotent) headers.set("Idempotency-Key", `empty-${crypto.randomUUID()}`);
        const res = await send(method, concrete, key, { ...init, headers });
        const what = `${method} ${path} with ${label}: ${res.text.slice(0, 300)}`;
        expect(res.status, what).toBeLessThan(500);
        expect(res.json?.error?.code, what).not.toBe("invalid_request");
      }
    }
  });

  it("cancel as the README's curl sends it answers with the task", async () => {
    const task = await waitFor(t, (await createImage(t, { prompt: "a quiet harbour" })).json.task_id);
    for (const { label, init } of EMPTY) {
      const res = await send("post", `/v1/tasks/${task.task_id}/cancel`, t.api_key, init);
      expect(res.status, `${label}: ${res.text.slice(0, 300)}`).toBe(200);
      expect(res.json).toMatchObject({ object: "task", task_id: task.task_id, status: task.status });
    }
  });

  it("a route whose body is required names its missing fields, not the content type", async () => {
    for (const { label, init } of EMPTY) {
      const res = await send("post", "/v1/images/generations", t.api_key, {
        ...init,
        headers: { ...Object.fromEntries(new Headers(init.headers)), "Idempotency-Key": `k-${label}` },
      });
      expect(res.status, label).toBe(422);
      expect(res.json.error.param, `${label}: ${res.text}`).toBe("/prompt");
    }
  });
});
