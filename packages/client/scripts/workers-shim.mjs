/**
 * Module hooks that let the Worker's route graph load in Node, so that the OpenAPI document can
 * be read from the app's own route declarations without starting workerd. Nothing here runs a
 * request to storage: the document route touches no binding.
 * - `cloudflare:*` modules become plain base classes (the Durable Object classes only extend them).
 * - Module types wrangler bundles by default (`.wasm` as compiled modules, `.txt`/`.html`/`.sql` as
 *   text, `.bin` as bytes) load as wrangler would hand them to the Worker.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const CLOUDFLARE_STAND_IN = `
class Base { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
export class DurableObject extends Base {}
export class WorkerEntrypoint extends Base {}
export class WorkflowEntrypoint extends Base {}
export class RpcTarget {}
export function connect() { throw new Error("cloudflare:sockets is not available here"); }
export const env = {};
export default {};
`;

const DATA_MODULE = /\.(wasm|txt|html|sql|bin)(\?module)?$/;

export async function resolve(specifier, context, next) {
  if (specifier.startsWith("cloudflare:")) {
    return { url: `data:text/javascript,${encodeURIComponent(CLOUDFLARE_STAND_IN)}`, shortCircuit: true };
  }
  if (DATA_MODULE.test(specifier)) {
    const bare = specifier.replace(/\?module$/, "");
    const url = new URL(bare, context.parentURL).href;
    return { url: bare.startsWith(".") || bare.startsWith("/") ? url : (await next(bare, context)).url, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  const m = DATA_MODULE.exec(url);
  if (!m || !url.startsWith("file:")) return next(url, context);
  const bytes = readFileSync(fileURLToPath(url));
  const literal = `Uint8Array.from(atob(${JSON.stringify(bytes.toString("base64"))}), (c) => c.charCodeAt(0))`;
  const source =
    m[1] === "wasm"
      ? `export default new WebAssembly.Module(${literal});`
      : m[1] === "bin"
        ? `export default ${literal}.buffer;`
        : `export default ${JSON.stringify(bytes.toString("utf8"))};`;
  return { format: "module", source, shortCircuit: true };
}
