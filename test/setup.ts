import { env } from "cloudflare:workers";
import { beforeAll } from "vitest";
import { buildCatalog } from "../src/catalog/build";
import { publishCatalog } from "../src/catalog/store";
import type { Env } from "../src/env";
import { liveProviders } from "../src/providers/routing";
import { closeAllRoutes } from "./route-health/close";

// A file may share its runtime with the files before it (vitest.config.ts): publish the catalog
// into the KV it reads, and start with every route's circuit closed, whatever an earlier file's
// faults opened (route health is per route, across tenants, by design).
beforeAll(async () => {
  await publishCatalog(env.CATALOG, buildCatalog(JSON.parse(env.TEST_CATALOG)));
  for (const provider of liveProviders(env as Env, "live")) await closeAllRoutes(provider);
});
