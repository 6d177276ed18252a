import { env } from "cloudflare:workers";
import { beforeAll } from "vitest";
import { buildCatalog } from "../src/catalog/build";
import { publishCatalog } from "../src/catalog/store";
import type { Env } from "../src/env";
import { liveProviders } from "../src/providers/routing";
import { closeAllRoutes } from "./route-health/close";

// Whether an earlier file ran in this runtime: the projects with `isolate: false` (vitest.config.ts)
// reuse one runtime file after file; a runtime of its own starts with every circuit closed.
const runtime = globalThis as { testFilesBefore?: number };
const shared = (runtime.testFilesBefore ?? 0) > 0;
runtime.testFilesBefore = (runtime.testFilesBefore ?? 0) + 1;

// Publish the catalog into the KV this file reads; in a shared runtime, close every route's circuit
// that an earlier file's faults opened (route health is per route, across tenants, by design).
beforeAll(async () => {
  await publishCatalog(env.CATALOG, buildCatalog(JSON.parse(env.TEST_CATALOG)));
  if (shared) for (const provider of liveProviders(env as Env, "live")) await closeAllRoutes(provider);
});
