/**
 * A key's mode is part of every task's scope and of the idempotency namespace: a test key never
 * reads, follows, waits on, cancels or replays its tenant's live tasks, nor a live key the test
 * ones, on any door; across modes a task (and its output) is as unknown as another tenant's.
 * The console, which acts for the whole tenant, sees both.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { freshEmail, signIn, tenantWithOwner } from "../helpers/console";
import { createImage, forgetCached, getTask, ledger, newKey, taskStub, waitFor } from "../helpers/tasks";
import { callError, callOk, connect } from "../mcp/helpers";

/** A second key of `t`'s tenant, of `mode`. */
async function keyOf(tenantId: string, mode: "live" | "test"): Promise<TestTenant> {
  const k = await admin(`/admin/v1/tenants/${tenantId}/api-keys`, { mode });
  expect(k.status, k.text).toBe(201);
  return { tenant_id: tenantId, api_key: k.json.api_key, key_id: k.json.key_id };
}

let live: TestTenant;
let test: TestTenant;
beforeAll(async () => {
  live = await newTenant({ credits: "1000" });
  test = await keyOf(live.tenant_id, "test");
});

const QUEUED = { sandbox_fault: "stay_queued" };
const modes = () =>
  [
    ["test → live", () => ({ owner: live, other: test })],
    ["live → test", () => ({ owner: test, other: live })],
  ] as const;

describe("task scope by key mode", () => {
  for (const [direction, pair] of modes()) {
    it(`${direction}: read, wait, events and assets are 404 task_not_found; the owner's mode reads it`, async () => {
      const { owner, other } = pair();
      const created = await createImage(owner, { prompt: "scoped", metadata: QUEUED });
      expect(created.status, created.text).toBe(202);
      const id = created.json.task_id;
      expect((await getTask(owner, id)).status).toBe(200);
      expectError(await getTask(other, id), 404, "task_not_found");
      expectError(await call(`/v1/tasks/${id}`, { key: other.api_key, headers: { Prefer: "wait=2" } }), 404, "task_not_found");
      expectError(await call(`/v1/tasks/${id}/events`, { key: other.api_key }), 404, "task_not_found");
      expectError(await call(`/v1/tasks/${id}/assets`, { key: other.api_key }), 404, "task_not_found");
      // The same answer as for a task that does not exist at all.
      const unknown = await getTask(other, `task_${"0".repeat(64)}`);
      expect(unknown.json.error.message.replace(/task_[0-9a-f]+/, "")).toBe(
        (await getTask(other, id)).json.error.message.replace(/task_[0-9a-f]+/, ""),
      );
    });

    it(`${direction}: cancel is 404 task_not_found and changes nothing; the owner's mode cancels with a refund`, async () => {
      const { owner, other } = pair();
      const created = await createImage(owner, { prompt: "not yours to stop", metadata: QUEUED });
      const id = created.json.task_id;
      const before = (await ledger(live.tenant_id)) as any;
      expectError(await call(`/v1/tasks/${id}/cancel`, { key: other.api_key, method: "POST", body: {} }), 404, "task_not_found");
      const still = (await getTask(owner, id)).json;
      expect(still.status).toBe("queued");
      expect(still.cancel_requested_at).toBeNull();
      expect(((await ledger(live.tenant_id)) as any).balance).toBe(before.balance);
      const canceled = await call(`/v1/tasks/${id}/cancel`, { key: owner.api_key, method: "POST", body: {} });
      expect(canceled.status).toBe(200);
      expect(canceled.json.status).toBe("canceled");
      expect(canceled.json.billing.refunded_credits).toBe(canceled.json.billing.charged_credits);
    });

    it(`${direction}: the same Idempotency-Key is a separate task in each mode, each replayed to its own mode only`, async () => {
      const { owner, other } = pair();
      const key = newKey();
      const body = { prompt: "one key, two modes", metadata: QUEUED };
      const first = await createImage(owner, body, key);
      const second = await createImage(other, body, key);
      expect(first.status, first.text).toBe(202);
      expect(second.status, second.text).toBe(202);
      expect(second.json.task_id).not.toBe(first.json.task_id);
      for (const [res, t] of [
        [first, owner],
        [second, other],
      ] as const) {
        const mode = t === test ? "test" : "live";
        expect(res.json.provider).toMatchObject({ mode, simulated: true });
        if (mode === "test") expect(res.json.billing.charged_credits).toBe("0");
        else expect(Number(res.json.billing.charged_credits)).toBeGreaterThan(0);
        // A replay lands on the task of its own mode, the same one every time.
        const again = await createImage(t, body, key);
        expect(again.status).toBe(202);
        expect(again.json.task_id).toBe(res.json.task_id);
        expect(again.json.billing.charged_credits).toBe(res.json.billing.charged_credits);
      }
      // Another body under the key conflicts within a mode, as ever.
      expectError(await createImage(other, { ...body, prompt: "changed" }, key), 409, "idempotency_conflict");
    });
  }

  it("lists each mode's tasks to its keys only", async () => {
    const t = await newTenant();
    const tk = await keyOf(t.tenant_id, "test");
    const a = (await createImage(t, { prompt: "listed live", metadata: QUEUED })).json.task_id;
    const b = (await createImage(tk, { prompt: "listed test", metadata: QUEUED })).json.task_id;
    const ids = async (k: TestTenant) => (await call("/v1/tasks", { key: k.api_key })).json.data.map((x: any) => x.task_id);
    expect(await ids(t)).toEqual([a]);
    expect(await ids(tk)).toEqual([b]);
  });

  it("a task's outputs are artifact_not_found to the other mode: download, delete and as an input", async () => {
    for (const [owner, other] of [
      [live, test],
      [test, live],
    ] as const) {
      const done = await waitFor(owner, (await createImage(owner, { prompt: "an output" })).json.task_id);
      expect(done.status).toBe("succeeded");
      const artifact = done.output.artifacts[0].artifact_id as string;
      expectError(await call(`/v1/artifacts/${artifact}`, { key: other.api_key }), 404, "artifact_not_found");
      expectError(
        await call("/v1/images/edits", {
          key: other.api_key,
          body: { model: "flux-2-pro", prompt: "make it blue", images: [{ type: "artifact", artifact_id: artifact }] },
          headers: { "Idempotency-Key": newKey() },
        }),
        404,
        "artifact_not_found",
        "/images/0/artifact_id",
      );
      expectError(await call(`/v1/artifacts/${artifact}`, { key: other.api_key, method: "DELETE" }), 404, "artifact_not_found");
      const own = await call(`/v1/artifacts/${artifact}`, { key: owner.api_key });
      expect(own.status).toBe(200);
      expect(own.headers.get("Content-Type")).toBe("image/png");
    }
  });

  it("an output stored before outputs recorded their mode is scoped by its task's mode", async () => {
    const done = await waitFor(test, (await createImage(test, { prompt: "an older output" })).json.task_id);
    const id = done.output.artifacts[0].artifact_id as string;
    const object = (await env.ARTIFACTS.get(`artifacts/${id}`)) as R2ObjectBody;
    const { mode, ...older } = object.customMetadata ?? {};
    expect(mode).toBe("test");
    await env.ARTIFACTS.put(`artifacts/${id}`, await object.arrayBuffer(), {
      httpMetadata: object.httpMetadata,
      customMetadata: older,
    });
    expectError(await call(`/v1/artifacts/${id}`, { key: live.api_key }), 404, "artifact_not_found");
    expect((await call(`/v1/artifacts/${id}`, { key: test.api_key })).status).toBe(200);
  });

  it("a test task made under a live name before modes had names of their own is never replayed to a live key", async () => {
    const key = newKey();
    const body = { prompt: "from before", metadata: QUEUED };
    const made = await createImage(live, body, key);
    // What such a task looks like: a test-mode record in the object of `<tenant>:<key>`.
    await runInDurableObject(taskStub(made.json.task_id), async (obj, state) => {
      const row = state.storage.sql.exec<{ record: string }>("SELECT record FROM task WHERE id = 1").one();
      const record = JSON.parse(row.record);
      expect(record.mode).toBe("live");
      record.mode = "test";
      state.storage.sql.exec("UPDATE task SET record = ? WHERE id = 1", JSON.stringify(record));
      forgetCached(obj);
    });
    expect((await getTask(test, made.json.task_id)).json.provider.mode).toBe("test");
    expectError(await getTask(live, made.json.task_id), 404, "task_not_found");
    expectError(await createImage(live, body, key), 409, "idempotency_conflict");
    // The test key's own namespace is another object: a task of its own.
    const own = await createImage(test, body, key);
    expect(own.status).toBe(202);
    expect(own.json.task_id).not.toBe(made.json.task_id);
  });

  it("MCP task tools answer task_not_found across modes", async () => {
    const created = await createImage(live, { prompt: "through mcp", metadata: QUEUED });
    const id = created.json.task_id;
    const client = await connect(test.api_key);
    try {
      for (const tool of ["get_task", "cancel_task"]) {
        expect((await callError(client, tool, { task_id: id })).code).toBe("task_not_found");
      }
      expect((await callError(client, "wait_for_task", { task_id: id, timeout_seconds: 0 })).code).toBe("task_not_found");
      const own = await connect(live.api_key);
      try {
        expect((await callOk(own, "get_task", { task_id: id })).structuredContent.task_id).toBe(id);
      } finally {
        await own.close();
      }
    } finally {
      await client.close();
    }
  });

  it("a console session sees and cancels both modes' tasks", async () => {
    const email = freshEmail("modes-console");
    const tenant = await tenantWithOwner(email);
    const browser = await signIn(email);
    for (const mode of ["live", "test"] as const) {
      const k = await keyOf(tenant.tenant_id, mode);
      const id = (await createImage(k, { prompt: `console ${mode}`, metadata: QUEUED })).json.task_id;
      const page = await browser.get(`/console/tasks/${id}`);
      expect(page.status, page.text).toBe(200);
      expect(page.text).toContain(id);
      const canceled = await browser.post(`/console/tasks/${id}/cancel`, {});
      expect(canceled.status, canceled.text).toBe(303);
      expect((await getTask(k, id)).json.status).toBe("canceled");
    }
  });
});
