import { register } from "node:module";

register("../packages/client/scripts/workers-shim.mjs", import.meta.url);
const { createApp } = await import("../src/app.ts");
const app = createApp();
const env = { REGION: "us" } as never;
const ctx = { waitUntil() {}, passThroughOnException() {} } as never;
const N = 50000;
for (const path of ["/healthz", "/v1/tasks/task_abc"]) {
  for (let round = 0; round < 3; round++) {
    const t = performance.now();
    for (let i = 0; i < N; i++) {
      const res = await app.fetch(new Request(`http://x${path}`), env, ctx);
      await res.arrayBuffer();
    }
    console.log(path, ((performance.now() - t) * 1000) / N, "µs/req");
  }
}
const r: any = (app as any).router;
console.log(r.name, r.constructor.name, r.activeRouter?.constructor?.name);
