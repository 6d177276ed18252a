/** The console's task page shows how long each output is kept, and an output past its end as expired. */
import { describe, expect, it } from "vitest";
import { consoleCall, consoleTenant } from "../console/member-session";
import { admin, BASE, call, send } from "../helpers/api";
import { png } from "../helpers/media-fixtures";
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

  it("signs an uploaded input's preview no longer than the upload is kept", async () => {
    const t = await consoleTenant("10000");
    await admin(`/admin/v1/tenants/${t.tenant_id}/settings`, { output_retention_days: 1 });
    const up = await send(
      new Request(`${BASE}/v1/uploads`, {
        method: "POST",
        body: await png(64, 64),
        headers: { Authorization: `Bearer ${t.api_key}` },
      }),
    );
    expect(up.status).toBe(201);
    const created = await call("/v1/images/image-to-image", {
      key: t.api_key,
      headers: { "Idempotency-Key": `kept-input-${up.json.artifact_id}` },
      body: { prompt: "the same, at dusk", images: [{ type: "artifact", artifact_id: up.json.artifact_id }] },
    });
    expect(created.status, created.text).toBe(202);
    const page = await consoleCall(`/console/tasks/${created.json.task_id}`, t.owner);
    const link = new RegExp(`/files/${up.json.artifact_id}\\?expires=(\\d+)`).exec(page.text);
    expect(link, "a signed preview of the input").not.toBeNull();
    expect(Number(link?.[1])).toBe(Math.floor(Date.parse(up.json.expires_at) / 1000));
  });
});
