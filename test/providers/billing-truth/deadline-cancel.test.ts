/**
 * The deadline over real adapters and their fakes: the upstream's own cancel is called where the
 * provider documents one (fal), then the job is read one last time; with no output the task fails
 * `model_timeout`, refunded. Where the provider has no cancel (BFL), nothing is sent but the read.
 */
import { describe, expect, it } from "vitest";
import { newTenant } from "../../helpers/api";
import { fastForward, taskEvents } from "../../helpers/tasks";
import { count, create, expectRefunded, fakeRequests, follow, newTag, readTask } from "../harness";

const CANVAS = { type: "preset", tier: "1K", aspect: "1:1" };
const flux = (provider: string) => ({
  provider,
  path: "/v1/images/generations",
  body: (text: string) => ({ model: "flux-2-pro", prompt: text, canvas: CANVAS }),
});

/** A job that never finishes on `provider`, taken past its deadline. */
async function pastDeadline(provider: "fal" | "bfl", markers: string[]) {
  const t = await newTenant({ credits: "1000" });
  const tag = newTag(`deadline-${provider}`);
  const created = await create(t, flux(provider), tag, markers);
  const id = created.task_id as string;
  await follow(t, id, (x) => x.provider?.name === provider && x.progress.stage !== "submitting" && x.progress.percent >= 1);
  const past = (rec: any) => {
    rec.deadline_at = new Date(Date.now() - 1000).toISOString();
  };
  // A poll under way when the record is moved may save what it read before: move it again.
  for (let i = 0; i < 5 && !["succeeded", "failed", "canceled"].includes((await readTask(t, id)).status); i++)
    await fastForward(id, past);
  const { task } = await follow(t, id);
  return { t, tag, id, task };
}

describe("the deadline at a real upstream", () => {
  it("fal: the queued request is canceled through fal's cancel endpoint, then the task fails model_timeout, refunded", async () => {
    const { t, tag, id, task } = await pastDeadline("fal", ["#fake:slow"]);
    expect(task.status).toBe("failed");
    expect(task.error.code).toBe("model_timeout");
    expect(task.output).toBeNull();
    await expectRefunded(t, task, "1000");
    expect(task.billing.refund_reason).toBe("model_timeout");
    const requests = await fakeRequests("fal", tag);
    expect(count(requests, "cancel")).toBeGreaterThanOrEqual(1);
    // The last read came after the cancel.
    const kinds = requests.map((r) => r.kind);
    expect(kinds.lastIndexOf("status")).toBeGreaterThan(kinds.indexOf("cancel"));
    expect((await taskEvents(id)).find((e) => e.kind === "provider_cancel")?.detail).toEqual({
      reason: "deadline",
      answer: "canceled",
    });
  });

  it("BFL (no cancel): nothing is sent but the last read, and the task fails model_timeout, refunded", async () => {
    const { t, tag, id, task } = await pastDeadline("bfl", ["#fake:slow"]);
    expect(task.status).toBe("failed");
    expect(task.error.code).toBe("model_timeout");
    expect(task.error.message).toContain("could not stop the job");
    await expectRefunded(t, task, "1000");
    expect(count(await fakeRequests("bfl", tag), "cancel")).toBe(0);
    expect((await taskEvents(id)).find((e) => e.kind === "provider_cancel")?.detail).toEqual({
      reason: "deadline",
      answer: "not_cancelable",
    });
  });
});
