/**
 * `DELETE /v1/tasks/{task_id}/outputs`: a terminal task's outputs deleted at once, the envelope
 * kept with them shown expired; a task not yet ended is a conflict; others' tasks are not found.
 * The MCP tool `delete_task_outputs` does the same.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { artifactKey } from "../../src/media/artifacts";
import { admin, call, expectError, newTenant, send, type TestTenant } from "../helpers/api";
import { auditOf } from "../helpers/safety";
import { createImage, getTask, taskEvents, taskStub, waitFor } from "../helpers/tasks";
import { callError, callOk, connect } from "../mcp/helpers";

const deleteOutputs = (t: TestTenant, taskId: string, key = t.api_key) =>
  call(`/v1/tasks/${taskId}/outputs`, { key, method: "DELETE" });

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "10000" });
});

async function succeeded(tenant: TestTenant) {
  const created = await createImage(tenant, { prompt: "a short-lived heron", count: 2 });
  expect(created.status, created.text).toBe(202);
  const done = await waitFor(tenant, created.json.task_id);
  expect(done.status).toBe("succeeded");
  return done;
}

describe("DELETE /v1/tasks/{task_id}/outputs", () => {
  it("deletes a succeeded task's outputs now; the envelope stays, its artifacts expired with no URL", async () => {
    const task = await succeeded(t);
    const ids: string[] = task.output.artifacts.map((a: any) => a.artifact_id);
    const signed: string[] = task.output.artifacts.map((a: any) => a.signed_url);
    const res = await deleteOutputs(t, task.task_id);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ object: "task", task_id: task.task_id, status: "succeeded", usage: task.usage });
    for (const a of [...res.json.output.artifacts, ...res.json.output.images]) {
      expect(a).toMatchObject({ expired: true, expires_at: task.output.artifacts[0].expires_at });
      for (const gone of ["url", "signed_url", "signed_url_expires_at"]) expect(a).not.toHaveProperty(gone);
    }
    expect(res.json.output.artifacts.map((a: any) => a.artifact_id)).toEqual(ids);
    for (const id of ids) {
      expect(await env.ARTIFACTS.head(artifactKey(id))).toBeNull();
      expectError(await call(`/v1/artifacts/${id}`, { key: t.api_key }), 404, "artifact_not_found");
    }
    for (const url of signed) expectError(await send(new Request(url)), 404, "artifact_not_found");
    // A read shows the same, and the alarm has nothing left to delete.
    expect((await getTask(t, task.task_id)).json.output).toEqual(res.json.output);
    expect(await runInDurableObject(taskStub(task.task_id), (_o, state) => state.storage.getAlarm())).toBeNull();
    const [entry] = await auditOf(t.tenant_id, "task.outputs_delete");
    expect(entry).toMatchObject({ target: task.task_id, actor: { type: "api_key", id: t.key_id } });
  });

  it("again: the same envelope, nothing deleted twice", async () => {
    const task = await succeeded(t);
    const first = await deleteOutputs(t, task.task_id);
    const second = await deleteOutputs(t, task.task_id);
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
    expect((await taskEvents(task.task_id)).filter((e) => e.kind === "outputs_deleted")).toHaveLength(1);
  });

  it("a task not yet ended is 409 conflict and keeps running; once canceled, its (no) outputs are deleted", async () => {
    const queued = await createImage(t, { prompt: "a heron", metadata: { sandbox_fault: "stay_queued" } });
    expect(queued.status).toBe(202);
    const e = expectError(await deleteOutputs(t, queued.json.task_id), 409, "conflict");
    expect(e.details).toMatchObject({ action: "wait_until_terminal", status: "queued", task_id: queued.json.task_id });
    expect((await getTask(t, queued.json.task_id)).json.status).toBe("queued");
    expect((await call(`/v1/tasks/${queued.json.task_id}/cancel`, { key: t.api_key, body: {} })).status).toBe(200);
    const after = await deleteOutputs(t, queued.json.task_id);
    expect(after.status).toBe(200);
    expect(after.json).toMatchObject({ status: "canceled", output: null });
  });

  it("another tenant's task, another mode's, an unknown or malformed id: 404 task_not_found, nothing deleted", async () => {
    const task = await succeeded(t);
    const other = await newTenant();
    expectError(await deleteOutputs(other, task.task_id), 404, "task_not_found");
    const k = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, { mode: "test" });
    expectError(await deleteOutputs(t, task.task_id, k.json.api_key), 404, "task_not_found");
    expectError(await deleteOutputs(t, `task_${"0".repeat(64)}`), 404, "task_not_found");
    expectError(await deleteOutputs(t, "task_nope"), 404, "task_not_found");
    const id = task.output.artifacts[0].artifact_id;
    expect(await env.ARTIFACTS.head(artifactKey(id))).not.toBeNull();
  });

  it("needs tasks:write and a key", async () => {
    const task = await succeeded(t);
    const k = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, { permissions: ["tasks:read"] });
    expectError(await deleteOutputs(t, task.task_id, k.json.api_key), 403, "forbidden");
    expectError(await call(`/v1/tasks/${task.task_id}/outputs`, { method: "DELETE" }), 401, "unauthorized");
    expect((await getTask(t, task.task_id)).json.output.artifacts[0].expired).toBeUndefined();
  });
});

describe("the delete_task_outputs tool", () => {
  it("deletes like the route, and is a conflict while the task runs", async () => {
    const client = await connect(t.api_key);
    const task = await succeeded(t);
    const result = await callOk(client, "delete_task_outputs", { task_id: task.task_id });
    expect(result.structuredContent.output.artifacts.every((a: any) => a.expired === true)).toBe(true);
    // No link is offered to what is gone.
    expect(result.content.filter((c: any) => c.type === "resource_link")).toEqual([]);
    expect(result.content[0].text).toContain("deleted");
    expect(await env.ARTIFACTS.head(artifactKey(task.output.artifacts[0].artifact_id))).toBeNull();
    const queued = await createImage(t, { prompt: "a heron", metadata: { sandbox_fault: "stay_queued" } });
    expect((await callError(client, "delete_task_outputs", { task_id: queued.json.task_id })).code).toBe("conflict");
  });
});
