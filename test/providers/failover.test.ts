/**
 * Failover between the routes of one model: a route that keeps refusing before it accepted the job
 * hands the task to the model's next route (never another model), the envelope records who served
 * it and what failed before, and a safety refusal is never routed around.
 */
import { describe, expect, it } from "vitest";
import { call, newTenant } from "../helpers/api";
import { count, create, expectRefunded, fakeRequests, follow, newTag } from "./harness";

const CANVAS = { type: "preset", tier: "1K", aspect: "1:1" };
const flux = {
  provider: "fal",
  path: "/v1/images/generations",
  body: (text: string) => ({ model: "flux-2-pro", prompt: text, canvas: CANVAS }),
};
const fluxOnBfl = { ...flux, provider: "bfl" };
const gptImage = {
  provider: "openai",
  path: "/v1/images/generations",
  body: (text: string) => ({ model: "gpt-image-2", prompt: text, canvas: CANVAS }),
};

describe("failover across a model's routes", () => {
  it("moves flux-2-pro from a fal that is down, through a BFL that is down, to Replicate", async () => {
    const t = await newTenant({ credits: "1000", permissions: ["tasks:read", "tasks:write", "logs:read"] });
    const tag = newTag("failover-flux");
    const created = await create(t, flux, tag, ["#fake:down@fal", "#fake:down@bfl"]);
    expect(created.provider.name).toBe("fal");
    const { task } = await follow(t, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.resolved_model).toBe("flux-2-pro");
    expect(task.provider.name).toBe("replicate");
    expect(task.output.provider.name).toBe("replicate");
    expect(task.provider.failed_attempts.map((f: { provider: string }) => f.provider)).toEqual([
      "fal",
      "fal",
      "fal",
      "bfl",
      "bfl",
      "bfl",
    ]);
    expect(task.provider.failed_attempts[0].code).toBe("model_unavailable");
    // Exactly one accepted submission in all: fal and BFL refused every time, Replicate took it once.
    expect(count(await fakeRequests("fal", tag), "submit")).toBe(3);
    expect(count(await fakeRequests("bfl", tag), "submit")).toBe(3);
    expect(count(await fakeRequests("replicate", tag), "submit")).toBe(1);
    expect(task.billing.net_charged_credits).toBe(task.usage.credits);
    // The request log shows each submission with the status the upstream answered.
    const logged = await call(`/v1/requests?task_id=${task.task_id}`, { key: t.api_key });
    const requestId = logged.json.data[0]?.request_id as string;
    const detail = (await call(`/v1/requests/${requestId}`, { key: t.api_key })).json;
    const failed = task.provider.failed_attempts.map((f: { provider: string }) => f.provider);
    expect(detail.attempts.map((a: { provider: string }) => a.provider)).toEqual([...failed, "replicate"]);
    expect(detail.attempts.slice(0, 6).map((a: { http_status: number }) => a.http_status)).toEqual([
      503, 503, 503, 503, 503, 503,
    ]);
    expect(detail.attempts[6]).toMatchObject({ outcome: "succeeded", http_status: null, error: null });
    expect(detail.stages.map((s: { name: string; outcome: string }) => `${s.name}:${s.outcome}`)).toEqual([
      "store_outputs:succeeded",
    ]);
  });

  it("moves gpt-image-2 from an OpenAI that is down to fal", async () => {
    const t = await newTenant();
    const tag = newTag("failover-gpt");
    const created = await create(t, gptImage, tag, ["#fake:down@openai"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.provider.name).toBe("fal");
    expect(count(await fakeRequests("openai", tag), "submit")).toBe(3);
    expect(count(await fakeRequests("fal", tag), "submit")).toBe(1);
  });

  it("fails with the last route's error, refunded, when every route is down", async () => {
    const t = await newTenant({ credits: "1000" });
    const tag = newTag("failover-all-down");
    const created = await create(t, flux, tag, ["#fake:down"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status).toBe("failed");
    expect(task.error.code).toBe("model_unavailable");
    expect(task.error.retryable).toBe(true);
    expect(task.provider.failed_attempts).toHaveLength(9);
    await expectRefunded(t, task, "1000");
  });

  it("never routes around a safety refusal", async () => {
    const t = await newTenant({ credits: "1000" });
    const tag = newTag("failover-safety");
    const created = await create(t, flux, tag, ["#fake:safety_input@fal"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status).toBe("failed");
    expect(task.error.code).toBe("safety_rejected");
    expect(task.provider.name).toBe("fal");
    expect(count(await fakeRequests("replicate", tag), "submit")).toBe(0);
    expect(count(await fakeRequests("bfl", tag), "submit")).toBe(0);
    await expectRefunded(t, task, "1000");
  });

  it("never routes around a content refusal that BFL reports as a task Error (content_policy_violation)", async () => {
    const t = await newTenant({ credits: "1000" });
    const tag = newTag("failover-bfl-policy");
    const created = await create(t, fluxOnBfl, tag, ["#fake:task_error_content_policy_violation@bfl"]);
    expect(created.provider.name).toBe("bfl");
    const { task } = await follow(t, created.task_id);
    expect(task.status).toBe("failed");
    expect(task.error).toMatchObject({ code: "safety_rejected", retryable: false });
    expect(task.provider.name).toBe("bfl");
    expect(count(await fakeRequests("bfl", tag), "submit")).toBe(1);
    expect(count(await fakeRequests("fal", tag), "submit")).toBe(0);
    expect(count(await fakeRequests("replicate", tag), "submit")).toBe(0);
    await expectRefunded(t, task, "1000");
  });
});
