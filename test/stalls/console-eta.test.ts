/** The console's task page shows the ETA a running task reports, and its live script keeps it current. */
import { beforeAll, describe, expect, it } from "vitest";
import { type ConsoleTenant, consoleCall, consoleTenant } from "../console/member-session";
import { createImage, waitFor } from "../helpers/tasks";

let t: ConsoleTenant;
beforeAll(async () => {
  t = await consoleTenant();
});

describe("the task page's ETA", () => {
  it("shows the ETA of a running task, from the card's typical duration", async () => {
    const created = await createImage(t, { model: "flux-2-pro", prompt: "slowly", metadata: { sandbox_fault: "hang" } });
    const running = await waitFor(t, created.json.task_id, (x) => x.status === "running" && x.progress.eta_seconds !== undefined);
    // flux-2-pro's typical job is 30 s: the ETA is what is left of it.
    expect(running.progress.eta_seconds).toBeGreaterThan(0);
    expect(running.progress.eta_seconds).toBeLessThanOrEqual(30);
    const res = await consoleCall(`/console/tasks/${created.json.task_id}`, t.owner);
    expect(res.status).toBe(200);
    const wait = /<span data-field="wait" class="note">([^<]*)<\/span>/.exec(res.text)?.[1];
    expect(wait).toMatch(/^about 0:[0-3]\d left$/);
    // The live script writes the same field from each progress event, and counts it down between them.
    expect(res.text).toContain('set("wait", wait(p))');
    expect(res.text).toContain('" left"');
  });

  it("shows nothing where the task reports no wait", async () => {
    const done = await waitFor(t, (await createImage(t, { prompt: "quick" })).json.task_id);
    const res = await consoleCall(`/console/tasks/${done.task_id}`, t.owner);
    expect(res.text).toContain('<span data-field="wait" class="note"></span>');
  });
});
