/**
 * The Python client (packages/python) against the shared `wrangler dev`: its pytest suite, unit
 * tests and integration tests alike, run with python3 and must pass; its generated operation table
 * agrees with the TypeScript client's on how each operation is called.
 */
import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, inject, it } from "vitest";
import { OPERATIONS } from "../../packages/client/src/generated/operations.ts";
import { signatureHeaders } from "../../src/webhooks/callback-signing.ts";

const server = inject("e2eServer");
const root = new URL("../../", import.meta.url).pathname;
const pkg = join(root, "packages/python");
const env = { ...process.env, PYTHONDONTWRITEBYTECODE: "1", PYTHONPATH: pkg };

function run(args: string[], extra: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("python3", args, { cwd: root, env: { ...env, ...extra }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => {
      output += d;
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

it("passes its pytest suite against the local service", async () => {
  // A message signed now by the service's own signing code, for the webhook tests to verify.
  const secrets = ["whsec_dGhlLXB5dGhvbi1jbGllbnQtdmVyaWZpZXMtdGhpcw=="];
  const body = JSON.stringify({ type: "task.succeeded", data: { task_id: "task_py", status: "succeeded" } });
  const headers = signatureHeaders(secrets, `msg_${crypto.randomUUID()}`, Math.floor(Date.now() / 1000), body);
  const { code, output } = await run(["-m", "pytest", "packages/python/tests", "-q", "-p", "no:cacheprovider", "-rs"], {
    MEDIA_API_BASE_URL: server.base,
    MEDIA_API_KEY: server.apiKey,
    MEDIA_TEST_WEBHOOK_VECTOR: JSON.stringify({ secrets, body, headers }),
  });
  if (code !== 0) console.error(output);
  expect(code, output).toBe(0);
  expect(output).not.toMatch(/\bskipped\b/);
}, 300_000);

it("calls every operation as the TypeScript client does", async () => {
  const script =
    "import json; from media_gateway import OPERATIONS; " + "print(json.dumps({k: o._asdict() for k, o in OPERATIONS.items()}))";
  const { stdout } = await promisify(execFile)("python3", ["-c", script], { cwd: root, env, maxBuffer: 1 << 24 });
  const python = JSON.parse(stdout) as Record<string, Record<string, unknown>>;
  expect(Object.keys(python).sort()).toEqual(Object.keys(OPERATIONS).sort());
  for (const [id, ts] of Object.entries(OPERATIONS)) {
    const py = python[id] as Record<string, unknown>;
    expect({ id, method: py.method, path: py.path, capability: py.capability, idempotencyKey: py.idempotency_key }).toEqual({
      id,
      method: ts.method,
      path: ts.path,
      capability: ts.capability,
      idempotencyKey: ts.idempotencyKey,
    });
    expect(py.path_params, id).toEqual(ts.pathParams);
    expect(py.query_params, id).toEqual(ts.queryParams);
    expect(py.auth, id).toBe(ts.auth === "apiKey" ? "api_key" : ts.auth);
  }
});
