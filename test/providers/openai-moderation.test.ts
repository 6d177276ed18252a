/**
 * Content review with OpenAI's moderation endpoint: the adapter against the fake of
 * test/providers/fakes/openai-moderation.ts (OpenAI's documented wire format: flagged, clean,
 * 429 with retry headers, 500, slow beyond the timeout, malformed), then admission through the
 * Worker configured with SAFETY_PROVIDER=openai: pointers to text fields and image inputs, the
 * tenant's stricter policy, both failure modes, and refusals and replays answered without a
 * second review.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { ModerationUnavailable, type ReviewItem } from "../../src/safety/provider";
import { OpenAIModeration, TEXT_PIECE_CHARS, textPieces } from "../../src/safety/providers/openai-moderation";
import { admin, newTenant } from "../helpers/api";
import { dataUri, png } from "../helpers/media-fixtures";
import { accountState, createWith, safetyOf } from "../helpers/safety";
import { newKey } from "../helpers/tasks";
import { fakeRequests, newTag } from "./harness";

const vars = env as unknown as Record<string, string>;
const moderation = () => new OpenAIModeration({ apiKey: vars.SAFETY_API_KEY as string, url: vars.SAFETY_API_URL as string });
const soon = (ms = 3000) => Date.now() + ms;
const requests = (tag: string) => fakeRequests("openai-moderation", tag);
const text = (param: string, t: string): ReviewItem => ({ kind: "text", param, text: t });

async function unavailable(p: Promise<unknown>): Promise<ModerationUnavailable> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ModerationUnavailable) return e;
    throw e;
  }
  throw new Error("the review gave a verdict");
}

describe("the adapter", () => {
  it("sends the texts in one call, in order, and reads one result per text", async () => {
    const tag = newTag("texts");
    const result = await moderation().review(
      [text("/prompt", `a calm lake #tag:${tag}`), text("/negative_prompt", "#moderation:flag=hate")],
      soon(),
    );
    expect(result.unreviewed).toEqual([]);
    expect(result.verdicts.map((v) => [v.param, v.flagged])).toEqual([
      ["/prompt", []],
      ["/negative_prompt", ["hate"]],
    ]);
    expect(result.verdicts[1]?.scores.hate).toBe(0.97);
    expect(Object.keys(result.verdicts[0]?.scores ?? {})).toHaveLength(13);
    const [sent] = await requests(tag);
    expect(sent?.authorization).toBe(`Bearer ${vars.SAFETY_API_KEY}`);
    expect(sent?.body).toEqual({ model: "omni-moderation-latest", input: [`a calm lake #tag:${tag}`, "#moderation:flag=hate"] });
  });

  it("reviews a long text in overlapping pieces and keeps the worst of them", async () => {
    const tag = newTag("long");
    const long = `#tag:${tag} ${"calm water ".repeat(1500)} #moderation:flag=violence`;
    expect(long.length).toBeGreaterThan(TEXT_PIECE_CHARS);
    const pieces = textPieces(long);
    expect(pieces.length).toBeGreaterThan(1);
    const result = await moderation().review([text("/prompt", long)], soon());
    expect(result.verdicts[0]?.flagged).toEqual(["violence"]);
    const [sent] = await requests(tag);
    expect(sent?.body.input).toEqual(pieces);
  });

  it("sends each image alone as a data URL of its bytes, and leaves formats it does not take unreviewed", async () => {
    const flagged = await png(66, 40);
    const clean = await png(41, 40);
    const result = await moderation().review(
      [
        { kind: "image", param: "/images/0", bytes: clean, mime: "image/png" },
        { kind: "image", param: "/images/1", bytes: flagged, mime: "image/png" },
        { kind: "image", param: "/images/2", bytes: new Uint8Array(10), mime: "image/avif" },
      ],
      soon(),
    );
    expect(result.verdicts.map((v) => [v.param, v.flagged])).toEqual([
      ["/images/0", []],
      ["/images/1", ["violence"]],
    ]);
    expect(result.unreviewed).toEqual(["/images/2"]);
    const [sent] = await requests("image-66x40");
    expect(sent?.body.input).toEqual([{ type: "image_url", image_url: { url: dataUri("image/png", flagged) } }]);
    expect(await requests("image-41x40")).toHaveLength(1);
  });

  it("waits out a 429's retry-after within the review's time, then has its verdict", async () => {
    const tag = newTag("429");
    const result = await moderation().review([text("/prompt", `#tag:${tag} #moderation:429 calm`)], soon());
    expect(result.verdicts[0]?.flagged).toEqual([]);
    expect(await requests(tag)).toHaveLength(2);
  });

  it("gives up at once on a 429 asking for longer than the review may take", async () => {
    const tag = newTag("429-always");
    const e = await unavailable(moderation().review([text("/prompt", `#tag:${tag} #moderation:429_always`)], soon()));
    expect(e.reason).toBe("rate_limited");
    expect(e.message).toContain("429");
    expect(await requests(tag)).toHaveLength(1);
  });

  it("retries a 500, and reports a provider that keeps failing", async () => {
    const once = newTag("500");
    expect((await moderation().review([text("/prompt", `#tag:${once} #moderation:500`)], soon())).verdicts).toHaveLength(1);
    expect(await requests(once)).toHaveLength(2);
    const always = newTag("500-always");
    const e = await unavailable(moderation().review([text("/prompt", `#tag:${always} #moderation:500_always`)], soon()));
    expect(e.reason).toBe("upstream_error");
    expect(await requests(always)).toHaveLength(3);
  });

  it("stops waiting for a slow answer at the deadline", async () => {
    const e = await unavailable(moderation().review([text("/prompt", `#tag:${newTag("slow")} #moderation:slow`)], soon(300)));
    expect(e.reason).toBe("timeout");
  });

  it("does not take an answer in another shape, or a refused credential, as a verdict", async () => {
    const malformed = await unavailable(moderation().review([text("/prompt", "#moderation:malformed")], soon()));
    expect(malformed.reason).toBe("malformed");
    const tag = newTag("bad-key");
    const wrong = new OpenAIModeration({ apiKey: "sk-wrong-0123456789abcdef", url: vars.SAFETY_API_URL as string });
    const refused = await unavailable(wrong.review([text("/prompt", `#tag:${tag} hi`)], soon()));
    expect(refused.reason).toBe("upstream_error");
    expect(refused.message).not.toContain("sk-wrong-0123456789abcdef");
    expect(await requests(tag)).toHaveLength(1);
  });
});

const OPENAI: Partial<Env> = { SAFETY_PROVIDER: "openai" };

const create = createWith;

describe("admission with SAFETY_PROVIDER=openai", () => {
  it("refuses a flagged prompt with its pointer and categories; nothing is charged", async () => {
    const t = await newTenant({ credits: "1000" });
    const before = await accountState(t.tenant_id);
    const res = await create(OPENAI, t.api_key, { prompt: `a scene #moderation:flag=violence #tag:${newTag("e2e")}` });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({
      code: "safety_rejected",
      param: "/prompt",
      details: {
        categories: ["violence"],
        recovery: { action: "change_input", requires_input_change: true, client_request_id: "new" },
      },
    });
    expect(await accountState(t.tenant_id)).toEqual(before);
  });

  it("points at a flagged image input, reviewed from the bytes admission fetched", async () => {
    const t = await newTenant({ credits: "1000" });
    const images = [
      { type: "data_uri", data_uri: dataUri("image/png", await png(64, 64)) },
      { type: "data_uri", data_uri: dataUri("image/png", await png(66, 64)) },
    ];
    const res = await create(OPENAI, t.api_key, { prompt: "the same sky", images }, newKey(), "/v1/images/image-to-image");
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code: "safety_rejected", param: "/images/1", details: { categories: ["violence"] } });
  });

  it("answers a refused key's retry with the same refusal, and a committed task's replay, without another review", async () => {
    const t = await newTenant({ credits: "1000" });
    const refusedTag = newTag("refused-once");
    const key = newKey();
    const body = { prompt: `#tag:${refusedTag} #moderation:flag=sexual` };
    const first = await create(OPENAI, t.api_key, body, key);
    const again = await create(OPENAI, t.api_key, body, key);
    expect([first.status, again.status]).toEqual([400, 400]);
    expect(again.json.error.message).toBe(first.json.error.message);
    expect(await requests(refusedTag)).toHaveLength(1);
    expect((await create(OPENAI, t.api_key, { prompt: `#tag:${refusedTag} calm` }, key)).json.error.code).toBe(
      "idempotency_conflict",
    );

    const admittedTag = newTag("admitted-once");
    const okKey = newKey();
    const created = await create(OPENAI, t.api_key, { prompt: `#tag:${admittedTag} a calm lake` }, okKey);
    const replay = await create(OPENAI, t.api_key, { prompt: `#tag:${admittedTag} a calm lake` }, okKey);
    expect([created.status, replay.status]).toEqual([202, 202]);
    expect(replay.json.task_id).toBe(created.json.task_id);
    expect(await requests(admittedTag)).toHaveLength(1);
    expect(await safetyOf(created.json.task_id)).toMatchObject({ provider: "openai", outcome: "passed", unreviewed: [] });
  });

  it("applies the tenant's stricter policy to what the provider scores but does not flag", async () => {
    const t = await newTenant({ credits: "1000" });
    const body = () => ({ prompt: `a fight scene #moderation:score=violence:0.4 #tag:${newTag("policy")}` });
    const admitted = await create(OPENAI, t.api_key, body());
    expect(admitted.status, admitted.text).toBe(202);
    expect((await safetyOf(admitted.json.task_id)).max_scores.violence).toBe(0.4);

    await admin(`/admin/v1/tenants/${t.tenant_id}/safety`, { enabled: true, block_categories: ["violence"] }, "PUT");
    const blocked = await create(OPENAI, t.api_key, body());
    expect(blocked.status, blocked.text).toBe(400);
    expect(blocked.json.error.details.categories).toEqual(["violence"]);

    await admin(
      `/admin/v1/tenants/${t.tenant_id}/safety`,
      { enabled: true, block_categories: ["violence"], thresholds: { violence: 0.5 } },
      "PUT",
    );
    expect((await create(OPENAI, t.api_key, body())).status).toBe(202);

    await admin(`/admin/v1/tenants/${t.tenant_id}/safety`, { enabled: false }, "PUT");
    const off = await create(OPENAI, t.api_key, { prompt: `#moderation:flag=violence #tag:${newTag("off")}` });
    expect(off.status, off.text).toBe(202);
    expect(await safetyOf(off.json.task_id)).toMatchObject({ outcome: "off" });
  });

  it("fails closed on a slow provider and open on a failing one", async () => {
    const t = await newTenant({ credits: "1000" });
    const closed = await create({ ...OPENAI, SAFETY_TIMEOUT_MS: "300" }, t.api_key, {
      prompt: `#moderation:slow #tag:${newTag("closed")}`,
    });
    expect(closed.status, closed.text).toBe(503);
    expect(closed.json.error).toMatchObject({ code: "model_unavailable", retryable: true });
    expect((await accountState(t.tenant_id)).reservations).toBe(0);

    const open = await create({ ...OPENAI, SAFETY_FAILURE_MODE: "open" }, t.api_key, {
      prompt: `#moderation:500_always #tag:${newTag("open")}`,
    });
    expect(open.status, open.text).toBe(202);
    expect(open.json.warnings).toContainEqual(expect.objectContaining({ code: "safety_review_skipped", field: "" }));
    expect(await safetyOf(open.json.task_id)).toMatchObject({ outcome: "skipped", skipped_reason: "upstream_error" });
  });

  it("keeps a test-mode key on the built-in reviewer: nothing reaches the endpoint", async () => {
    const t = await newTenant({ mode: "test" });
    const tag = newTag("test-key");
    const res = await create(OPENAI, t.api_key, { prompt: `#tag:${tag} #moderation:flag=violence a calm lake` });
    expect(res.status, res.text).toBe(202);
    expect(await requests(tag)).toHaveLength(0);
    expect((await create(OPENAI, t.api_key, { prompt: "sandbox-unsafe-test" })).json.error.code).toBe("safety_rejected");
  });
});
