import { decode } from "fast-png";
import jpeg from "jpeg-js";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, expectLedgerBalanced, getTask, newKey, waitFor } from "../helpers/tasks";

let t: TestTenant;
let model: { model: string; card: any };
let extra: Record<string, unknown> = {};
beforeAll(async () => {
  t = await newTenant({ credits: "100000" });
  const detail = await call("/v1/catalog/capabilities/text_to_image", { key: t.api_key });
  const card = detail.json.models.find(
    (m: any) =>
      m.controls.some((c: any) => c.field === "seed") &&
      m.controls.some((c: any) => c.field === "count" && (c.allowed_values ?? []).includes(2)),
  );
  model = { model: card.model, card };
  // Some models make several images only as a sequence (a card rule): ask for what the card allows.
  extra = card.rules.some((r: any) => r.effect.field === "output_relationship") ? { output_relationship: "sequence" } : {};
});

const ENVELOPE_FIELDS = [
  "object",
  "task_id",
  "status",
  "capability",
  "model",
  "resolved_model",
  "metadata",
  "input",
  "progress",
  "output",
  "warnings",
  "usage",
  "billing",
  "created_at",
  "started_at",
  "deadline_at",
  "completed_at",
  "cancel_requested_at",
  "links",
];

describe("POST /v1/images/generations", () => {
  it("202 with the full queued envelope, then real PNGs of the card's dimensions", async () => {
    const res = await createImage(t, {
      model: model.model,
      prompt: "a red fox in snow",
      count: 2,
      seed: 7,
      metadata: { order: "42" },
      ...extra,
    });
    expect(res.status, res.text).toBe(202);
    const task = res.json;
    for (const f of ENVELOPE_FIELDS) expect(task, f).toHaveProperty(f);
    expect(task).toMatchObject({
      object: "task",
      status: "queued",
      capability: "text_to_image",
      model: model.model,
      resolved_model: model.model,
    });
    expect(task.task_id).toMatch(/^task_[0-9a-f]{64}$/);
    expect(task.metadata).toEqual({ order: "42" });
    expect(task.progress).toMatchObject({ percent: 0, stage: "queued" });
    expect(task.links.self).toBe(`https://api.test/v1/tasks/${task.task_id}`);
    expect(task.links.cancel).toBe(`${task.links.self}/cancel`);
    expect(task.links.assets).toBe(`${task.links.self}/assets`);
    expect(Date.parse(task.deadline_at)).toBeGreaterThan(Date.parse(task.created_at));
    expect(task.billing.charged_credits).not.toBe("0");

    const done = await waitFor(t, task.task_id);
    expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
    expect(done.progress).toMatchObject({ percent: 100, stage: "completed" });
    expect(done.started_at).toBeTruthy();
    expect(done.completed_at).toBeTruthy();
    const [w, h] = model.card.canvas.presets["2K"]["16:9"];
    expect(done.output.images).toHaveLength(2);
    for (const img of done.output.images) {
      expect(img).toMatchObject({ content_type: model.card.outputs.format, width: w, height: h });
      const file = await call(new URL(img.url).pathname, { key: t.api_key });
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe(model.card.outputs.format);
    }
    const bytes = new Uint8Array(await (await fetchArtifact(done.output.images[0].url)).arrayBuffer());
    expect(bytes.byteLength).toBe(done.output.images[0].bytes);
    const png = model.card.outputs.format === "image/jpeg" ? jpeg.decode(bytes) : decode(bytes);
    expect([png.width, png.height]).toEqual([w, h]);
    expect(done.output.provider).toMatchObject({ name: "sandbox", simulated: true });
    expect(done.usage).toMatchObject({ image_count: 2, image_pixels: 2 * w * h });
    expect(done.usage.lines).toEqual([
      { meter: "image_count", quantity: "2", unit: "image", billed_amount_credits: done.usage.credits },
    ]);
    expect(done.billing.net_charged_credits).toBe(done.usage.credits);
    await expectLedgerBalanced(t.tenant_id);
  });

  it("is deterministic for a seed", async () => {
    const square = { type: "preset", tier: "1K", aspect: "1:1" };
    const seeded = async (seed: number) =>
      waitFor(t, (await createImage(t, { model: model.model, prompt: "same", seed, canvas: square })).json.task_id);
    const a = await seeded(1);
    const b = await seeded(1);
    const c = await seeded(2);
    const bytes = async (task: any) => new Uint8Array(await (await fetchArtifact(task.output.images[0].url)).arrayBuffer());
    expect(await bytes(a)).toEqual(await bytes(b));
    expect(await bytes(a)).not.toEqual(await bytes(c));
  });

  it("auto resolves to a concrete model and persists it", async () => {
    const res = await createImage(t, { prompt: "a lighthouse" });
    expect(res.status, res.text).toBe(202);
    expect(res.json.model).toBe("auto");
    expect(res.json.resolved_model).not.toBe("auto");
    expect((await getTask(t, res.json.task_id)).json.resolved_model).toBe(res.json.resolved_model);
  });

  it("serves artifacts to their owner only, with byte ranges", async () => {
    const done = await waitFor(
      t,
      (await createImage(t, { model: model.model, prompt: "owner", canvas: { type: "preset", tier: "1K", aspect: "1:1" } })).json
        .task_id,
    );
    const path = new URL(done.output.images[0].url).pathname;
    const part = await call(path, { key: t.api_key, headers: { Range: "bytes=0-7" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toMatch(/^bytes 0-7\/\d+$/);
    const other = await newTenant();
    expectError(await call(path, { key: other.api_key }), 404, "artifact_not_found");
    expectError(await call("/v1/artifacts/art_nope", { key: t.api_key }), 404, "artifact_not_found");
    expectError(await getTask(other, done.task_id), 404, "task_not_found");
    const assets = await call(`/v1/tasks/${done.task_id}/assets`, { key: t.api_key });
    expect(assets.json.data.map((a: any) => a.artifact_id)).toEqual([done.output.images[0].artifact_id]);
  });

  it("404 task_not_found for unknown or malformed task ids", async () => {
    expectError(await getTask(t, `task_${"0".repeat(64)}`), 404, "task_not_found");
    expectError(await getTask(t, "task_nope"), 404, "task_not_found");
  });
});

async function fetchArtifact(url: string) {
  const { exports } = await import("cloudflare:workers");
  return exports.default.fetch(new Request(url, { headers: { Authorization: `Bearer ${t.api_key}` } }));
}

describe("request validation", () => {
  it.each([
    [{}, "/prompt"],
    [{ prompt: "   " }, "/prompt"],
    [{ prompt: "x", count: 5 }, "/count"],
    [{ prompt: "x", count: 0 }, "/count"],
    [{ prompt: "x", count: 1.5 }, "/count"],
    [{ prompt: "x", canvas: { type: "preset", tier: "2K", aspect: "wide" } }, "/canvas/aspect"],
    [{ prompt: "x", output_relationship: "random" }, "/output_relationship"],
    [{ prompt: "x", enhance_prompt: "yes" }, "/enhance_prompt"],
    [{ prompt: "x", unknown_field: 1 }, "/unknown_field"],
    [{ prompt: "x", metadata: { "a/b": "x".repeat(513) } }, "/metadata/a~1b"],
    [{ prompt: "x", metadata: { ["k".repeat(65)]: "v" } }, `/metadata/${"k".repeat(65)}`],
    [{ prompt: "x", metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])) }, "/metadata"],
    [
      {
        prompt: "x",
        palette: [
          { color: "#ff0000", weight: 0.5 },
          { color: "#00ff00", weight: 0.5 },
        ],
      },
      "/palette",
    ],
    [
      {
        prompt: "x",
        palette: [
          { color: "#ff0000", weight: 0.5 },
          { color: "#00ff00", weight: 0.3 },
          { color: "#0000ff", weight: 0.1 },
        ],
      },
      "/palette",
    ],
    [
      {
        prompt: "x",
        palette: [
          { color: "red", weight: 0.5 },
          { color: "#00ff00", weight: 0.3 },
          { color: "#0000ff", weight: 0.2 },
        ],
      },
      "/palette/0/color",
    ],
  ])("422 invalid_request for %j at %s", async (body, param) => {
    const before = (await admin(`/admin/v1/tenants/${t.tenant_id}`)).json.balance;
    expectError(await createImage(t, body), 422, "invalid_request", param);
    expect((await admin(`/admin/v1/tenants/${t.tenant_id}`)).json.balance).toBe(before);
  });

  it("palette weights are decimals: 0.1 + 0.2 + 0.7 is exactly 1", async () => {
    const body = {
      prompt: "x",
      palette: [
        { color: "#ff0000", weight: 0.1 },
        { color: "#00ff00", weight: 0.2 },
        { color: "#0000ff", weight: 0.7 },
      ],
    };
    const res = await createImage(t, body);
    // Accepted structurally; a model without palette support answers with the catalog's code.
    expect([202, 422]).toContain(res.status);
    if (res.status === 422) expect(["no_eligible_model", "unsupported_option"]).toContain(res.json.error.code);
  });

  it("Idempotency-Key is required, 1 to 128 characters, and named in the error", async () => {
    let e = expectError(await createImage(t, { prompt: "x" }, null), 422, "invalid_request");
    expect(e.details.errors[0].loc).toEqual(["header", "idempotency-key"]);
    e = expectError(await createImage(t, { prompt: "x" }, "k".repeat(129)), 422, "invalid_request");
    expect(e.message).toContain("Idempotency-Key");
    expect((await createImage(t, { prompt: "x" }, "k".repeat(128))).status).toBe(202);
  });

  it("unknown model: 400 unsupported_model; a model of another capability too", async () => {
    expectError(await createImage(t, { model: "no-such-model", prompt: "x" }), 400, "unsupported_model", "/model");
  });

  it("needs tasks:write", async () => {
    const reader = await newTenant({ permissions: ["tasks:read"] });
    expectError(await createImage(reader, { prompt: "x" }), 403, "forbidden");
  });
});

describe("credits", () => {
  it("402 insufficient_balance starts nothing and charges nothing", async () => {
    const poor = await newTenant({ credits: "0.01" });
    const e = expectError(await createImage(poor, { prompt: "x" }), 402, "insufficient_balance");
    expect(e.details.balance).toBe("0.01");
    expect((await call("/v1/tasks", { key: poor.api_key })).json.data).toEqual([]);
    const l = await expectLedgerBalanced(poor.tenant_id);
    expect(l.reservations).toBe(0);
  });
});

describe("idempotency", () => {
  it("same key and body: the original 202 again, charged once", async () => {
    const key = newKey();
    const body = { prompt: "idem", count: 1, metadata: { a: "1", b: "2" } };
    const first = await createImage(t, body, key);
    const again = await createImage(t, { metadata: { b: "2", a: "1" }, count: 1, prompt: "idem" }, key);
    expect(again.status).toBe(202);
    expect(again.json.task_id).toBe(first.json.task_id);
    const l = await expectLedgerBalanced(t.tenant_id);
    const mine = (await call("/v1/tasks?limit=100", { key: t.api_key })).json.data.filter(
      (x: any) => x.task_id === first.json.task_id,
    );
    expect(mine).toHaveLength(1);
    expect(l.reservations).toBeGreaterThan(0);
  });

  it("same key, different body: 409 idempotency_conflict", async () => {
    const key = newKey();
    await createImage(t, { prompt: "one" }, key);
    expectError(await createImage(t, { prompt: "two" }, key), 409, "idempotency_conflict");
  });

  it("keys are scoped per tenant", async () => {
    const key = newKey();
    const other = await newTenant();
    const a = await createImage(t, { prompt: "scoped" }, key);
    const b = await createImage(other, { prompt: "scoped" }, key);
    expect(a.json.task_id).not.toBe(b.json.task_id);
  });

  it("a rejected request does not use up its key", async () => {
    const key = newKey();
    expectError(await createImage(t, { prompt: "x", model: "no-such-model" }, key), 400, "unsupported_model");
    expect((await createImage(t, { prompt: "x" }, key)).status).toBe(202);
  });
});
