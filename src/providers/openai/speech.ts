/**
 * Text to speech: `POST /audio/speech` `{model, input, voice, response_format, speed,
 * instructions?}` answers the audio file itself (24 kHz). `input` is at most 4096 characters,
 * `speed` 0.25 to 4, and `instructions` steer delivery (gpt-4o-mini-tts and later, not tts-1).
 */
import { probeMedia } from "../../media/probe";
import type { ProviderContext } from "../adapter";
import type { JobFor } from "../jobs";
import type { ProviderResult } from "../types";
import { ProviderError } from "../types";
import { type Answer, postOnce, timeoutFor } from "./client";

/** OpenAI's built-in voices. The catalog's OpenAI voice ids (catalog-data/voices/openai.json) are these names. */
export const OPENAI_VOICES = new Set([
  "alloy",
  "ash",
  "ballad",
  "coral",
  "echo",
  "fable",
  "onyx",
  "nova",
  "sage",
  "shimmer",
  "verse",
  "marin",
  "cedar",
]);

/** The voice as OpenAI takes it: a built-in name, or a custom voice as `{id}`. */
export function voiceFor(voiceId: string): string | { id: string } {
  const name = voiceId.trim().toLowerCase();
  if (OPENAI_VOICES.has(name)) return name;
  if (/^voice_[A-Za-z0-9]+$/.test(voiceId)) return { id: voiceId };
  throw new ProviderError("voice_model_incompatible", `openai has no voice "${voiceId.slice(0, 64)}".`);
}

/** The card's emotions are sent as a steering phrase; there is no emotion parameter upstream. */
function instructionsFor(job: JobFor<"text_to_speech">): string | undefined {
  const emotion = job.request.emotion;
  if (!emotion) return undefined;
  return emotion === "neutral" ? "Speak in a calm, neutral tone." : `Speak in a ${emotion} tone.`;
}

export function speechBody(job: JobFor<"text_to_speech">): Record<string, unknown> {
  const instructions = instructionsFor(job);
  return {
    model: job.upstream_model,
    input: job.request.input,
    voice: voiceFor(job.request.voice),
    response_format: job.request.format,
    speed: job.request.speed,
    ...(instructions ? { instructions } : {}),
  };
}

export async function submitSpeech(job: JobFor<"text_to_speech">, ctx: ProviderContext): Promise<Answer> {
  return postOnce(ctx, "/audio/speech", { json: speechBody(job) }, timeoutFor(ctx.config, 120_000), "application/octet-stream");
}

/** The audio type per requested format; pcm is raw 16-bit little-endian at 24 kHz. */
const MIME: Record<string, string> = {
  mp3: "audio/mpeg",
  opus: "audio/ogg",
  aac: "audio/aac",
  flac: "audio/flac",
  wav: "audio/wav",
  pcm: "audio/pcm",
};

/** Formats whose container the service can read (duration, and a check that it is audio at all). */
const PROBED = new Set(["mp3", "opus", "flac", "wav"]);

export function speechResult(body: Uint8Array, job: JobFor<"text_to_speech">): ProviderResult {
  const format = job.request.format;
  if (body.length === 0) throw new ProviderError("model_output_invalid", "openai sent an empty speech answer.");
  let contentType = MIME[format] ?? "application/octet-stream";
  let duration: number | undefined;
  if (PROBED.has(format)) {
    let probed: ReturnType<typeof probeMedia>;
    try {
      probed = probeMedia(body, "/audio");
    } catch {
      throw new ProviderError("model_output_invalid", `openai sent a speech answer that is not ${format} audio.`);
    }
    if (probed.kind !== "audio") throw new ProviderError("model_output_invalid", `openai sent ${probed.mime} for speech.`);
    contentType = probed.mime;
    duration = probed.duration_seconds;
  } else if (format === "pcm") {
    duration = body.length / (24_000 * 2);
  }
  return {
    outputs: [
      {
        kind: "audio",
        bytes: body,
        content_type: contentType,
        ...(duration !== undefined ? { duration_seconds: duration } : {}),
        index: 0,
      },
    ],
    // Billed per input character: code points, as the card's counter counts them.
    usage: { characters: [...job.request.input].length },
    metadata: { provider: "openai", voice: job.request.voice, format, sample_rate: 24_000 },
  };
}
