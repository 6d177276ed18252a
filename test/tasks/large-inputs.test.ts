/**
 * Inputs never live in a task's record: an inline image the card allows (about 8 MB encoded) is
 * admitted, kept in R2 and echoed by reference, and replays answer the same; a request whose task
 * could never be stored is refused at once, non-retryable, with nothing reserved.
 */

import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error";
import { sha256Hex } from "../../src/lib/crypto";
import { encodePng } from "../../src/media/png";
import type { TaskPlan } from "../../src/task-record/record";
import { checkRecordSize, MAX_TASK_PLAN_BYTES } from "../../src/tasks/admit";
import { echoInput } from "../../src/tasks/input-echo";
import { call, newTenant } from "../helpers/api";
import { dataUri } from "../helpers/media-fixtures";
import { ledger, newKey, taskStub } from "../helpers/tasks";

/** A PNG that does not compress: noise, about 3 bytes per pixel. */
async function noisePng(width: number, height: number): Promise<Uint8Array> {
  const px = new Uint8Array(width * height * 3);
  let x = 0x9e3779b9;
  for (let i = 0; i < px.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    px[i] = x & 255;
  }
  return encodePng(width, height, px, 3);
}

describe("large inline inputs", () => {
  it("admits an ~8 MB data-URI image the card allows, storing a reference, not the bytes", async () => {
    const t = await newTenant({ credits: "500" });
    const image = await noisePng(1400, 1400);
    const uri = dataUri("image/png", image);
    expect(uri.length).toBeGreaterThan(7_500_000);
    const key = newKey();
    const body = { model: "flux-2-pro", prompt: "make it blue", images: [{ type: "data_uri", data_uri: uri }] };
    const res = await call("/v1/images/edits", { key: t.api_key, body, headers: { "Idempotency-Key": key } });
    expect(res.status, res.text.slice(0, 300)).toBe(202);
    expect(res.text.length).toBeLessThan(200_000);
    expect(res.json.input.images[0]).toEqual({
      type: "data_uri",
      media_type: "image/png",
      bytes: image.length,
      sha256: await sha256Hex(image),
    });
    const stored = await runInDurableObject(taskStub(res.json.task_id), async (_o, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT length(record) AS n FROM task WHERE id = 1").one(),
    );
    expect(stored.n).toBeLessThan(MAX_TASK_PLAN_BYTES);
    // The same key and body: the same task, nothing reserved twice.
    const again = await call("/v1/images/edits", { key: t.api_key, body, headers: { "Idempotency-Key": key } });
    expect(again.status).toBe(202);
    expect(again.json.task_id).toBe(res.json.task_id);
    const l = (await ledger(t.tenant_id)) as any;
    expect(l.recomputed).toEqual(l.totals);
  });

  it("echoes inline media of any depth as a summary and leaves everything else as sent", async () => {
    const long = `data:image/png;base64,${"A".repeat(1000)}`;
    const zeros = new Uint8Array(750);
    expect(
      await echoInput({ a: [{ b: long }], m: { x: { type: "data_uri", data_uri: long } }, c: "data:,short", d: 1, e: null }),
    ).toEqual({
      a: [{ b: "data:image/png;base64,[1022 characters, not echoed]" }],
      m: { x: { type: "data_uri", media_type: "image/png", bytes: 750, sha256: await sha256Hex(zeros) } },
      c: "data:,short",
      d: 1,
      e: null,
    });
  });

  it("refuses a task that could never be stored with a non-retryable 422", () => {
    const plan = { request: { prompt: "x".repeat(MAX_TASK_PLAN_BYTES) } } as unknown as TaskPlan;
    let error: unknown;
    try {
      checkRecordSize(plan);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("invalid_request");
    expect((error as ApiError).status).toBe(422);
    expect(() => checkRecordSize({ request: { prompt: "short" } } as unknown as TaskPlan)).not.toThrow();
  });
});
