/**
 * Crash drills are a hook only tests install (src/tasks/faults.ts): without it, not even the local
 * configuration (fault injection on) lets a request's metadata crash the task object.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newTenant } from "../helpers/api";
import { createImage, taskEvents, taskStub, waitFor } from "../helpers/tasks";

describe("crash drills without the hook", () => {
  it("leave drill_crash_after as plain metadata: admitted, run to the end, no drill recorded", async () => {
    const t = await newTenant({ credits: "1000" });
    for (const point of ["reserve", "submit", "store", "capture"]) {
      const created = await createImage(t, { prompt: `no crash after ${point}`, metadata: { drill_crash_after: point } });
      expect(created.status, created.text).toBe(202);
      const done = await waitFor(t, created.json.task_id);
      expect(done.status).toBe("succeeded");
      expect((await taskEvents(created.json.task_id)).filter((e) => e.kind === "provider_submit")).toHaveLength(1);
      const drills = await runInDurableObject(taskStub(created.json.task_id), (_o, state) =>
        state.storage.sql.exec("SELECT point FROM drills").toArray(),
      );
      expect(drills).toEqual([]);
    }
  });
});
