import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { readCatalogFiles } from "./scripts/lib/catalog-files.ts";
import { sandboxAuxiliaryWorker } from "./scripts/lib/sandbox-worker.ts";
import { findChromium, INSTALL_HINT } from "./test/browser/chromium.ts";
import { fakeKey } from "./test/providers/fakes/kit.ts";
import { fakeProviders } from "./test/providers/fakes/setup.ts";

// The tests run against the real catalog-data/, handed to the Worker as raw files so that the
// Worker-side builder (and its refusals) is what loads it.
const catalogFiles = readCatalogFiles(process.env.CATALOG_DIR ?? new URL("./catalog-data", import.meta.url).pathname);

// The spec's error table, when the shared folder is beside the checkout, so a test can hold the
// code table to it row by row.
const specPath = new URL("../shared/spec/interface-spec.md", import.meta.url).pathname;
const specErrorRows = existsSync(specPath)
  ? [...readFileSync(specPath, "utf8").matchAll(/^\| ([a-z_]+) \| (\d{3}) \| (yes|no) \|/gm)].map((m) => ({
      code: m[1],
      status: Number(m[2]),
      retryable: m[3] === "yes",
    }))
  : [];

// The spec's limits table (the "## Limits" section), so that a test can send each limit's values.
const specLimitRows = existsSync(specPath)
  ? [
      ...(
        readFileSync(specPath, "utf8")
          .split(/^## Limits$/m)[1]
          ?.split(/^## /m)[0] ?? ""
      ).matchAll(/^\| ([^|]+?) \| ([^|]+?) \| ([^|]+?) \|$/gm),
    ]
      .map((m) => ({ limit: m[1] as string, value: m[2] as string, applies_to: m[3] as string }))
      .filter((r) => r.limit !== "Limit" && !/^-+$/.test(r.limit))
  : [];

// The storage documentation, so that a test can hold each object's live schema to its page.
const storageDocsDir = new URL("./docs/storage/", import.meta.url).pathname;
const storageDocs = Object.fromEntries(
  readdirSync(storageDocsDir)
    .filter((f) => f.endsWith(".md"))
    .map((f) => [f, readFileSync(`${storageDocsDir}${f}`, "utf8")]),
);

/** PROVIDER_<NAME>_* for every fake upstream: its key, its URL as the base URL, and its own extras. */
function providerBindings(inject: (key: string) => unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fakeProviders()) {
    const url = inject(`fake:${name}`);
    if (typeof url !== "string") continue;
    const prefix = `PROVIDER_${name.toUpperCase().replaceAll("-", "_")}_`;
    out[`${prefix}API_KEY`] = fakeKey(name);
    out[`${prefix}BASE_URL`] = url;
    out[`${prefix}TIMEOUT_MS`] = "5000";
    Object.assign(out, JSON.parse(String(inject(`fake:${name}:bindings`) ?? "{}")));
  }
  return out;
}

/**
 * The Worker under test: the local configuration, or one region's production environment.
 * `providers`: real adapters configured against the fake upstreams (the conformance suite).
 * `pace`: UPSTREAM_PACE_SCALE there (src/providers/pace.ts).
 */
function worker(environment?: string, providers = false, pace = "0.2") {
  // The sandbox Worker the API binds as SANDBOX, as it runs in production: another Worker.
  const sandbox = sandboxAuxiliaryWorker(environment);
  // The docs Worker the API binds as DOCS: the viewer's static files, as src/docs-worker serves them.
  const docs = {
    name: environment ? `media-gateway-docs-${environment}` : "media-gateway-docs",
    modules: true,
    script: "export default { fetch() { return new Response(null, { status: 404 }); } };",
    assets: { directory: "./public" },
    compatibilityDate: "2026-11-01",
  };
  return cloudflareTest(({ inject }) => ({
    // workerd's own diagnostics (stack addresses, expected disconnects of the crash drills) stay out of the log.
    verbose: false,
    wrangler: { configPath: "./wrangler.toml", ...(environment ? { environment } : {}) },
    miniflare: {
      workers: [sandbox, docs],
      bindings: {
        TEST_CATALOG: JSON.stringify(catalogFiles),
        SPEC_ERROR_TABLE: JSON.stringify(specErrorRows),
        SPEC_LIMITS_TABLE: JSON.stringify(specLimitRows),
        STORAGE_DOCS: JSON.stringify(storageDocs),
        ADMIN_TOKEN: "test-admin-token-0123456789abcdef",
        // A region keeps its own as a secret; the tests of every project use this one.
        STORAGE_ENCRYPTION_KEY: "dGVzdC1zdG9yYWdlLWVuY3J5cHRpb24ta2V5LTMyYnk=",
        RECEIVER_URL: inject("receiverUrl"),
        // The fake HTTP email API (test/people/fake-mail-api.ts); the local configuration mails to its outbox.
        FAKE_MAIL_API_URL: inject("fakeMailApiUrl"),
        // The fake S3-compatible store (test/destinations/fake-s3.ts) that destinations write to.
        FAKE_S3_URL: inject("fakeS3Url"),
        // The sandbox finishes at once in tests; progress and queues are exercised by faults.
        SANDBOX_LATENCY_SCALE: "0",
        SANDBOX_MUSIC_SECONDS: "4",
        // Tests make thousands of requests a minute; the rate-limit test sets a tenant's own limit.
        RATE_LIMIT_PER_MINUTE: "0",
        // Locally, chat cards routed to `deepseek` (an OpenAI-compatible upstream) go to the fake of
        // test/chat/fake-upstream.ts; a region's project configures no provider at all.
        ...(environment
          ? {}
          : {
              PROVIDER_DEEPSEEK_BASE_URL: `${inject("fakeOpenAiUrl")}/v1`,
              PROVIDER_DEEPSEEK_API_KEY: "fake-upstream-key-0123456789",
              PROVIDER_DEEPSEEK_TIMEOUT_MS: "2000",
            }),
        // Links are built from the configured public address, never from the request's host.
        PUBLIC_BASE_URL: providers ? "https://gateway.test" : "https://api.test",
        ...(providers ? providerBindings(inject as (key: string) => unknown) : {}),
        // The platform fee on tasks served on a tenant's own provider key (test/byok).
        ...(providers ? { BYOK_FEE_PERCENT: "5" } : {}),
        // The fakes answer at once: the service's own poll intervals and retry backoffs at a fifth,
        // so that a case waits for what it tests, not a real job's pace. Retry-After stays real.
        ...(providers ? { UPSTREAM_PACE_SCALE: pace } : {}),
      },
    },
  }));
}

// The browser tests run when a Chromium is found. Without one they are not run, and the run says so
// at its start; REQUIRE_BROWSER=1 (set by .ci/run) keeps them in, so that a missing Chromium fails.
const withBrowser = Boolean(findChromium()) || process.env.REQUIRE_BROWSER === "1";
if (!withBrowser)
  console.warn(`\nThe browser tests (test/browser) are NOT run: no Chromium was found. To run them: ${INSTALL_HINT}\n`);

/**
 * Files that change what the whole isolate sees while they run (a spy on the global `fetch` or on
 * an adapter, a fake clock, the crash-drill hook): in a runtime of their own each, so that work
 * another file left running in a shared runtime never meets their stand-ins. Also files whose
 * figures depend on route health having measured nothing yet (an ETA from the card's typical time).
 */
const ISOLATE_WIDE = [
  "test/billing-truth/deadline.test.ts",
  "test/billing-truth/engine.property.test.ts",
  "test/billing/payments.test.ts",
  "test/chat/route-choice.test.ts",
  "test/console/credits.test.ts",
  "test/oauth/client-metadata.test.ts",
  "test/retention/outputs.test.ts",
  "test/retention/uploads.test.ts",
  "test/services/spend-alerts.test.ts",
  "test/stalls/console-eta.test.ts",
  "test/tasks/crash-safety.test.ts",
];
for (const file of ISOLATE_WIDE)
  if (!existsSync(new URL(`./${file}`, import.meta.url).pathname))
    throw new Error(`vitest.config.ts: ${file} is listed but does not exist`);

/** The folders the `local` project leaves to projects of their own. */
const NOT_LOCAL = [
  "test/regional/**",
  "test/providers/**",
  "test/byok/**",
  "test/browser/**",
  "test/e2e/**",
  "test/scripts/**",
  "test/route-health/**",
  "test/docs/**",
];
const notLocalDir = new RegExp(`^(${NOT_LOCAL.map((g) => g.replace("/**", "/")).join("|")})`);

/**
 * Files that never reach the Worker: no request through it, no Durable Object, no fetch; they call
 * the service's modules directly. They run in a runtime of their own. In the shared runtime, work
 * another file left (an alarm, a delivery) wakes an object, which loads the app's modules through
 * the test runner; a file that never loads the app ends before that load does, and the runner
 * reports the load it cut off as an unhandled error of that file.
 */
const REACHES_WORKER = /cloudflare:test|helpers\/|\bSELF\b|getByName|idFromName|idFromString|\bfetch\(/;
const UNIT = (function unitFiles(dir: string): string[] {
  return readdirSync(new URL(`./${dir}`, import.meta.url).pathname, { withFileTypes: true }).flatMap((d) => {
    const path = `${dir}/${d.name}`;
    if (d.isDirectory()) return notLocalDir.test(`${path}/`) ? [] : unitFiles(path);
    if (!d.name.endsWith(".test.ts") || ISOLATE_WIDE.includes(path)) return [];
    return REACHES_WORKER.test(readFileSync(new URL(`./${path}`, import.meta.url).pathname, "utf8")) ? [] : [path];
  });
})("test");

/**
 * Provider files that run a task's alarm themselves (fastForward, test/helpers/tasks.ts) while its
 * own alarm stays scheduled. At a fifth of the pace the task's next poll is often due at that very
 * moment, and the two alarm runs at once (which the platform never makes) each log the same step.
 */
const PROVIDERS_REAL_PACE = [
  "test/providers/stalls/stalled-jobs.test.ts",
  "test/providers/lost-submission.test.ts",
  "test/providers/billing-truth/deadline-cancel.test.ts",
];

const shared = {
  globalSetup: [
    "./test/global-setup.ts",
    "./test/chat/fake-upstream.ts",
    "./test/people/fake-mail-api.ts",
    "./test/destinations/fake-s3.ts",
  ],
  setupFiles: ["./test/setup.ts"],
  testTimeout: 30_000,
  // A file's first request to the Worker (often a beforeAll's newTenant) loads the app's modules
  // in that file's runner: on two busy cores that alone passed the default 10 s, failing the file.
  hookTimeout: 30_000,
};

export default defineConfig({
  // Vite's own notices (a dependency's source map that names files it does not ship) are not results.
  logLevel: "error",
  test: {
    // All projects share one pool. Most of a test's time is waiting (alarms, fake upstreams, the
    // sandbox, a wrangler dev starting), so three files at once keep two cores busy where the
    // default (one file at a time on two cores) leaves them idle.
    maxWorkers: 3,
    // What a test prints (mail the outbox shows, the service's error logs of faults a test causes)
    // is shown only for the tests that fail, so a passing run's log is the results alone.
    silent: "passed-only",
    projects: [
      {
        logLevel: "error",
        plugins: [worker()],
        test: {
          ...shared,
          // One runtime per runner, reused file after file: starting a runtime and loading the app for
          // every file cost more than the tests themselves. Files keep to their own tenants; the one
          // thing shared across tenants, route health, is reset as each file starts (test/setup.ts).
          isolate: false,
          name: "local",
          include: ["test/**/*.test.ts"],
          exclude: [...NOT_LOCAL, ...ISOLATE_WIDE, ...UNIT],
        },
      },
      // The files that call the service's modules directly (UNIT above): one runtime, reused.
      { logLevel: "error", plugins: [worker()], test: { ...shared, isolate: false, name: "unit", include: UNIT } },
      { logLevel: "error", plugins: [worker()], test: { ...shared, name: "local-isolated", include: ISOLATE_WIDE } },
      // Route health opens circuits on purpose: in a runtime of their own, so that the routes they
      // open (and the isolate's kept snapshots of them) never refuse another file's tasks; and a
      // runtime per file (isolated), so that they never refuse each other's.
      {
        logLevel: "error",
        plugins: [worker()],
        test: { ...shared, name: "route-health", include: ["test/route-health/**/*.test.ts"] },
      },
      // Real adapters against fake upstreams that speak each provider's documented wire format.
      {
        logLevel: "error",
        plugins: [worker(undefined, true)],
        test: {
          ...shared,
          // A runtime per file: the conformance cases open real routes' circuits on purpose, and a
          // route one file left open would send another file's tasks to the model's next route.
          name: "providers",
          // Tenants' own provider keys are proved against the same fakes.
          include: ["test/providers/**/*.test.ts", "test/byok/**/*.test.ts"],
          exclude: ["test/providers/route-health/**", ...PROVIDERS_REAL_PACE],
          globalSetup: [...shared.globalSetup, "./test/providers/fakes/setup.ts"],
        },
      },
      // Circuits opened on the real adapters' routes, apart from the other adapters' tests (as above).
      {
        logLevel: "error",
        plugins: [worker(undefined, true)],
        test: {
          ...shared,
          name: "providers-health",
          include: ["test/providers/route-health/**/*.test.ts"],
          globalSetup: [...shared.globalSetup, "./test/providers/fakes/setup.ts"],
        },
      },
      // The provider files that run a task's alarm themselves, at the real pace (PROVIDERS_REAL_PACE).
      {
        logLevel: "error",
        plugins: [worker(undefined, true, "1")],
        test: {
          ...shared,
          name: "providers-real-pace",
          include: PROVIDERS_REAL_PACE,
          globalSetup: [...shared.globalSetup, "./test/providers/fakes/setup.ts"],
        },
      },
      // The production configuration of a region, as deployed: proves what local development relaxes.
      {
        logLevel: "error",
        plugins: [worker("us")],
        test: { ...shared, isolate: false, name: "region-us", include: ["test/regional/**/*.test.ts"] },
      },
      // The client and its command line, in Node: unit tests on a fake fetch, and end to end
      // against a local `wrangler dev` (packages/client/test/cli.e2e.test.ts).
      {
        test: {
          name: "client",
          environment: "node",
          include: ["packages/client/test/**/*.test.ts"],
          testTimeout: 30_000,
          hookTimeout: 180_000,
        },
      },
      // The documentation's links and index, read from the files in Node.
      { test: { name: "docs", environment: "node", include: ["test/docs/**/*.test.ts"] } },
      // The local tooling's own Node code (scripts/lib): what `npm start` prints.
      { test: { name: "scripts", environment: "node", include: ["test/scripts/**/*.test.ts"] } },
      // The HTTP surface as a client on the network meets it: a Node client against one local
      // `wrangler dev` (large and slow bodies; a minute or so, hence apart from `local`), started
      // once for the files that can share it (test/e2e/shared-server.ts).
      {
        test: {
          name: "e2e",
          environment: "node",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["./test/e2e/shared-server.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      // The console in a real browser (Debian's Chromium, through playwright-core) against one
      // local `wrangler dev`: test/browser/harness.ts.
      ...(withBrowser
        ? [
            {
              test: {
                name: "browser",
                environment: "node",
                include: ["test/browser/**/*.test.ts"],
                testTimeout: 60_000,
                hookTimeout: 180_000,
              },
            },
          ]
        : []),
    ],
  },
});
