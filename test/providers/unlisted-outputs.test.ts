/**
 * Outputs stored for a task that then did not succeed are in no envelope, so no expiry would delete
 * them: once the outcome is decided they are deleted from R2 at once. Here fal's result names two
 * images and the second URL is gone (the fake's `partial_output`): the first is stored on every
 * download attempt, the task fails `model_output_invalid`, and the first image's bytes are gone too.
 */
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { artifactId, artifactKey } from "../../src/media/artifacts";
import { newTenant } from "../helpers/api";
import { taskEvents } from "../helpers/tasks";
import { count, create, expectRefunded, fakeRequests, follow, newTag } from "./harness";

const flux = {
  provider: "fal",
  path: "/v1/images/generations",
  body: (text: string) => ({
    model: "gpt-image-2",
    prompt: text,
    count: 2,
    canvas: { type: "preset", tier: "1K", aspect: "1:1" },
  }),
};

it("a task whose later output could not be downloaded keeps none of the outputs it stored", async () => {
  const t = await newTenant({ credits: "1000" });
  const tag = newTag("unlisted-outputs");
  const created = await create(t, flux, tag, ["#fake:partial_output"]);
  expect(created.provider.name).toBe("fal");
  const { task } = await follow(t, created.task_id);
  expect(task.status, JSON.stringify(task)).toBe("failed");
  expect(task.error.code).toBe("model_output_invalid");
  expect(task.output).toBeNull();
  // The first image was downloaded (and stored) on each attempt before the second failed.
  expect(count(await fakeRequests("fal", tag), "download")).toBeGreaterThanOrEqual(2);
  const first = await artifactId(task.task_id, 0, "image");
  expect(await env.ARTIFACTS.head(artifactKey(first))).toBeNull();
  expect(await env.ARTIFACTS.head(artifactKey(await artifactId(task.task_id, 1, "image")))).toBeNull();
  const events = await taskEvents(task.task_id);
  expect(events.some((e: { kind: string }) => e.kind === "unlisted_outputs_deleted")).toBe(true);
  await expectRefunded(t, task, "1000");
});
