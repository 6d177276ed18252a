/** The catalog builder's refusal of `files` (built as of `builtAt`); fails the test when it builds. */
import { buildCatalog, type CatalogFiles, CatalogLoadError } from "../../src/catalog/build";

export function refusal(files: CatalogFiles, builtAt?: string): CatalogLoadError {
  try {
    buildCatalog(files, builtAt);
  } catch (e) {
    if (e instanceof CatalogLoadError) return e;
    throw e;
  }
  throw new Error("the catalog was accepted");
}
