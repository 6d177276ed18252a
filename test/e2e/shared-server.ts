/**
 * The `wrangler dev` that e2e files share (a globalSetup of the e2e project): the service started
 * once, its catalog loaded, a tenant and an API key made, instead of once per file. A file that
 * needs a server of its own keeps starting one: restart.e2e.test.ts kills and restarts its
 * server, and batch-input-memory.e2e.test.ts measures its Worker's memory, which no other file's
 * requests may touch. The sandbox finishes at once (SANDBOX_LATENCY_SCALE 0): a task's time is
 * its encode alone.
 */
import type { TestProject } from "vitest/node";
import { freePort, type LocalServer, startLocalServer } from "../../scripts/lib/local-server.ts";

export interface SharedServer {
  /** The inner workerd port when found (scripts/lib/local-server.ts), else `proxy`. */
  base: string;
  /** `wrangler dev`'s own port, its proxy in front of the Worker, as `npm start` serves it. */
  proxy: string;
  apiKey: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    e2eServer: SharedServer;
  }
}

let server: LocalServer | undefined;

export async function setup(project: TestProject) {
  const port = await freePort();
  server = await startLocalServer({ port, vars: { SANDBOX_LATENCY_SCALE: "0" } });
  project.provide("e2eServer", { base: server.base, proxy: `http://127.0.0.1:${port}`, apiKey: server.apiKey });
}

export function teardown() {
  server?.stop();
}
