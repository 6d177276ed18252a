/** The console's task page shows how long each output is kept, and an output past its end as expired. */
import { describe, expect, it } from "vitest";
import { consoleCall, consoleTenant } from "../console/member-session";
import { call } from "../helpers/api";
import { createImage, waitFor } from "../helpers/tasks";

describe("the console's task page", () => {
  it("shows each output's expires_at, then that it expired once its outputs were deleted", async () => {
    const t = await consoleTenant("10000");
    const task = await waitFor(t, (await createImage(t, { prompt: "a kept fox", output_retention_days: 4 })).json.task_id);
    expect(task.status).toBe("succeeded");
    const until = task.output.artifacts[0].expires_at;
    const before = await consoleCall(`/console/tasks/${task.task_id}`, t.owner);
    expect(before.status).toBe(200);
    expect(before.text).toContain(`kept until <time datetime="${until}">`);
    expect(before.text).not.toContain("Expired:");

    expect((await call(`/v1/tasks/${task.task_id}/outputs`, { key: t.api_key, method: "DELETE" })).status).toBe(200);
    const after = await consoleCall(`/console/tasks/${task.task_id}`, t.owner);
    expect(after.text).toContain(`Expired: its retention ended (${until}) or its outputs were deleted; the file is gone.`);
    expect(after.text).not.toContain("kept until");
    expect(after.text).not.toContain(`<img src="`);
  });
});
