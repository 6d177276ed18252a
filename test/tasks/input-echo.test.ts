/**
 * The envelope's `input` echoes every data URI input, at any depth and in every operation, as
 * `{type: "data_uri", media_type, bytes, sha256}` and never its payload; the idempotency hash
 * still covers the body as sent, so a different data URI under the same key is a conflict.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/crypto";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { dataUri, png, wav } from "../helpers/media-fixtures";
import { newKey } from "../helpers/tasks";
import { held, PATHS } from "../operations/requests";

let t: TestTenant;
let modelOf: (capability: string, predicate?: (card: any) => boolean) => string;
beforeAll(async () => {
  t = await newTenant({ credits: "100000" });
  const details: Record<string, any> = {};
  for (const cap of ["frames_to_video", "reference_to_video", "image_to_image"])
    details[cap] = (await call(`/v1/catalog/capabilities/${cap}`, { key: t.api_key })).json;
  modelOf = (capability, predicate = () => true) => details[capability].models.find(predicate).model;
});

const post = (capability: string, body: unknown, key = newKey()) =>
  call(PATHS[capability] as string, { key: t.api_key, body: held(body), headers: { "Idempotency-Key": key } });

async function summary(mime: string, bytes: Uint8Array) {
  return { type: "data_uri", media_type: mime, bytes: bytes.length, sha256: await sha256Hex(bytes) };
}

describe("the envelope's input echo", () => {
  it("summarises images[] and keeps every other field as sent", async () => {
    const a = await png(512, 512);
    const body = {
      model: modelOf("image_to_image"),
      prompt: "autumn",
      images: [{ type: "data_uri", data_uri: dataUri("image/png", a) }],
    };
    const res = await post("image_to_image", body);
    expect(res.status, res.text).toBe(202);
    expect(res.json.input).toEqual({ model: body.model, prompt: "autumn", images: [await summary("image/png", a)] });
    expect(res.text).not.toContain("base64");
  });

  it("summarises first_frame, last_frame and driving_audio", async () => {
    const first = await png(512, 512);
    const last = await png(512, 512, true);
    const audio = wav(2);
    const model = modelOf("frames_to_video", (c) => c.inputs.some((i: any) => i.field === "driving_audio"));
    const res = await post("frames_to_video", {
      model,
      first_frame: { type: "data_uri", data_uri: dataUri("image/png", first) },
      last_frame: { type: "data_uri", data_uri: dataUri("image/png", last) },
      driving_audio: { type: "data_uri", data_uri: dataUri("audio/wav", audio) },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.json.input.first_frame).toEqual(await summary("image/png", first));
    expect(res.json.input.last_frame).toEqual(await summary("image/png", last));
    expect(res.json.input.driving_audio).toEqual(await summary("audio/wav", audio));
    expect(res.text).not.toContain("base64");
  });

  it("summarises references[].media by what the bytes are, not what the URI declares", async () => {
    const image = await png(512, 512);
    const res = await post("reference_to_video", {
      model: modelOf("reference_to_video"),
      prompt: "the subject walks on a beach",
      references: [{ kind: "image", media: { type: "data_uri", data_uri: dataUri("image/jpeg", image) }, role: "subject" }],
    });
    expect(res.status, res.text).toBe(202);
    expect(res.json.input.references[0]).toEqual({ kind: "image", role: "subject", media: await summary("image/png", image) });
  });

  it("a different data URI under the same Idempotency-Key is a conflict; the same one is a replay", async () => {
    const key = newKey();
    const model = modelOf("image_to_image");
    const one = await png(512, 512);
    const other = await png(512, 512, true);
    const body = (bytes: Uint8Array) => ({
      model,
      prompt: "x",
      images: [{ type: "data_uri", data_uri: dataUri("image/png", bytes) }],
    });
    const first = await post("image_to_image", body(one), key);
    expect(first.status, first.text).toBe(202);
    const replay = await post("image_to_image", body(one), key);
    expect(replay.status).toBe(202);
    expect(replay.json.task_id).toBe(first.json.task_id);
    expectError(await post("image_to_image", body(other), key), 409, "idempotency_conflict");
  });
});
