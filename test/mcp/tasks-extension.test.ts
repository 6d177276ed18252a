/**
 * The tasks extension (io.modelcontextprotocol/tasks) over raw 2026-07-28 requests: a declaring
 * client gets a task handle from a task-creating tool and follows it with tasks/get until the
 * tool's result; tasks/cancel; another tenant's handle; clients that did not declare it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { toolNamed } from "../../src/mcp/tools";
import { newTenant, type TestTenant } from "../helpers/api";
import { validateJsonSchema } from "../helpers/json-schema";
import { runAlarm, waitFor } from "../helpers/tasks";
import { rawModern, TASKS_EXTENSION } from "./helpers";

const IMAGE = { prompt: "a lighthouse on a cliff at dawn", canvas: { type: "preset", tier: "1K", aspect: "1:1" } };
const DECLARED = { extensions: { [TASKS_EXTENSION]: {} } };

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant();
});

async function createHandle(args: Record<string, unknown>, token = t.api_key) {
  const res = await rawModern(token, "tools/call", { name: "text_to_image", arguments: args }, DECLARED);
  expect(res.status).toBe(200);
  return res.message.result;
}

async function tasksGet(taskId: string, token = t.api_key, options = DECLARED) {
  return (await rawModern(token, "tasks/get", { taskId }, options)).message;
}

/** tasks/get until the handle is no longer working, running the task's alarm between polls. */
async function pollUntilDone(taskId: string) {
  for (let i = 0; i < 60; i++) {
    const got = await tasksGet(taskId);
    expect(got.error, JSON.stringify(got.error)).toBeUndefined();
    if (got.result.status !== "working") return got.result;
    await runAlarm(taskId).catch(() => undefined);
  }
  throw new Error(`task ${taskId} did not end`);
}

describe("a client that declares the extension", () => {
  it("gets a task handle, and tasks/get until completed answers the tool's result", async () => {
    const handle = await createHandle(IMAGE);
    expect(handle).toMatchObject({ resultType: "task", status: "working", ttlMs: null, pollIntervalMs: 2000 });
    expect(handle.taskId).toMatch(/^task_[0-9a-f]{64}$/);
    expect(Date.parse(handle.createdAt)).not.toBeNaN();
    expect(Date.parse(handle.lastUpdatedAt)).not.toBeNaN();
    expect(handle.structuredContent).toBeUndefined();

    // Durable before it is answered: the first poll finds it.
    const first = await tasksGet(handle.taskId);
    expect(first.result).toMatchObject({ resultType: "complete", taskId: handle.taskId });

    const done = await pollUntilDone(handle.taskId);
    expect(done).toMatchObject({ resultType: "complete", status: "completed", taskId: handle.taskId });
    expect(done.result.isError).toBeUndefined();
    expect(done.result.structuredContent).toMatchObject({ task_id: handle.taskId, status: "succeeded" });
    const links = done.result.content.filter((c: any) => c.type === "resource_link");
    expect(links).toHaveLength(1);
    expect(links[0].uri).toBe(done.result.structuredContent.output.artifacts[0].signed_url);
  });

  it("a task that fails completes with a tool error carrying the task's error and its jsonrpc_code", async () => {
    const handle = await createHandle({ ...IMAGE, metadata: { sandbox_fault: "content_filtered" } });
    const done = await pollUntilDone(handle.taskId);
    expect(done.status).toBe("completed");
    expect(done.result.isError).toBe(true);
    expect(done.result.structuredContent.status).toBe("failed");
    expect(done.result.structuredContent.error).toMatchObject({ code: "content_filtered", jsonrpc_code: -32603 });
    // The tool's final result, error included, is one its advertised output schema admits.
    const schema = toolNamed("text_to_image")?.outputSchema() as Record<string, unknown>;
    const { $defs: _defs, ...root } = schema;
    expect(validateJsonSchema(schema, root, done.result.structuredContent)).toEqual([]);
  });

  it("tasks/cancel is acknowledged and the task ends cancelled", async () => {
    const handle = await createHandle({ ...IMAGE, metadata: { sandbox_fault: "stay_queued" } });
    const ack = await rawModern(t.api_key, "tasks/cancel", { taskId: handle.taskId }, DECLARED);
    expect(ack.message.error).toBeUndefined();
    expect(ack.message.result).toMatchObject({ resultType: "complete" });
    // The cancel is acknowledged at once; the task ends cancelled once its object has stopped it.
    let after = await tasksGet(handle.taskId);
    for (let i = 0; i < 100 && after.result?.status === "working"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = await tasksGet(handle.taskId);
    }
    expect(after.result).toMatchObject({ status: "cancelled", taskId: handle.taskId });
    expect(after.result.result).toBeUndefined();
  });

  it("a task that cannot be stopped is still acknowledged and runs on", async () => {
    const handle = await createHandle({ ...IMAGE, metadata: { sandbox_fault: "uncancelable,hang" } });
    await waitFor(t, handle.taskId, (x) => x.status === "running");
    const ack = await rawModern(t.api_key, "tasks/cancel", { taskId: handle.taskId }, DECLARED);
    expect(ack.message.result).toMatchObject({ resultType: "complete" });
    expect((await tasksGet(handle.taskId)).result.status).toBe("working");
  });

  it("another tenant's handle, or one that does not exist, is 'Task not found' (-32602)", async () => {
    const handle = await createHandle(IMAGE);
    const other = await newTenant();
    for (const taskId of [handle.taskId, `task_${"0".repeat(64)}`, "nope"]) {
      for (const method of ["tasks/get", "tasks/cancel", "tasks/update"]) {
        const res = await rawModern(other.api_key, method, { taskId, inputResponses: {} }, DECLARED);
        expect(res.message.error, `${method} ${taskId}`).toMatchObject({ code: -32602 });
        expect(res.message.error.message).toContain("Task not found");
        expect(res.message.error.data.error).toMatchObject({ code: "task_not_found", jsonrpc_code: -32602 });
      }
    }
    // The owner's task was not touched.
    expect((await tasksGet(handle.taskId)).result.status).not.toBe("cancelled");
  });

  it("tasks/update is acknowledged (no task of ours waits for input)", async () => {
    const handle = await createHandle(IMAGE);
    const res = await rawModern(t.api_key, "tasks/update", { taskId: handle.taskId, inputResponses: { x: {} } }, DECLARED);
    expect(res.message.result).toMatchObject({ resultType: "complete" });
  });

  it("tasks/* need the scopes of reading or writing tasks", async () => {
    const handle = await createHandle(IMAGE);
    const reader = await newTenant({ permissions: ["catalog:read"] });
    const res = await rawModern(reader.api_key, "tasks/get", { taskId: handle.taskId }, DECLARED);
    expect(res.message.error).toMatchObject({ code: -32602 });
    expect(res.message.error.data.error).toMatchObject({ code: "insufficient_scope" });
  });

  it("tools that create no task answer as usual", async () => {
    const res = await rawModern(t.api_key, "tools/call", { name: "get_balance", arguments: {} }, DECLARED);
    expect(res.message.result).toMatchObject({ resultType: "complete", structuredContent: { object: "balance" } });
  });
});

describe("a client that does not declare it", () => {
  it("gets the envelope from a task-creating tool, and -32021 from tasks/*", async () => {
    const res = await rawModern(t.api_key, "tools/call", { name: "text_to_image", arguments: IMAGE });
    expect(res.message.result).toMatchObject({ resultType: "complete", structuredContent: { object: "task", status: "queued" } });
    const taskId = res.message.result.structuredContent.task_id;
    for (const method of ["tasks/get", "tasks/cancel"]) {
      const refused = await rawModern(t.api_key, method, { taskId }, {});
      expect(refused.message.error, method).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      });
    }
  });
});
