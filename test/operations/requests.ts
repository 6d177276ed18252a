/** Minimal valid requests per capability and model card, built from the card itself. */
import { env } from "cloudflare:workers";
import { artifactId, artifactKey } from "../../src/media/artifacts";
import { call } from "../helpers/api";
import { mp4, pngInput } from "../helpers/media-fixtures";

export const PATHS: Record<string, string> = {
  text_to_image: "/v1/images/generations",
  image_to_image: "/v1/images/image-to-image",
  image_edit: "/v1/images/edits",
  image_to_text: "/v1/images/responses",
  video_prompt_enhance: "/v1/videos/prompts/enhance",
  text_to_video: "/v1/videos/text-to-video",
  image_to_video: "/v1/videos/image-to-video",
  reference_to_video: "/v1/videos/reference-to-video",
  frames_to_video: "/v1/videos/frames-to-video",
  video_extend: "/v1/videos/extend",
  video_to_text: "/v1/videos/responses",
  text_to_music: "/v1/music/text-to-music",
  text_to_speech: "/v1/audio/speech",
};

/** Every capability's detail (cards ranked as `auto` ranks them) and the voice list, as a client sees them. */
export async function catalogView(apiKey: string): Promise<{ detail: Record<string, any>; voices: any[] }> {
  const detail: Record<string, any> = {};
  for (const cap of Object.keys(PATHS)) detail[cap] = (await call(`/v1/catalog/capabilities/${cap}`, { key: apiKey })).json;
  return { detail, voices: (await call("/v1/voices", { key: apiKey })).json.data };
}

let n = 0;
/**
 * Stores bytes as the tenant's upload (no task's output, so keys of either mode may use it) and
 * returns a media input that references it.
 */
export async function artifactInput(tenantId: string, bytes: Uint8Array, contentType: string) {
  const id = await artifactId(`fixture-${Date.now()}-${++n}`, 0);
  await env.ARTIFACTS.put(artifactKey(id), bytes, {
    httpMetadata: { contentType },
    customMetadata: { tenant_id: tenantId, source: "upload" },
  });
  return { type: "artifact" as const, artifact_id: id };
}

function inputSpec(card: any, field: string, kind: string) {
  return card.inputs.find((i: any) => i.field === field && i.kind === kind);
}

/** A source video the card accepts: within its duration limits, short enough to extend. */
export function sourceSeconds(card: any): number {
  const spec = inputSpec(card, "video", "video");
  return Math.max(spec?.hard_constraints?.min_duration_seconds ?? 1, 2);
}

function extendDuration(card: any, source: number): number {
  const c = card.controls.find((x: any) => x.field === "duration");
  const allowed: number[] = c?.allowed_values ?? Array.from({ length: 29 }, (_, i) => i + 2);
  return allowed.filter((d) => d > source && d >= (c?.minimum ?? 2) && d <= (c?.maximum ?? 30))[0] ?? 30;
}

export async function minimalRequest(
  capability: string,
  card: any,
  tenantId: string,
  voices: any[],
): Promise<Record<string, unknown>> {
  const model = card.model;
  const image = await pngInput(512, 512);
  switch (capability) {
    case "text_to_image":
      return { model, prompt: "a lighthouse at dawn" };
    case "image_to_image":
    case "image_edit":
      return { model, prompt: "make it autumn", images: [image] };
    case "image_to_text":
      return { model, prompt: "What is in the picture?", images: [image] };
    case "video_prompt_enhance":
      return { prompt: "a fox running through snow" };
    case "text_to_video":
      return { model, prompt: "a fox running through snow" };
    case "image_to_video":
      return { model, image, prompt: "the scene comes alive" };
    case "reference_to_video":
      return { model, prompt: "the subject walks on a beach", references: [{ kind: "image", media: image, role: "subject" }] };
    case "frames_to_video":
      return { model, first_frame: image, last_frame: await pngInput(512, 512, false) };
    case "video_extend": {
      const source = sourceSeconds(card);
      const direction = card.controls.find((c: any) => c.field === "direction")?.allowed_values?.[0] ?? "after";
      return {
        model,
        video: await artifactInput(tenantId, mp4(source, 1280, 720), "video/mp4"),
        direction,
        instruction: "continue the motion",
        duration: extendDuration(card, source),
      };
    }
    case "video_to_text":
      return {
        model,
        prompt: "Describe the video",
        video: await artifactInput(tenantId, mp4(sourceSeconds(card), 1280, 720), "video/mp4"),
      };
    case "text_to_music":
      return { model, prompt: "calm piano, rain, lo-fi" };
    case "text_to_speech": {
      const voice = voices.find((v) => v.compatible_models.includes(model));
      return { model, voice: voice.voice_id, input: "Hello there." };
    }
  }
  throw new Error(`no minimal request for ${capability}`);
}

/** A value for a control field that the operation's schema accepts (to test a card that lacks it). */
export const PLAUSIBLE: Record<string, unknown> = {
  seed: 42,
  negative_prompt: "blurry",
  enhance_prompt: true,
  output_relationship: "sequence",
  reasoning: true,
  watermark: true,
  generate_audio: true,
  web_search: true,
  return_last_frame: true,
  output_format: "mov",
  aspect_ratio: "21:9",
  resolution: "4k",
  detail: "high",
  response_format: "json",
  temperature: 0.5,
  max_output_tokens: 100,
  title: "A title",
  language: "en-US",
  format: "wav",
  sample_rate: 24000,
  speed: 1.5,
  volume: 2,
  pitch: 0.5,
  emotion: "happy",
  target_model: "some-video-model",
  style: "noir",
};

/**
 * Admission tests keep their tasks waiting in the sandbox's queue: execution is proven elsewhere,
 * and a hundred clips rendering in the background would only slow the suite.
 */
export function held(body: unknown): unknown {
  if (!body || typeof body !== "object" || Array.isArray(body)) return body;
  const b = body as Record<string, unknown>;
  return { ...b, metadata: { sandbox_fault: "stay_queued", ...((b.metadata as Record<string, string>) ?? {}) } };
}
