/**
 * Voice previews are served by the service itself (no example or third-party domain), playable
 * without a key; sample voices are marked as such.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { probeMedia } from "../../src/media/probe";
import { call, newTenant } from "../helpers/api";

describe("voice previews", () => {
  it("point at this service and play as MP3 without a key", async () => {
    const t = await newTenant();
    const voices = (await call("/v1/voices", { key: t.api_key })).json.data as { voice_id: string; preview_url: string }[];
    expect(voices.length).toBeGreaterThan(10);
    for (const v of voices) expect(v.preview_url).toBe(`${env.PUBLIC_BASE_URL}/voices/${encodeURIComponent(v.voice_id)}/preview`);
    const v = voices[0] as { preview_url: string };
    const res = await exports.default.fetch(new Request(v.preview_url));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("audio/mpeg");
    const facts = probeMedia(new Uint8Array(await res.arrayBuffer()), "/preview");
    expect(facts).toMatchObject({ kind: "audio", mime: "audio/mpeg" });
    expect(facts.duration_seconds).toBeGreaterThan(0.5);
    // Made once, then served from storage: the same bytes again.
    const again = await exports.default.fetch(new Request(v.preview_url));
    expect(again.headers.get("content-length")).toBe(res.headers.get("content-length"));
    expect((await exports.default.fetch(new Request(`${env.PUBLIC_BASE_URL}/voices/nope/preview`))).status).toBe(404);
  });

  it("marks the cloned-voice demos as samples", async () => {
    const t = await newTenant();
    const demo = (await call("/v1/voices/clone_demo_fr_animateur", { key: t.api_key })).json;
    expect(demo).toMatchObject({ category: "cloned", sample: true });
    const preset = (await call("/v1/voices/English_radiant_girl", { key: t.api_key })).json;
    expect(preset.sample).toBeUndefined();
  });
});
