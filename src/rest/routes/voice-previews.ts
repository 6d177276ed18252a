/**
 * Voice previews, served by this service: a short clip in the voice's character, made once by the
 * built-in synthesizer (the sandbox Worker, over its binding) and kept in R2. Public (players fetch them without a key), like the
 * catalog's own sample media; they say nothing a voice list does not.
 */
import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { STORED_BYTES_HEADERS } from "../../http/stored-bytes";
import { loadCatalog } from "../../services/catalog";
import { voicePreviewClip } from "../../services/voice-previews";

export const voicePreviewRoutes = new Hono<AppEnv>();

voicePreviewRoutes.get("/voices/:voice_id/preview", async (c) => {
  const voiceId = c.req.param("voice_id");
  const voice = (await loadCatalog(c.env.CATALOG)).voices.find((v) => v.voice_id === voiceId);
  if (!voice) return c.text("unknown voice", 404);
  const key = `voice-previews/${voice.voice_id}.mp3`;
  let object = await c.env.ARTIFACTS.get(key);
  if (!object) {
    const clip = await voicePreviewClip(c.env, voice);
    if (!clip) return c.text("no preview", 404);
    await c.env.ARTIFACTS.put(key, clip, { httpMetadata: { contentType: "audio/mpeg" } });
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
