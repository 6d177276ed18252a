/**
 * The console's task pages: the listing with the API's filters and paging, a task's page (status,
 * progress, previews of outputs and inputs by signed URL, the envelope), its live routes (the
 * event stream and the polling state, under the session), and cancel (tasks:write, CSRF).
 */
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "../../src/audit/audit";
import { call } from "../helpers/api";
import { png } from "../helpers/media-fixtures";
import { createImage, waitFor } from "../helpers/tasks";
import { type ConsoleTenant, consoleCall, consoleTenant, csrfOf, memberCookie } from "./member-session";

let t: ConsoleTenant;
let image: any;
let failed: any;
let fromUpload: any;
let uploadId: string;

const page = (path: string, cookie = t.owner) => consoleCall(path, cookie);

beforeAll(async () => {
  t = await consoleTenant();
  image = await waitFor(t, (await createImage(t, { prompt: "a red fox", count: 2 })).json.task_id);
  failed = await waitFor(t, (await createImage(t, { prompt: "x", metadata: { sandbox_fault: "provider_error" } })).json.task_id);
  uploadId = (await upload(await png(64, 48))).artifact_id;
  const created = await call("/v1/images/image-to-image", {
    key: t.api_key,
    headers: { "Idempotency-Key": `i2i-${Date.now()}` },
    body: { prompt: "the same, at dusk", images: [{ type: "artifact", artifact_id: uploadId }] },
  });
  expect(created.status, created.text).toBe(202);
  fromUpload = await waitFor(t, created.json.task_id);
});

/** An upload of the tenant's (the raw body is the file). */
async function upload(bytes: Uint8Array) {
  const res = await exports.default.fetch(
    new Request("https://api.test/v1/uploads", {
      method: "POST",
      headers: { Authorization: `Bearer ${t.api_key}`, "Content-Type": "image/png" },
      body: bytes,
    }),
  );
  expect(res.status).toBe(201);
  return (await res.json()) as { artifact_id: string };
}

describe("GET /console/tasks", () => {
  it("lists the tenant's tasks newest first, each linking to its page", async () => {
    const res = await page("/console/tasks");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    const order = [fromUpload, failed, image].map((x) => res.text.indexOf(`href="/console/tasks/${x.task_id}"`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("filters as the API does, and pages with Next", async () => {
    const ok = await page("/console/tasks?status=failed");
    expect(ok.text).toContain(failed.task_id);
    expect(ok.text).not.toContain(image.task_id);
    // The form keeps what was asked.
    expect(ok.text).toMatch(/<option value="failed" selected/);
    const byCapability = await page("/console/tasks?capability=image_to_image");
    expect(byCapability.text).toContain(fromUpload.task_id);
    expect(byCapability.text).not.toContain(failed.task_id);
    const future = await page("/console/tasks?created_after=2999-01-01");
    expect(future.text).not.toContain(image.task_id);

    const first = await page("/console/tasks?limit=1");
    expect(first.text).toContain(fromUpload.task_id);
    const next = /<a href="([^"]+)" rel="next"/.exec(first.text)?.[1]?.replaceAll("&amp;", "&");
    expect(next).toMatch(/^\/console\/tasks\?limit=1&cursor=/);
    const second = await page(next as string);
    expect(second.text).toContain(failed.task_id);
    expect(second.text).not.toContain(fromUpload.task_id);
  });

  it("shows a bad filter's message instead of a listing", async () => {
    for (const [query, message] of [
      ["status=lost", "status must be one of"],
      ["capability=teleport", "is not a capability"],
      ["limit=500", "from 1 to 100"],
      ["created_after=2026-02-30", "created_after must be an ISO 8601 date"],
      ["created_after=2026-03-01&created_before=2026-02-01", "created_after must be earlier than created_before"],
      ["cursor=bm9wZQ", "cursor is malformed"],
    ]) {
      const res = await page(`/console/tasks?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.text, query).toContain(message as string);
      expect(res.text).not.toContain(image.task_id);
    }
  });

  it("sends the signed-out to sign in", async () => {
    const res = await page("/console/tasks", "");
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/console/sign-in");
  });
});

describe("GET /console/tasks/:id", () => {
  it("shows status, progress, the outputs by signed URL and the envelope", async () => {
    const res = await page(`/console/tasks/${image.task_id}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('data-status="succeeded"');
    expect(res.text).toMatch(/<progress max="100" value="100"/);
    for (const a of image.output.artifacts) {
      expect(res.text).toContain(`<img src="${a.signed_url.replaceAll("&", "&amp;")}"`);
    }
    // The envelope as JSON, as the API returns it (escaped in the page).
    const pre = /<pre class="envelope"[^>]*>([\s\S]*?)<\/pre>/.exec(res.text)?.[1] ?? "";
    const decoded = pre
      .replaceAll("&quot;", '"')
      .replaceAll("&#39;", "'")
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&amp;", "&");
    expect(JSON.parse(decoded)).toMatchObject({ task_id: image.task_id, status: "succeeded", billing: image.billing });
    // Nothing to follow and nothing to cancel.
    expect(res.text).toContain('data-terminal="true"');
    expect(res.text).not.toContain("Cancel task");
  });

  it("shows a failed task's error, and the inputs it was given", async () => {
    const bad = await page(`/console/tasks/${failed.task_id}`);
    expect(bad.text).toContain(failed.error.code);
    const res = await page(`/console/tasks/${fromUpload.task_id}`);
    expect(res.text).toContain("<h2>Inputs</h2>");
    expect(res.text).toMatch(new RegExp(`<img src="https://api\\.test/files/${uploadId}\\?expires=\\d+&amp;sig=[0-9a-f]+"`));
  });

  it("says an output deleted through the API is deleted, and links it no more", async () => {
    const deletedId = fromUpload.output.artifacts[0].artifact_id as string;
    const del = await call(`/v1/artifacts/${deletedId}`, { key: t.api_key, method: "DELETE" });
    expect(del.status, del.text).toBe(200);
    const res = await page(`/console/tasks/${fromUpload.task_id}`);
    expect(res.text).toContain("Deleted: the file of this output was removed.");
    expect(res.text).not.toContain(`/files/${deletedId}?`);
  });

  it("answers 404 for another tenant's task and for an id that cannot exist", async () => {
    const other = await consoleTenant();
    expect((await page(`/console/tasks/${image.task_id}`, other.owner)).status).toBe(404);
    expect((await page("/console/tasks/task_nope")).status).toBe(404);
    const json = await consoleCall(`/console/tasks/${image.task_id}/state`, other.owner, {
      headers: { Accept: "application/json" },
    });
    expect(json.status).toBe(404);
    expect(json.json.error.code).toBe("task_not_found");
  });
});

describe("following a task in the console", () => {
  it("streams the task's events under the session, ending with the envelope", async () => {
    const res = await page(`/console/tasks/${image.task_id}/events`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/event-stream/);
    const done = /event: done\ndata: (.+)\n/.exec(res.text)?.[1];
    expect(JSON.parse(done as string)).toMatchObject({ task_id: image.task_id, status: "succeeded" });
    // No session, no stream.
    expect((await page(`/console/tasks/${image.task_id}/events`, "")).status).toBe(303);
  });

  it("gives the polling fallback the status, and the script the live section", async () => {
    const state = await consoleCall(`/console/tasks/${image.task_id}/state`, t.owner, {
      headers: { Accept: "application/json" },
    });
    expect(state.json).toEqual({ task_id: image.task_id, status: "succeeded", progress: image.progress, terminal: true });
    const live = await page(`/console/tasks/${image.task_id}/live`);
    expect(live.text.startsWith('<section id="task-live"')).toBe(true);
    expect(live.text).toContain("<img");
  });

  it("renders a running task with a refresh link, the follow script and a cancel button", async () => {
    const queued = (await createImage(t, { prompt: "later", metadata: { sandbox_fault: "stay_queued" } })).json;
    const res = await page(`/console/tasks/${queued.task_id}`);
    expect(res.text).toContain('data-terminal="false"');
    expect(res.text).toContain(`<a href="/console/tasks/${queued.task_id}">Refresh</a>`);
    expect(res.text).toContain('new EventSource(base + "/events")');
    expect(res.text).toContain("Cancel task");
    // A viewer sees it, without the button.
    const viewer = await memberCookie(t.tenant_id, "viewer");
    const seen = await page(`/console/tasks/${queued.task_id}`, viewer);
    expect(seen.status).toBe(200);
    expect(seen.text).not.toContain("Cancel task");
  });
});

describe("POST /console/tasks/:id/cancel", () => {
  it("cancels a queued task, records who did, and says so", async () => {
    const queued = (await createImage(t, { prompt: "later", metadata: { sandbox_fault: "stay_queued" } })).json;
    const form = await page(`/console/tasks/${queued.task_id}`);
    const res = await consoleCall(`/console/tasks/${queued.task_id}/cancel`, t.owner, { form: { _csrf: csrfOf(form.text) } });
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe(`/console/tasks/${queued.task_id}`);
    const after = await call(`/v1/tasks/${queued.task_id}`, { key: t.api_key });
    expect(after.json.status).toBe("canceled");
    const flashCookie = (res.headers.get("Set-Cookie") ?? "").split(";")[0] as string;
    const shown = await page(`/console/tasks/${queued.task_id}`, `${t.owner}; ${flashCookie}`);
    expect(shown.text).toContain("The task was canceled");
    const audit = await listAudit(env, t.tenant_id, { limit: 5 });
    expect(audit.entries[0]).toMatchObject({ action: "task.cancel", target: queued.task_id, actor: { type: "user" } });
  });

  it("refuses a form without the session's token, and a viewer", async () => {
    const queued = (await createImage(t, { prompt: "later", metadata: { sandbox_fault: "stay_queued" } })).json;
    const forged = await consoleCall(`/console/tasks/${queued.task_id}/cancel`, t.owner, { form: { _csrf: "x" } });
    expect(forged.status).toBe(403);
    const viewer = await memberCookie(t.tenant_id, "viewer");
    const form = await page(`/console/tasks/${queued.task_id}`, viewer);
    const refused = await consoleCall(`/console/tasks/${queued.task_id}/cancel`, viewer, { form: { _csrf: csrfOf(form.text) } });
    expect(refused.status).toBe(403);
    expect((await call(`/v1/tasks/${queued.task_id}`, { key: t.api_key })).json.status).toBe("queued");
  });
});
