/**
 * Voice previews, served by this service: a short clip in the voice's character, made once by the
 * built-in synthesizer (the sandbox Worker, over its binding) and kept in R2. Public (players fetch them without a key), like the
 * catalog's own sample media; they say nothing a voice list does not.
 */
import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { STORED_BYTES_HEADERS } from "../../http/stored-bytes";
import { hash32 } from "../../lib/random";
import { loadCatalog } from "../../services/catalog";

export const voicePreviewRoutes = new Hono<AppEnv>();

voicePreviewRoutes.get("/voices/:voice_id/preview", async (c) => {
  const voiceId = c.req.param("voice_id");
  const voice = (await loadCatalog(c.env.CATALOG)).voices.find((v) => v.voice_id === voiceId);
  if (!voice) return c.text("unknown voice", 404);
  const key = `voice-previews/${voice.voice_id}.mp3`;
  let object = await c.env.ARTIFACTS.get(key);
  if (!object) {
    const made = await c.env.SANDBOX?.render({
      task_id: `voice-preview-${voice.voice_id}`,
      capability: "text_to_speech",
      request: { input: `Hello, this is ${voice.display_name}.`, voice: voice.voice_id, format: "mp3", sample_rate: 24000 },
      inputs: [],
      seed: hash32(voice.voice_id),
    });
    const clip = made && "result" in made ? made.result.outputs[0] : undefined;
    if (!clip || !("bytes" in clip)) return c.text("no preview", 404);
    await c.env.ARTIFACTS.put(key, clip.bytes, { httpMetadata: { contentType: "audio/mpeg" } });
    object = await c.env.ARTIFACTS.get(key);
    if (!object) return c.text("no preview", 404);
  }
  return new Response(object.body, {
    headers: {
      ...STORED_BYTES_HEADERS,
      "Content-Type": "audio/mpeg",
      "Content-Length": String(object.size),
      "Cache-Control": "public, max-age=86400",
    },
  });
});
