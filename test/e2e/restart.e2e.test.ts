/**
 * A crash of the whole local service (SIGKILL of the API's and the sandbox Worker's wrangler and
 * workerd, as `kill -9` of `npm start`) and a restart on the same state: the tasks created right
 * after the restart succeed. The killed processes' entries in the registry of local Workers must not
 * stand for the new ones (scripts/lib/dev-registry.ts): where they did, the API bound the dead
 * sandbox and every output failed with "Network connection lost" until the entry aged out (90 s).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort, type LocalServer, startLocalServer } from "../../scripts/lib/local-server.ts";

let server: LocalServer;

beforeAll(async () => {
  server = await startLocalServer({ port: await freePort(), vars: { SANDBOX_LATENCY_SCALE: "0.1" } });
});
afterAll(() => server?.stop());

function headers(): Record<string, string> {
  return { Authorization: `Bearer ${server.apiKey}`, "Content-Type": "application/json" };
}

async function createImage(n: number): Promise<string> {
  const r = await fetch(`${server.base}/v1/images/generations`, {
    method: "POST",
    headers: { ...headers(), "Idempotency-Key": crypto.randomUUID() },
    body: JSON.stringify({ prompt: `after a crash ${n}`, canvas: { type: "preset", tier: "1K", aspect: "1:1" } }),
  });
  const json = (await r.json()) as { task_id?: string };
  expect(r.status, JSON.stringify(json)).toBe(202);
  return json.task_id as string;
}

interface Ended {
  status: string;
  error?: { code: string; message: string };
}

async function ended(id: string): Promise<Ended> {
  for (;;) {
    const r = await fetch(`${server.base}/v1/tasks/${id}`, { headers: headers() });
    const task = (await r.json()) as Ended;
    if (["succeeded", "failed", "canceled", "expired"].includes(task.status)) return task;
    await new Promise((r) => setTimeout(r, 200));
  }
}

it("tasks created right after a crash and restart succeed", async () => {
  expect((await ended(await createImage(0))).status).toBe("succeeded");
  // One in flight when the service dies: it ends after the restart too.
  const inFlight = await createImage(1);

  await server.crash();
  server = await server.restart();

  const after = await Promise.all([2, 3, 4].map(createImage));
  const ends = await Promise.all([inFlight, ...after].map(ended));
  expect(ends.map((e) => (e.status === "succeeded" ? e.status : `${e.status}: ${e.error?.message}`))).toEqual([
    "succeeded",
    "succeeded",
    "succeeded",
    "succeeded",
  ]);
}, 240_000);
