/**
 * Checks catalog-data/ and writes the KV entries that publish it.
 *   tsx scripts/build-catalog.ts [--out file.json]
 * Exits non-zero, naming the file and field, when a card is invalid; prints a warning for each
 * card not checked against its provider's pages for a long time.
 */
import { writeFileSync } from "node:fs";
import { buildCatalog, CatalogLoadError, catalogWarnings } from "../src/catalog/build.ts";
import { catalogEntries } from "../src/catalog/store.ts";
import { readCatalogFiles } from "./lib/catalog-files.ts";

export function buildFromDisk(root = new URL("../catalog-data", import.meta.url).pathname) {
  return buildCatalog(readCatalogFiles(root));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const outIndex = process.argv.indexOf("--out");
  try {
    const bundle = buildFromDisk();
    const models = Object.keys(bundle.models).length;
    for (const warning of catalogWarnings(bundle)) console.warn(`warning: ${warning}`);
    console.log(`catalog ${bundle.version}: ${models} models, ${bundle.voices.length} voices`);
    if (outIndex > 0) writeFileSync(process.argv[outIndex + 1] as string, JSON.stringify(catalogEntries(bundle)));
  } catch (e) {
    if (e instanceof CatalogLoadError) {
      console.error(`catalog-data/${e.message}`);
      process.exit(1);
    }
    throw e;
  }
}
