/** Audio operations: music and text-to-speech. */
import { z } from "@hono/zod-openapi";
import { unicodeLength } from "../catalog/select";
import { formatMime } from "../media/output-formats";
import { commonTaskFields, ModelField, RequiredModelField, requireModel } from "./fields";
import { resolved } from "./shared";
import { operation } from "./types";

const FamilyA = z
  .object({
    custom_mode: z.boolean().optional(),
    negative_tags: z.string().max(1000).optional(),
    vocal_gender: z.string().max(16).optional().openapi({ example: "m" }),
    style_weight: z.number().optional(),
    weirdness_constraint: z.number().optional(),
    audio_weight: z.number().optional(),
  })
  .strict();
const FamilyB = z
  .object({
    lyrics_optimizer: z.boolean().optional(),
    aigc_watermark: z.boolean().optional(),
    audio_setting: z
      .object({
        sample_rate: z.number().int().optional().openapi({ example: 16000 }),
        bitrate: z.number().int().optional().openapi({ example: 32000 }),
        format: z.string().max(16).optional().openapi({ example: "mp3" }),
      })
      .strict()
      .optional(),
  })
  .strict();

export const textToMusic = operation({
  name: "music.text-to-music",
  operationId: "createMusicFromText",
  path: "/v1/music/text-to-music",
  capability: "text_to_music",
  tag: "Music",
  summary: "Music from a prompt and/or lyrics",
  description: "The prompt describes style, mood, genre and instrumentation; it is not an instruction field.",
  schema: z
    .object({
      model: RequiredModelField("a concrete music model id"),
      prompt: z.string().min(1).max(2000),
      lyrics: z.string().min(1).max(10_000).optional().openapi({ description: "Words to be sung; omit for instrumental music" }),
      instrumental: z.boolean().optional().openapi({ description: "Default false" }),
      title: z.string().min(1).max(200).optional(),
      model_options: z.object({ family_a: FamilyA.optional(), family_b: FamilyB.optional() }).strict().optional(),
      ...commonTaskFields,
    })
    .strict()
    .superRefine((b, ctx) => {
      requireModel(b, ctx);
      if (b.instrumental === true && b.lyrics !== undefined) {
        ctx.addIssue({ code: "custom", path: ["lyrics"], message: "must be omitted for instrumental music" });
      }
    })
    .openapi("TextToMusicRequest"),
  examples: {
    instrumental: {
      summary: "An instrumental track, model chosen by the service",
      value: { model: "auto", prompt: "Warm lo-fi hip hop, mellow piano, vinyl crackle, 80 bpm", instrumental: true },
    },
    song: {
      summary: "A song with lyrics on a named model, with its family options",
      value: {
        model: "suno-v5",
        prompt: "Upbeat indie pop, acoustic guitar, hand claps",
        lyrics: "[Verse]\nMorning light on the harbour wall\n[Chorus]\nWe sail at dawn, we sail at dawn",
        title: "Sail at Dawn",
        model_options: { family_a: { custom_mode: true, vocal_gender: "f" } },
      },
    },
  },
  prompt: (b) => ({ field: "prompt", text: b.prompt }),
  texts: ["prompt", "lyrics", "title"],
  controls: ["lyrics", "instrumental", "title"],
  usageKey: "tracks",
  quantities: ({ selection }) => ({ tracks: selection.card.outputs?.supported_counts?.[0] ?? 1 }),
  providerRequest: ({ body, selection }) => ({
    prompt: body.prompt,
    lyrics: body.lyrics,
    instrumental: body.instrumental ?? false,
    title: body.title,
    model_options: body.model_options,
    tracks: selection.card.outputs?.supported_counts?.[0] ?? 1,
    format: body.model_options?.family_b?.audio_setting?.format ?? selection.card.outputs?.format ?? "audio/mpeg",
    sample_rate: body.model_options?.family_b?.audio_setting?.sample_rate,
    bitrate: body.model_options?.family_b?.audio_setting?.bitrate,
  }),
  output: (body, selection) => ({
    param: "/model_options/family_b/audio_setting/format",
    mime: formatMime("audio", body.model_options?.family_b?.audio_setting?.format ?? selection.card.outputs?.format ?? "mp3"),
  }),
});

export const textToSpeech = operation({
  name: "audio.speech",
  operationId: "createSpeech",
  path: "/v1/audio/speech",
  capability: "text_to_speech",
  tag: "Audio",
  summary: "Text-to-speech with catalog voices",
  schema: z
    .object({
      voice: z.string().min(1).max(128).openapi({ description: "A voice_id from GET /v1/voices" }),
      input: z.string().min(1).max(50_000),
      model: ModelField("the service picks a live model compatible with the voice", "a concrete speech model id"),
      language: z
        .string()
        .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, "must be a BCP-47 tag such as zh-CN")
        .optional(),
      format: z
        .enum(["mp3", "wav", "flac", "opus", "aac", "pcm"])
        .optional()
        .openapi({ description: "Default mp3; each model's card lists the formats it offers" }),
      sample_rate: z.number().int().min(8000).max(192_000).optional(),
      // The spec's range: a card may record a wider native one (gpt-4o-mini-tts takes 0.25-4), but the service offers this.
      speed: z.number().min(0.5).max(2).optional().openapi({ description: "0.5 to 2, default 1; a model's card may narrow it" }),
      volume: z.number().gt(0).max(10).optional().openapi({ description: "Default 1" }),
      pitch: z.number().min(-1).max(1).optional().openapi({ description: "Default 0 keeps the original pitch" }),
      emotion: z.string().min(1).max(32).optional().openapi({ example: "happy" }),
      model_options: z
        .record(z.string(), z.unknown())
        .optional()
        .openapi({ description: "Per-model passthrough, validated per model" }),
      ...commonTaskFields,
    })
    .strict()
    .openapi("SpeechRequest"),
  examples: {
    auto: {
      summary: "Speak with a catalog voice",
      value: { voice: "English_expressive_narrator", input: "Welcome aboard. Our journey begins at dawn." },
    },
    controls: {
      summary: "A named model with format and delivery controls",
      value: {
        model: "speech-2.8-hd",
        voice: "English_expressive_narrator",
        input: "Good news: your order has shipped!",
        format: "wav",
        speed: 1.1,
        emotion: "happy",
      },
    },
  },
  prompt: (b) => ({ field: "input", text: b.input }),
  texts: ["input"],
  controls: ["language", "format", "sample_rate", "speed", "volume", "pitch", "emotion"],
  voice: (b) => b.voice,
  usageKey: "characters",
  quantities: ({ body }) => ({ characters: unicodeLength(body.input) }),
  providerRequest: ({ body, selection }) => ({
    input: body.input,
    voice: body.voice,
    language: body.language,
    format: body.format ?? resolved(selection, "format") ?? "mp3",
    sample_rate: body.sample_rate ?? resolved(selection, "sample_rate"),
    speed: body.speed ?? 1,
    volume: body.volume ?? 1,
    pitch: body.pitch ?? 0,
    emotion: body.emotion,
  }),
  // Opus is delivered in Ogg (audio/ogg), at 48 kHz whatever sample_rate says (see src/sandbox-worker/encode/ogg-opus.ts).
  output: (body, selection) => ({
    param: "/format",
    mime: formatMime("audio", String(body.format ?? resolved(selection, "format") ?? "mp3")),
  }),
});
