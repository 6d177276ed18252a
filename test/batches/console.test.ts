/** The console's Batches page: list, progress, counts, results link, cancel (tasks:write, CSRF, audited); the batch on a task's page. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { listAudit } from "../../src/audit/audit";
import { consoleCall, consoleTenant, csrfOf, memberCookie } from "../console/member-session";
import { call } from "../helpers/api";
import { createBatch, imageItems, waitForBatch } from "./helpers";

describe("/console/batches", () => {
  it("lists batches with progress, counts and the results link; a task's page names its batch", async () => {
    const t = await consoleTenant("10000");
    const res = await createBatch(t, { operation: "text_to_image", items: imageItems(3) });
    const done = await waitForBatch(t, res.json.batch_id);
    const page = await consoleCall("/console/batches", t.owner);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-batch-id="${done.batch_id}"`);
    expect(page.text).toContain('data-status="completed"');
    expect(page.text).toMatch(/<progress max="3" value="3"/);
    expect(page.text).toContain("3 succeeded · 0 failed · 0 canceled");
    expect(page.text).toContain(done.output_file_url.replaceAll("&", "&amp;"));
    const item = (await call(`/v1/batches/${done.batch_id}/items?limit=1`, { key: t.api_key })).json.data[0];
    const taskPage = await consoleCall(`/console/tasks/${item.task_id}`, t.owner);
    expect(taskPage.text).toContain(done.batch_id);
    expect(taskPage.text).toContain("item-0");
  });

  it("cancels a running batch for a member with tasks:write, writes the audit log, and refuses a viewer", async () => {
    const t = await consoleTenant("10000");
    const items = imageItems(5, (i) => ({ prompt: `held ${i}`, metadata: { sandbox_fault: "hang" } }));
    const res = await createBatch(t, { operation: "text_to_image", items, concurrency: 1 });
    await waitForBatch(t, res.json.batch_id, (b) => b.counts.running === 1);
    const viewer = await memberCookie(t.tenant_id, "viewer");
    const viewerPage = await consoleCall("/console/batches", viewer);
    expect(viewerPage.text).not.toContain(`/console/batches/${res.json.batch_id}/cancel`);
    const list = await consoleCall("/console/batches", t.owner);
    expect(list.text).toContain(`/console/batches/${res.json.batch_id}/cancel`);
    const refused = await consoleCall(`/console/batches/${res.json.batch_id}/cancel`, viewer, {
      form: { _csrf: csrfOf(list.text) },
    });
    expect(refused.status).toBe(403);
    const canceled = await consoleCall(`/console/batches/${res.json.batch_id}/cancel`, t.owner, {
      form: { _csrf: csrfOf(list.text) },
    });
    expect(canceled.status).toBe(303);
    const done = await waitForBatch(t, res.json.batch_id);
    expect(done.status).toBe("canceled");
    expect(done.counts.canceled).toBe(5);
    const audit = await listAudit(env, t.tenant_id, { limit: 5 });
    expect(audit.entries[0]).toMatchObject({ action: "batch.cancel", target: res.json.batch_id, actor: { type: "user" } });
  });
});
