/**
 * Every operation, quoted from its documented example and then created under the quote: the quote
 * prices each dimension its card prices (count, size, duration, resolution, audio, characters,
 * tokens) as the meters the finished task's usage.lines bill, and the task costs at most the quote.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { dec } from "../../src/lib/decimal";
import { putArtifact } from "../../src/media/artifacts";
import { OPERATIONS } from "../../src/operations";
import { EXAMPLE_VIDEO_ARTIFACT_ID } from "../../src/operations/examples";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { mp4 } from "../helpers/media-fixtures";
import { expectLedgerBalanced, newKey, taskEvents, waitFor } from "../helpers/tasks";

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "100000" });
  // The video examples name an artifact of the caller's: this tenant has one under that id.
  await putArtifact(env.ARTIFACTS, EXAMPLE_VIDEO_ARTIFACT_ID, mp4(5, 1280, 720), {
    tenant_id: t.tenant_id,
    task_id: "fixture",
    content_type: "video/mp4",
  });
});

describe("quoted meters", () => {
  it.each(OPERATIONS.map((spec) => [spec.capability, spec] as const))(
    "%s: the quote's lines are the meters its task bills, and the task costs at most the quote",
    async (_capability, spec) => {
      const [example] = Object.values(spec.examples);
      const body = example?.value as Record<string, unknown>;
      const quoted = await call("/v1/quotes", { key: t.api_key, body: { operation: spec.capability, request: body } });
      expect(quoted.status, quoted.text).toBe(201);
      const q = quoted.json;
      expect(dec(q.credits).gt(0)).toBe(true);
      const made = await call(spec.path, {
        key: t.api_key,
        body: { ...body, quote_id: q.quote_id },
        headers: { "Idempotency-Key": newKey() },
      });
      expect(made.status, made.text).toBe(202);
      expect(made.json.resolved_model).toBe(q.resolved_model);
      expect((await taskEvents(made.json.task_id)).find((e) => e.kind === "reserve")?.detail.amount).toBe(q.credits);
      const done = await waitFor(t, made.json.task_id);
      expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
      expect(done.usage.lines.map((l: any) => [l.meter, l.unit])).toEqual(q.lines.map((l: any) => [l.meter, l.unit]));
      expect(dec(done.usage.credits).lte(q.credits)).toBe(true);
    },
  );

  it("leaves the ledger exact", async () => {
    await expectLedgerBalanced(t.tenant_id);
  });
});
