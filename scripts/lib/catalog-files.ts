import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { CatalogFiles } from "../../src/catalog/build.ts";

/** Every JSON file under catalog-data/, keyed by its path relative to that folder. */
export function readCatalogFiles(root: string): CatalogFiles {
  const files: CatalogFiles = {};
  for (const dir of readdirSync(root)) {
    const full = join(root, dir);
    if (!statSync(full).isDirectory()) continue;
    for (const name of readdirSync(full)) {
      if (name.endsWith(".json")) files[`${dir}/${name}`] = readFileSync(join(full, name), "utf8");
    }
  }
  return files;
}
