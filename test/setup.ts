import { env } from "cloudflare:workers";
import { beforeAll } from "vitest";
import { buildCatalog } from "../src/catalog/build";
import { publishCatalog } from "../src/catalog/store";

// Storage is isolated per test file: publish the catalog into this file's KV before its tests.
beforeAll(async () => {
  await publishCatalog(env.CATALOG, buildCatalog(JSON.parse(env.TEST_CATALOG)));
});
