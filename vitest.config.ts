import { existsSync, readFileSync } from "node:fs";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { readCatalogFiles } from "./scripts/lib/catalog-files";

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

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          TEST_CATALOG: JSON.stringify(catalogFiles),
          SPEC_ERROR_TABLE: JSON.stringify(specErrorRows),
          ADMIN_TOKEN: "test-admin-token-0123456789abcdef",
        },
      },
    }),
  ],
  test: {
    setupFiles: ["./test/setup.ts"],
    testTimeout: 30_000,
  },
});
