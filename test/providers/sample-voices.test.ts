/**
 * Sample voices exist only in the simulator: where a real upstream serves the speech model, a live
 * key cannot select them (422 voice_model_incompatible naming the voice); a test key still can.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, newTenant } from "../helpers/api";
import { newKey } from "../helpers/tasks";

const body = { model: "speech-2.8-hd", voice: "clone_demo_fr_animateur", input: "Bonjour à tous." };

describe("sample voices", () => {
  it("are refused for a live key when a real upstream would speak", async () => {
    const t = await newTenant({ credits: "10" });
    const res = await call("/v1/audio/speech", { key: t.api_key, body, headers: { "Idempotency-Key": newKey() } });
    const e = expectError(res, 422, "voice_model_incompatible", "/voice");
    expect(e.message).toContain("clone_demo_fr_animateur");
    expect(e.details).toMatchObject({ voice_id: "clone_demo_fr_animateur", reason: "sample_voice" });
  });

  it("are spoken by the sandbox for a test key", async () => {
    const t = await newTenant({ mode: "test" });
    const res = await call("/v1/audio/speech", { key: t.api_key, body, headers: { "Idempotency-Key": newKey() } });
    expect(res.status).toBe(202);
    expect(res.json.provider.name).toBe("sandbox");
  });
});
