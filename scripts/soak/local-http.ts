/** The soak's own HTTP servers (callback receivers, the recording proxy): on 127.0.0.1, any free port. */
import type { Server } from "node:http";

/** Listens on a free port of 127.0.0.1 and returns the server's base URL. */
export async function listenLocal(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}

/** Stops accepting and drops the connections still open (keep-alive ones included). */
export function closeLocal(server: Server | null): Promise<void> {
  if (!server) return Promise.resolve();
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
