import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";

export const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";
export const BASE = "https://api.test";

export interface CallOptions {
  method?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  key?: string | null;
}

/** Calls the Worker through its real entry point. */
export async function call(path: string, options: CallOptions = {}) {
  const headers = new Headers(options.headers);
  if (options.key) headers.set("Authorization", `Bearer ${options.key}`);
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  }
  return send(new Request(`${BASE}${path}`, { method: options.method ?? (body !== undefined ? "POST" : "GET"), headers, body }));
}

/** Sends a request as it is through the Worker's entry point; the answer's bytes, text and JSON (if any). */
export async function send(request: Request) {
  return readResponse(await exports.default.fetch(request));
}

/** A response's status, headers, bytes, text and JSON (undefined when the body is not JSON). */
export async function readResponse(res: Response) {
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, bytes, text, json };
}

export function admin(path: string, body?: unknown, method?: string) {
  return call(path, { body, method, key: ADMIN_TOKEN });
}

export interface TestTenant {
  tenant_id: string;
  api_key: string;
  key_id: string;
}

/** A fresh tenant with credits and one API key holding every permission but `keys:manage` unless told otherwise. */
export async function newTenant(
  options: { credits?: string; permissions?: string[]; mode?: "live" | "test" } = {},
): Promise<TestTenant> {
  const t = await admin("/admin/v1/tenants", { name: "test tenant", credits: options.credits ?? "1000" });
  expect(t.status).toBe(201);
  const k = await admin(`/admin/v1/tenants/${t.json.tenant_id}/api-keys`, {
    ...(options.permissions ? { permissions: options.permissions } : {}),
    ...(options.mode ? { mode: options.mode } : {}),
  });
  expect(k.status).toBe(201);
  return { tenant_id: t.json.tenant_id, api_key: k.json.api_key, key_id: k.json.key_id };
}

/** Asserts the spec's error envelope, and returns its `error`. */
export function expectError(res: { status: number; json: any; headers: Headers }, status: number, code: string, param?: string) {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  expect(res.json).toBeTypeOf("object");
  const e = res.json.error;
  expect(e.code).toBe(code);
  expect(typeof e.type).toBe("string");
  expect(typeof e.message).toBe("string");
  expect(typeof e.retryable).toBe("boolean");
  expect(e.request_id).toBe(res.headers.get("X-Request-Id"));
  if (param !== undefined) expect(e.param).toBe(param);
  return e;
}

export { env };
