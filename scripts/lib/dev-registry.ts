/**
 * The registry of local Workers through which `wrangler dev` processes bind one another (the API's
 * SANDBOX and DOCS bindings): a folder with one file per Worker, naming the debug port of the workerd
 * that runs it. A process killed with SIGKILL leaves its files behind, and wrangler then neither
 * replaces them (it refuses to register a Worker whose entry another process refreshed in the last
 * 90 s) nor lets its peers notice: the API binds the dead port and every call to the sandbox fails
 * with "Network connection lost" until the entry ages out. So a server is started only after the
 * entries of dead processes are removed, and a companion Worker counts as started only once its
 * entry names a workerd that answers.
 */
import { readdirSync, readFileSync, unlinkSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";

/**
 * Whether a connection to ADDRESS ("host:port") is refused right now. A connection that neither
 * opens nor is refused in time (a stopped process) is not called dead.
 */
function refused(address: string, timeoutMs = 1000): Promise<boolean> {
  const at = address.lastIndexOf(":");
  const host = address.slice(0, at);
  const port = Number(address.slice(at + 1));
  if (!host || !Number.isInteger(port) || port <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (dead: boolean) => {
      socket.destroy();
      resolve(dead);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(false));
    socket.once("error", (e: NodeJS.ErrnoException) => done(e.code === "ECONNREFUSED"));
  });
}

/** The debug port address an entry names, or undefined when the file is unreadable or has none. */
function addressOf(file: string): string | undefined {
  try {
    const entry = JSON.parse(readFileSync(file, "utf8")) as { debugPortAddress?: unknown };
    return typeof entry.debugPortAddress === "string" ? entry.debugPortAddress : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the entries whose workerd no longer accepts connections; returns the Workers' names. */
export async function pruneDeadEntries(registry: string): Promise<string[]> {
  let names: string[];
  try {
    names = readdirSync(registry);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const file = join(registry, name);
    const address = addressOf(file);
    if (address === undefined || !(await refused(address))) continue;
    try {
      unlinkSync(file);
      removed.push(name);
    } catch {
      // removed meanwhile
    }
  }
  return removed;
}

/** Whether NAME is registered by a workerd that accepts connections. */
export async function liveEntry(registry: string, name: string): Promise<boolean> {
  const address = addressOf(join(registry, name));
  return address !== undefined && !(await refused(address));
}
