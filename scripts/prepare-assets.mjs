// Copies the API reference viewer from its package into the Worker's static assets, so that
// /docs works with no internet. Runs after every install.
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const from = join(root, "node_modules/@scalar/api-reference/dist/browser");
const to = join(root, "public/docs/vendor");
if (!existsSync(from)) {
  console.warn("prepare-assets: @scalar/api-reference is not installed; /docs will have no viewer script");
  process.exit(0);
}
rmSync(to, { recursive: true, force: true });
mkdirSync(to, { recursive: true });
cpSync(from, to, { recursive: true, filter: (src) => !src.endsWith(".map") });
console.log("prepare-assets: API reference viewer copied to public/docs/vendor");
