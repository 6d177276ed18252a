/**
 * `npm run soak`: a bounded load-and-fault run against a local server, then the checker.
 *   SOAK_SECONDS=135        traffic duration (the drain follows, at most SOAK_DRAIN_SECONDS=120)
 *   SOAK_SEED=1             the clients' mix (timing is never reproducible)
 *   SOAK_DIR=/tmp/soak-…    where the history, wrangler's logs and the summary go (kept)
 *   SOAK_KEEP_STATE=1       keep the server's state directory (deleted otherwise)
 * 1. Fake upstreams (fal behind a recording proxy, the chat fake) and callback receivers on 127.0.0.1.
 * 2. Its own `wrangler dev` (state under /dev/shm that survives restarts), the catalog loaded.
 * 3. Four tenants through the operator API: API keys, credits, a callback signing key each; one
 *    tenant with little credit (402s), one with a low per-key rate limit (429s).
 * 4. Traffic from seven clients; twice, mid-run, SIGKILL of wrangler and its workerd, then a
 *    restart on the same state; in between, an outage of fal (every submission refused with 503)
 *    that route health must route around and record as an incident.
 * 5. Drain: no new work; every task driven to a terminal state, callbacks given time; ledgers and
 *    GET /v1/status read.
 * 6. check.ts over the recorded history: prints figures and failures; the exit code is its verdict.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, LOCAL_SECRETS } from "../lib/local-server.ts";
import { runSoakBatch, SOAK_BATCH_ITEMS } from "./batch.ts";
import { check, report } from "./check.ts";
import { drain, readLedgers } from "./drain.ts";
import { runSoakFileBatch, SOAK_FILE_BATCH_ITEMS } from "./file-batch.ts";
import { History, readHistory } from "./history.ts";
import { RECEIVERS, Receivers } from "./receivers.ts";
import { readRequestLogs } from "./request-log.ts";
import { SoakServer } from "./server.ts";
import { openReservationRows, settledReservationRows } from "./state.ts";
import { Client, type Tenant, World } from "./traffic.ts";
import { startUpstreams } from "./upstreams.ts";

const TRAFFIC_SECONDS = Number(process.env.SOAK_SECONDS ?? 135);
const DRAIN_SECONDS = Number(process.env.SOAK_DRAIN_SECONDS ?? 120);
const SEED = Number(process.env.SOAK_SEED ?? 1);
/** Crashes at these fractions of the traffic. */
const CRASH_AT = [0.35, 0.7];
/** fal refuses every submission between these fractions of the traffic. */
const OUTAGE_AT = [0.42, 0.62] as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stamp = () => new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "").replace("T", "-");

function log(message: string) {
  console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

interface TenantPlan {
  name: string;
  /** A webhook endpoint subscribed to its tasks' terminal events (the soak checks each arrived). */
  endpoint?: boolean;
  credits: string;
  clients: number;
  chat: boolean;
  poor: boolean;
  testKey: boolean;
  rateLimit: number | null;
}

const PLAN: TenantPlan[] = [
  { name: "alpha", endpoint: true, credits: "100000", clients: 2, chat: true, poor: false, testKey: false, rateLimit: null },
  { name: "beta", endpoint: true, credits: "100000", clients: 2, chat: false, poor: false, testKey: true, rateLimit: null },
  // A low per-key limit: its clients meet 429 rate_limited now and then.
  { name: "gamma", credits: "100000", clients: 2, chat: false, poor: false, testKey: false, rateLimit: 90 },
  // Little credit: its creates meet 402 insufficient_balance.
  { name: "poor", credits: "20", clients: 1, chat: false, poor: true, testKey: false, rateLimit: null },
];

async function setupTenants(server: SoakServer, receivers: Receivers): Promise<Tenant[]> {
  const tenants: Tenant[] = [];
  const must = async (method: "GET" | "POST", path: string, body?: unknown) => {
    const r = await server.admin(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json;
  };
  for (const p of PLAN) {
    const t = await must("POST", "/admin/v1/tenants", {
      name: `soak ${p.name}`,
      credits: p.credits,
      ...(p.rateLimit ? { rate_limit_per_minute: p.rateLimit } : {}),
    });
    const keys: string[] = [];
    for (let i = 0; i < p.clients; i++) keys.push((await must("POST", `/admin/v1/tenants/${t.tenant_id}/api-keys`, {})).api_key);
    const test = p.testKey ? (await must("POST", `/admin/v1/tenants/${t.tenant_id}/api-keys`, { mode: "test" })).api_key : null;
    const logKey = (await must("POST", `/admin/v1/tenants/${t.tenant_id}/api-keys`, { permissions: ["logs:read"] })).api_key;
    const signing = await must("POST", `/admin/v1/tenants/${t.tenant_id}/callback-signing-keys`);
    receivers.secrets.set(p.name, signing.secret);
    if (p.endpoint) {
      const manager = await must("POST", `/admin/v1/tenants/${t.tenant_id}/api-keys`, { permissions: ["webhooks:manage"] });
      const res = await fetch(`${server.base}/v1/webhook-endpoints`, {
        method: "POST",
        headers: { Authorization: `Bearer ${manager.api_key}`, "Content-Type": "application/json" },
        body: JSON.stringify({
          url: receivers.endpointUrl(p.name),
          events: ["task.succeeded", "task.failed", "task.canceled"],
        }),
      });
      const endpoint = (await res.json()) as { secret?: string };
      if (res.status !== 201 || !endpoint.secret) throw new Error(`webhook endpoint: ${res.status} ${JSON.stringify(endpoint)}`);
      receivers.endpointSecrets.set(p.name, endpoint.secret);
    }
    tenants.push({
      name: p.name,
      tenant_id: t.tenant_id,
      credits: p.credits,
      live_keys: keys,
      test_key: test,
      log_key: logKey,
      signing_key_id: signing.id,
      chat: p.chat,
      poor: p.poor,
    });
  }
  return tenants;
}

/**
 * Endpoint events refused once are tried again 5 s later: waits (at most 30 s) until every
 * terminal task of a tenant with an endpoint has had its event accepted.
 */
async function settleEvents(file: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const records = readHistory(file);
    const meta = records.find((r) => r.type === "meta");
    const withEndpoint = new Set(meta?.type === "meta" ? (meta.endpoint_tenants ?? []) : []);
    const accepted = new Set(
      records.filter((r) => r.type === "event" && r.answered < 300 && !r.aborted).map((r) => (r as { task_id: string }).task_id),
    );
    const waiting = records.filter(
      (r) =>
        r.type === "task" &&
        withEndpoint.has(r.tenant) &&
        r.mode !== "test" &&
        ["succeeded", "failed", "canceled"].includes(r.status) &&
        !accepted.has(r.task_id),
    );
    if (waiting.length === 0 || Date.now() > deadline) {
      log(
        `endpoint events: ${waiting.length === 0 ? "every terminal task's event accepted" : `${waiting.length} still waiting`}`,
      );
      return;
    }
    await sleep(1000);
  }
}

async function main(): Promise<number> {
  const runDir = process.env.SOAK_DIR ?? mkdtempSync(`/tmp/soak-${stamp()}-`);
  mkdirSync(runDir, { recursive: true });
  const stateDir = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : "/tmp", "soak-state-"));
  const history = new History(join(runDir, "history.jsonl"));
  log(`history ${history.file}; state ${stateDir}`);
  history.write({ type: "phase", at: Date.now(), phase: "setup" });

  const receivers = new Receivers(history);
  await receivers.start();
  const upstreams = await startUpstreams(history);
  const port = await freePort();
  const server = new SoakServer({
    runDir,
    stateDir,
    port,
    history,
    vars: {
      ...LOCAL_SECRETS,
      ADMIN_TOKEN: `soak-admin-${randomBytes(16).toString("hex")}`,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      ...upstreams.vars,
    },
  });
  let stopping = false;
  const cleanup = async () => {
    await server.stop().catch(() => {});
    await upstreams.close().catch(() => {});
    await receivers.close().catch(() => {});
    if (!process.env.SOAK_KEEP_STATE) rmSync(stateDir, { recursive: true, force: true });
  };
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.on(sig, () => {
      if (stopping) return;
      stopping = true;
      log(`${sig}: stopping`);
      void cleanup().then(() => process.exit(130));
    });
  }

  try {
    server.loadCatalog();
    rmSync(join(runDir, "catalog-entries.json"), { force: true });
    await server.start();
    log(
      `server up at ${server.base} (pid ${server.pid}); fal fake behind ${upstreams.vars.PROVIDER_FAL_BASE_URL}, chat fake at ${upstreams.chat.url}, receivers at ${receivers.url}`,
    );
    const tenants = await setupTenants(server, receivers);
    history.write({
      type: "meta",
      at: Date.now(),
      traffic_seconds: TRAFFIC_SECONDS,
      base: server.base,
      tenants: tenants.map((t) => ({ name: t.name, tenant_id: t.tenant_id, credits: t.credits, chat: t.chat, poor: t.poor })),
      receivers: RECEIVERS,
      endpoint_tenants: PLAN.filter((p) => p.endpoint).map((p) => p.name),
      batch_items: SOAK_BATCH_ITEMS,
      file_batch_items: SOAK_FILE_BATCH_ITEMS,
    });

    const world = new World(server.base, tenants, history, receivers);
    const start = Date.now();
    world.trafficEnd = start + TRAFFIC_SECONDS * 1000;
    world.hardStop = world.trafficEnd + 20_000;
    const clients: Client[] = [];
    let seed = SEED * 1000;
    for (const t of tenants) {
      for (const [i, key] of t.live_keys.entries()) clients.push(new Client(world, `c${i + 1}`, t, key, ++seed));
    }
    history.write({ type: "phase", at: Date.now(), phase: "traffic", note: `${clients.length} clients` });
    log(
      `traffic: ${clients.length} clients for ${TRAFFIC_SECONDS} s; crashes at ${CRASH_AT.map((f) => `${Math.round(f * TRAFFIC_SECONDS)} s`).join(" and ")}`,
    );

    const progress = setInterval(() => {
      const created = world.creates.filter((c) => c.task_id).length;
      log(
        `${Math.round((Date.now() - start) / 1000)} s: ${history.count} history lines, ${created} tasks created, ${receivers.deliveries} callback deliveries, ${receivers.events} endpoint events`,
      );
    }, 30_000);
    const crashes = (async () => {
      for (const f of CRASH_AT) {
        await sleep(Math.max(0, start + f * TRAFFIC_SECONDS * 1000 - Date.now()));
        // The crash lands while fal's answer to a submission is on its way (the hardest moment).
        const release = await upstreams.holdNextFalSubmission(5_000);
        const pids = await server.kill();
        // Once the dead process's connections are seen closed, the answer has nowhere to go.
        await sleep(300);
        release?.();
        log(
          `crash: SIGKILL to ${pids.length} processes (${pids.join(", ")})${release ? ", a fal submission's answer in flight" : ""}`,
        );
        await sleep(1000);
        const t0 = Date.now();
        await server.start();
        log(`restarted on the same state in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      }
    })();
    // The batch starts early, so that both crashes fall while its items run.
    const batchTenant = tenants.find((t) => t.name === "beta") as Tenant;
    const batch = runSoakBatch(world, batchTenant, history, start + 0.1 * TRAFFIC_SECONDS * 1000);
    const outage = (async () => {
      await sleep(Math.max(0, start + OUTAGE_AT[0] * TRAFFIC_SECONDS * 1000 - Date.now()));
      upstreams.falOutage(true);
      history.write({ type: "outage", at: Date.now(), provider: "fal", phase: "start" });
      log("outage: fal refuses every submission with 503");
      await sleep(Math.max(0, start + OUTAGE_AT[1] * TRAFFIC_SECONDS * 1000 - Date.now()));
      upstreams.falOutage(false);
      history.write({ type: "outage", at: Date.now(), provider: "fal", phase: "end" });
      log("outage over: fal takes submissions again");
    })();
    // The batch from an uploaded file starts once the last restart is done, while the traffic goes on.
    const fileBatch = crashes.then(() => {
      log(`file batch: ${SOAK_FILE_BATCH_ITEMS} items from an upload`);
      return runSoakFileBatch(server, history, world.trafficEnd + 240_000);
    });
    await Promise.all([...clients.map((c) => c.run()), crashes, outage]);
    log("traffic over: waiting for the batches to end");
    await batch;
    await fileBatch;
    clearInterval(progress);

    history.write({ type: "phase", at: Date.now(), phase: "drain" });
    log(`drain: traffic over (${world.creates.length} creates); waiting for every task to end (at most ${DRAIN_SECONDS} s)`);
    const drained = await drain(world, server, history, Date.now() + DRAIN_SECONDS * 1000);
    log(
      `drained in ${drained.seconds.toFixed(0)} s: ${drained.tasks} tasks, ${drained.nonTerminal} not terminal, ${drained.callbacksPending} callbacks not settled`,
    );
    await settleEvents(history.file);
    history.write({ type: "phase", at: Date.now(), phase: "ledgers" });
    await readLedgers(world, server, history);
    await readRequestLogs(world, server, history);
    const status = await fetch(`${server.base}/v1/status`);
    history.write({ type: "status", at: Date.now(), status: status.status, body: await status.json().catch(() => null) });
    await server.stop();
    const settled = await settledReservationRows(stateDir);
    for (const t of tenants) {
      const rows = settled?.get(t.tenant_id);
      if (rows) history.write({ type: "ledger_rows", at: Date.now(), tenant: t.name, tenant_id: t.tenant_id, rows });
    }
    const rows = await openReservationRows(stateDir);
    if (rows) {
      for (const t of tenants)
        history.write({
          type: "state",
          at: Date.now(),
          tenant: t.name,
          tenant_id: t.tenant_id,
          open_rows: rows.get(t.tenant_id) ?? [],
        });
    } else log("open reservation rows not readable here (node:sqlite missing): the checker bounds them by count");
    history.write({ type: "phase", at: Date.now(), phase: "done" });
  } catch (e) {
    log(`run aborted: ${e instanceof Error ? e.stack : String(e)}`);
    await cleanup();
    return 2;
  }
  await cleanup();

  console.log("");
  const result = check((await import("./history.ts")).readHistory(history.file));
  report(result);
  writeFileSync(join(runDir, "summary.txt"), `${result.summary.join("\n")}\n`);
  console.log(`\nhistory: ${history.file} (npx tsx scripts/soak/check.ts ${history.file} to check it again)`);
  return result.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(2);
  },
);
