/**
 * `npm start`: a complete local service on Miniflare.
 * 1. ADMIN_TOKEN and STORAGE_ENCRYPTION_KEY in .dev.vars (generated when missing; the file is git-ignored).
 * 2. catalog-data/ checked and loaded into the local KV.
 * 3. wrangler dev on 127.0.0.1:$PORT (default 8787) running the API Worker, and the sandbox Worker it
 *    binds (src/sandbox-worker) in a wrangler dev of its own, so that an encode runs on another
 *    thread than the API (one workerd runs its Workers on one thread), and the docs Worker
 *    (src/docs-worker: the API reference viewer's files) likewise; state persists in .wrangler/state.
 * 4. On first run, a dev tenant with credits, a live API key and a test-mode one (kept in
 *    .wrangler/dev-tenant.json), owned by DEV_EMAIL (default dev@example.com), who signs in to the
 *    console at /console with the code the local outbox prints in this log.
 * Offline, what needs the network is skipped with one line saying so (wrangler's `request.cf`
 * data: its placeholder is used), and a line of progress shows while the Workers start.
 * Every PROVIDER_* and PAYMENTS_* variable of this process's environment reaches the Worker (as do those in
 * .dev.vars), so `PROVIDER_FAL_API_KEY=… PROVIDER_FAL_BASE_URL=http://127.0.0.1:9999 npm start`
 * runs the local service against that upstream.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { catalogEntries } from "../src/catalog/store.ts";
import { PERMISSIONS } from "../src/keys/api-keys.ts";
import { buildFromDisk } from "./build-catalog.ts";
import { CF_URL, cfCopyKept, keyNotice, offlineLine, ticker, unreachable } from "./lib/dev-output.ts";
import { startDocsWorker, startSandboxWorker } from "./lib/local-server.ts";

const root = new URL("..", import.meta.url).pathname;
const port = Number(process.env.PORT ?? 8787);
const base = `http://127.0.0.1:${port}`;
const devVars = join(root, ".dev.vars");
const stateDir = join(root, ".wrangler");
const tenantFile = join(stateDir, "dev-tenant.json");
const wrangler = join(root, "node_modules/.bin/wrangler");

/** NAME's value in .dev.vars, written there from `make()` when missing. */
function devVar(name: string, make: () => string): string {
  const existing = existsSync(devVars) ? readFileSync(devVars, "utf8") : "";
  const m = new RegExp(`^${name}\\s*=\\s*"?([^"\\n]+)"?`, "m").exec(existing);
  if (m?.[1]) return m[1];
  const value = make();
  writeFileSync(devVars, `${existing}${existing && !existing.endsWith("\n") ? "\n" : ""}${name}="${value}"\n`, {
    mode: 0o600,
  });
  return value;
}

/** The key that seals secrets in this machine's local state; kept with that state's earlier key where one was used. */
function storageKey(): string {
  return devVar("STORAGE_ENCRYPTION_KEY", () =>
    existsSync(join(stateDir, "state")) ? EARLIER_LOCAL_STORAGE_KEY : randomBytes(32).toString("base64"),
  );
}

/** The fixed key local state was sealed with before each machine had its own; existing local data stays readable. */
const EARLIER_LOCAL_STORAGE_KEY = "bG9jYWwtZGV2ZWxvcG1lbnQtb25seS1rZXktMzJieXQ=";

function loadCatalog() {
  const bundle = buildFromDisk();
  mkdirSync(stateDir, { recursive: true });
  const file = join(stateDir, "catalog-entries.json");
  writeFileSync(file, JSON.stringify(catalogEntries(bundle)));
  const r = spawnSync(wrangler, ["kv", "bulk", "put", file, "--binding", "CATALOG", "--local"], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) {
    console.error(r.stdout, r.stderr);
    throw new Error("could not load the catalog into the local KV");
  }
  console.log(`catalog ${bundle.version} loaded: ${Object.keys(bundle.models).length} models, ${bundle.voices.length} voices`);
}

async function waitForServer(): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      const r = await fetch(`${base}/healthz`);
      if (r.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the server did not answer on ${base}`);
}

async function adminCall(token: string, path: string, body?: unknown) {
  const r = await fetch(`${base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as Record<string, any> };
}

/** The address that owns the dev tenant and signs in to the console (DEV_EMAIL to choose another). */
const devEmail = (process.env.DEV_EMAIL ?? "dev@example.com").trim().toLowerCase();

/** Makes sure `email` belongs to the tenant (a dev tenant saved before the console had members gets its owner). */
async function ensureOwner(token: string, tenantId: string, email: string): Promise<void> {
  const m = await adminCall(token, `/admin/v1/tenants/${tenantId}/members`);
  if (m.status !== 200) throw new Error(`could not read the dev tenant's members: ${JSON.stringify(m.json)}`);
  if ((m.json.data as { email: string }[]).some((x) => x.email === email)) return;
  const added = await adminCall(token, `/admin/v1/tenants/${tenantId}/members`, { email, role: "owner" });
  if (added.status !== 201) throw new Error(`could not add ${email} to the dev tenant: ${JSON.stringify(added.json)}`);
}

interface DevTenant {
  tenant_id: string;
  /** Live, with every permission: its calls are charged to the tenant's credits. */
  api_key: string;
  /** Test mode: the sandbox only, never charged (added to a tenant saved before it was made). */
  test_api_key?: string;
}

/** A dev key: every permission a tenant's key can hold, so that every feature can be tried with it. */
async function newKey(token: string, tenantId: string, mode: "live" | "test"): Promise<string> {
  const k = await adminCall(token, `/admin/v1/tenants/${tenantId}/api-keys`, {
    mode,
    name: mode === "test" ? "dev test key" : "local dev key",
    permissions: PERMISSIONS,
  });
  if (k.status !== 201) throw new Error(`could not create the dev ${mode} API key: ${JSON.stringify(k.json)}`);
  return k.json.api_key as string;
}

/** Whether a saved key still holds every permission (one saved before a permission existed does not). */
async function holdsEverything(apiKey: string): Promise<boolean> {
  const r = await fetch(`${base}/v1/key`, { headers: { Authorization: `Bearer ${apiKey}` } });
  if (r.status !== 200) return false;
  const held = new Set(((await r.json()) as { permissions?: string[] }).permissions ?? []);
  return PERMISSIONS.every((p) => held.has(p));
}

async function devTenant(token: string): Promise<DevTenant> {
  if (existsSync(tenantFile)) {
    const saved = JSON.parse(readFileSync(tenantFile, "utf8")) as DevTenant;
    const t = await adminCall(token, `/admin/v1/tenants/${saved.tenant_id}`);
    if (t.status === 200) {
      await ensureOwner(token, saved.tenant_id, devEmail);
      let changed = false;
      // A key from before a permission was added: a new one that holds them all (the old one still works).
      if (!(await holdsEverything(saved.api_key))) {
        saved.api_key = await newKey(token, saved.tenant_id, "live");
        changed = true;
      }
      if (!saved.test_api_key || !(await holdsEverything(saved.test_api_key))) {
        saved.test_api_key = await newKey(token, saved.tenant_id, "test");
        changed = true;
      }
      if (changed) writeFileSync(tenantFile, JSON.stringify(saved, null, 2), { mode: 0o600 });
      return saved;
    }
  }
  const t = await adminCall(token, "/admin/v1/tenants", { name: "Local developer", credits: "10000", owner_email: devEmail });
  if (t.status !== 201) throw new Error(`could not create the dev tenant: ${JSON.stringify(t.json)}`);
  const tenantId = t.json.tenant_id as string;
  const saved: DevTenant = {
    tenant_id: tenantId,
    api_key: await newKey(token, tenantId, "live"),
    test_api_key: await newKey(token, tenantId, "test"),
  };
  writeFileSync(tenantFile, JSON.stringify(saved, null, 2), { mode: 0o600 });
  return saved;
}

/**
 * .dev.vars plus the PROVIDER_* and PAYMENTS_* variables of this environment, in one env file for wrangler (a
 * file, not --var flags, so keys do not show in the process list). The environment wins.
 */
function workerVars(): { file: string; providers: string[] } {
  const lines = existsSync(devVars) ? readFileSync(devVars, "utf8").split("\n") : [];
  const providers = Object.keys(process.env)
    .filter((k) => /^(PROVIDER|PAYMENTS)_[A-Z0-9_]+$/.test(k))
    .sort();
  const kept = lines.filter((l) => !providers.some((k) => new RegExp(`^\\s*${k}\\s*=`).test(l)));
  const added = providers.map((k) => `${k}=${JSON.stringify(process.env[k] ?? "")}`);
  // Links and input URLs use the configured public address: locally, this server's.
  if (!lines.some((l) => /^\s*PUBLIC_BASE_URL\s*=/.test(l)))
    added.push(`PUBLIC_BASE_URL=${JSON.stringify(process.env.PUBLIC_BASE_URL ?? base)}`);
  mkdirSync(stateDir, { recursive: true });
  const file = join(stateDir, "worker.env");
  writeFileSync(file, `${[...kept, ...added].filter((l) => l.trim()).join("\n")}\n`, { mode: 0o600 });
  const configured = [...kept, ...added]
    .map((l) => /^\s*PROVIDER_([A-Z0-9_]+)_API_KEY\s*=\s*"?[^"\s]/.exec(l)?.[1])
    .filter((n): n is string => !!n)
    .map((n) => n.toLowerCase().replaceAll("_", "-"));
  return { file, providers: configured };
}

const token = devVar("ADMIN_TOKEN", () => `adm_${randomBytes(32).toString("hex")}`);
const firstStart = !existsSync(join(stateDir, "state"));
storageKey();
loadCatalog();
const vars = workerVars();
// The two Workers find each other through this registry of local Workers (this checkout's own).
const env: NodeJS.ProcessEnv = { ...process.env, WRANGLER_REGISTRY_PATH: join(stateDir, "registry") };
// Each wrangler fetches the `request.cf` data at its start unless a recent copy is kept and, offline,
// prints the failure's stack trace: when the address does not answer, the fetch is skipped (its
// placeholder data is used) and one line says so.
const offline =
  env.CLOUDFLARE_CF_FETCH_ENABLED || env.CLOUDFLARE_CF_FETCH_PATH || cfCopyKept(root, env)
    ? undefined
    : await unreachable(CF_URL);
if (offline) {
  env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
  console.log(offlineLine(new URL(CF_URL).host, offline, "request.cf holds wrangler's placeholder location data"));
}
const starting = ticker(firstStart ? "starting the Workers… (the first start builds them: about 30 s)" : "starting the Workers…");
const startedAt = Date.now();
const sandbox = await startSandboxWorker({ env, persistTo: join(stateDir, "sandbox-state"), stdio: "inherit" });
// The API reference viewer's files (GET /docs), in a Worker of their own as in the regions.
const docs = await startDocsWorker({ env, persistTo: join(stateDir, "docs-state"), stdio: "inherit" });
const child = spawn(
  wrangler,
  // The API Worker: it answers the port and binds the sandbox Worker started above.
  ["dev", "--ip", "127.0.0.1", "--port", String(port), "--env-file", vars.file, "--log-level", process.env.LOG_LEVEL ?? "info"],
  {
    cwd: root,
    stdio: ["inherit", "inherit", "inherit"],
    env,
  },
);
for (const sig of ["SIGINT", "SIGTERM"] as const)
  process.on(sig, () => {
    child.kill(sig);
    sandbox.kill(sig);
    docs.kill(sig);
  });
child.on("exit", (code) => {
  sandbox.kill("SIGTERM");
  docs.kill("SIGTERM");
  process.exit(code ?? 0);
});

waitForServer()
  .then(() => {
    starting.done(`ready in ${Math.round((Date.now() - startedAt) / 1000)} s`);
    return devTenant(token);
  })
  .then((tenant) => {
    console.log(
      [
        "",
        "  Media generation API running",
        `  Base URL:     ${base}/v1`,
        `  Console:      ${base}/console  (sign in as ${devEmail}: the code is printed in this log, "[outbox] mail to …")`,
        ...keyNotice({
          liveKey: tenant.api_key,
          ...(tenant.test_api_key ? { testKey: tenant.test_api_key } : {}),
          consoleUrl: `${base}/console`,
        }),
        `  Tenant:       ${tenant.tenant_id}`,
        `  Admin token:  ADMIN_TOKEN in ${devVars}`,
        `  API docs:     ${base}/docs  (OpenAPI: ${base}/openapi.json)`,
        `  Providers:    ${vars.providers.length ? vars.providers.join(", ") : "none configured"}; the sandbox serves every other card (simulated_output)`,
        "",
        `  curl -H "Authorization: Bearer ${tenant.api_key}" ${base}/v1/models`,
        `  MEDIA_API_BASE_URL=${base} MEDIA_API_KEY=${tenant.api_key} npx media-api balance`,
        "",
      ].join("\n"),
    );
  })
  .catch((e) => {
    starting.done("failed");
    console.error(e);
    child.kill("SIGTERM");
    sandbox.kill("SIGTERM");
    docs.kill("SIGTERM");
    process.exit(1);
  });
