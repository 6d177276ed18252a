/** Video operations: prompt enhancement, the five generation modes, extension and understanding. */
import { z } from "@hono/zod-openapi";
import { ApiError } from "../errors/api-error";
import { commonTaskFields, ModelField, Prompt } from "../http/task-body";
import { MediaInput } from "../media/resolve-input";
import { maxOutputTokens, promptTokens, refs, resolved } from "./shared";
import { type MediaRef, type OperationContext, operation } from "./types";

const videoControls = {
  negative_prompt: z.string().min(1).max(20_000).optional().openapi({ description: "Used only when the model supports it" }),
  duration: z
    .union([z.number().int().min(1).max(60), z.literal("auto")])
    .optional()
    .openapi({ description: "Seconds, or `auto`; omitted uses the model default" }),
  aspect_ratio: z
    .string()
    .regex(/^\d{1,2}:\d{1,2}$/, "must be a ratio such as 16:9")
    .optional(),
  resolution: z.string().min(1).max(16).optional().openapi({ description: "Model-defined tier such as 720p; never coerced" }),
  seed: z.number().int().min(0).max(4_294_967_295).optional(),
  enhance_prompt: z.boolean().nullable().optional(),
  watermark: z.boolean().optional(),
  generate_audio: z.boolean().optional(),
  web_search: z.boolean().optional(),
  return_last_frame: z.boolean().optional(),
};
const outputFormat = { output_format: z.enum(["mp4", "mov"]).optional().openapi({ description: "Container; mp4 by default" }) };

const VIDEO_CONTROLS = [
  "negative_prompt",
  "duration",
  "aspect_ratio",
  "resolution",
  "seed",
  "enhance_prompt",
  "watermark",
  "generate_audio",
  "web_search",
  "return_last_frame",
  "output_format",
] as const;

export const VideoReference = z
  .object({
    kind: z.enum(["image", "video", "audio"]),
    media: MediaInput,
    role: z.string().min(1).max(64).default("subject").openapi({ example: "subject" }),
    reference_voice: MediaInput.optional(),
  })
  .strict()
  .openapi("VideoReference");

function referenceRefs(references: z.infer<typeof VideoReference>[] | undefined): MediaRef[] {
  return (references ?? []).flatMap((r, i) => [
    { field: "references", kind: r.kind, input: r.media, param: `/references/${i}/media`, role: r.role },
    ...(r.reference_voice
      ? [
          {
            field: "references",
            kind: "audio" as const,
            input: r.reference_voice,
            param: `/references/${i}/reference_voice`,
            role: "voice",
          },
        ]
      : []),
  ]);
}

/** "auto" duration means the model's default, exactly as if it were omitted. */
const normalizeDuration = (raw: Record<string, unknown>) => (raw.duration === "auto" ? { ...raw, duration: undefined } : raw);

function seconds(ctx: OperationContext<any>): number {
  const d = ctx.body.duration;
  return typeof d === "number" ? d : Number(resolved(ctx.selection, "duration") ?? 5);
}

function videoDimensions(ctx: OperationContext<any>): Record<string, string> {
  const dims: Record<string, string> = { generate_audio: String(resolved(ctx.selection, "generate_audio") ?? false) };
  const res = resolved(ctx.selection, "resolution");
  if (typeof res === "string") dims.resolution = res;
  return dims;
}

function videoRequest(ctx: OperationContext<any>) {
  const b = ctx.body;
  return {
    prompt: b.prompt ?? b.instruction ?? "",
    duration: seconds(ctx),
    aspect_ratio: resolved(ctx.selection, "aspect_ratio") ?? b.aspect_ratio ?? "16:9",
    resolution: resolved(ctx.selection, "resolution") ?? "720p",
    seed: b.seed,
    negative_prompt: b.negative_prompt,
    enhance_prompt: ctx.selection.controls.enhance_prompt,
    watermark: resolved(ctx.selection, "watermark") ?? false,
    generate_audio: resolved(ctx.selection, "generate_audio") ?? false,
    web_search: b.web_search ?? false,
    return_last_frame: b.return_last_frame ?? false,
    output_format: b.output_format ?? "mp4",
    direction: b.direction,
  };
}

const videoPricing = {
  usageKey: "output_video_seconds",
  quantities: (ctx: OperationContext<any>) => ({ output_video_seconds: seconds(ctx) }),
  dimensions: videoDimensions,
  providerRequest: videoRequest,
  normalize: normalizeDuration,
};

export const videoPromptEnhance = operation({
  name: "videos.prompts.enhance",
  path: "/v1/videos/prompts/enhance",
  capability: "video_prompt_enhance",
  tag: "Videos",
  summary: "Enhance a video prompt (text-only task; no video is generated)",
  description: "Charged after completion from actual input and output tokens. The compatibility field `model` is ignored.",
  schema: z
    .object({
      model: z.string().max(128).optional().openapi({ description: "Ignored (compatibility field)" }),
      prompt: Prompt(20_000),
      images: z.array(MediaInput).max(4).optional().openapi({ description: "Optional visual context" }),
      target_model: z.string().min(1).max(128).optional().openapi({ description: "The video model the prompt is for" }),
      language: z.string().min(2).max(35).optional(),
      style: z.string().min(1).max(500).optional(),
      ...commonTaskFields,
    })
    .strict()
    .openapi("VideoPromptEnhanceRequest"),
  prompt: (b) => ({ field: "prompt", text: b.prompt }),
  controls: ["target_model", "language", "style"],
  media: (b) => refs("images", "image", b.images),
  usageKey: "input_tokens",
  quantities: ({ body, selection }) => ({
    input_tokens: promptTokens(body.prompt, body.images?.length ?? 0),
    output_tokens: maxOutputTokens(selection, undefined),
  }),
  providerRequest: ({ body }) => ({
    prompt: body.prompt,
    target_model: body.target_model,
    language: body.language,
    style: body.style,
  }),
  warnings: ({ body, selection }) =>
    body.model !== undefined && body.model !== selection.model.model
      ? [
          {
            code: "model_ignored",
            message: `This operation always runs on ${selection.model.model}; 'model' is accepted for compatibility only.`,
            field: "/model",
          },
        ]
      : [],
});

export const textToVideo = operation({
  name: "videos.text-to-video",
  path: "/v1/videos/text-to-video",
  capability: "text_to_video",
  tag: "Videos",
  summary: "Video from text",
  schema: z
    .object({
      model: ModelField("auto"),
      prompt: Prompt(20_000),
      ...videoControls,
      ...outputFormat,
      audio: MediaInput.optional().openapi({ description: "Driving audio for audio-conditioned models" }),
      ...commonTaskFields,
    })
    .strict()
    .openapi("TextToVideoRequest"),
  prompt: (b) => ({ field: "prompt", text: b.prompt }),
  controls: VIDEO_CONTROLS,
  media: (b) => refs("audio", "audio", b.audio),
  ...videoPricing,
});

export const imageToVideo = operation({
  name: "videos.image-to-video",
  path: "/v1/videos/image-to-video",
  capability: "image_to_video",
  tag: "Videos",
  summary: "Animate one strict opening image",
  description: "`image` is the video's first frame, not a loose reference.",
  schema: z
    .object({
      model: ModelField("auto"),
      image: MediaInput,
      prompt: z.string().max(20_000).optional().openapi({ description: "Motion instructions" }),
      ...videoControls,
      ...outputFormat,
      audio: MediaInput.optional(),
      ...commonTaskFields,
    })
    .strict()
    .openapi("ImageToVideoRequest"),
  prompt: (b) => (b.prompt ? { field: "prompt", text: b.prompt } : undefined),
  controls: VIDEO_CONTROLS,
  media: (b) => [...refs("image", "image", b.image), ...refs("audio", "audio", b.audio)],
  ...videoPricing,
});

export const referenceToVideo = operation({
  name: "videos.reference-to-video",
  path: "/v1/videos/reference-to-video",
  capability: "reference_to_video",
  tag: "Videos",
  summary: "Video from ordered image, video and audio references",
  schema: z
    .object({
      model: ModelField("auto"),
      prompt: Prompt(20_000),
      references: z.array(VideoReference).min(1).max(16),
      ...videoControls,
      ...outputFormat,
      ...commonTaskFields,
    })
    .strict()
    .openapi("ReferenceToVideoRequest"),
  prompt: (b) => ({ field: "prompt", text: b.prompt }),
  controls: VIDEO_CONTROLS,
  media: (b) => referenceRefs(b.references),
  ...videoPricing,
});

export const framesToVideo = operation({
  name: "videos.frames-to-video",
  path: "/v1/videos/frames-to-video",
  capability: "frames_to_video",
  tag: "Videos",
  summary: "Video between strict first and last frames",
  schema: z
    .object({
      model: ModelField("auto"),
      prompt: z.string().max(20_000).optional().openapi({ description: "Motion instructions between the frames" }),
      first_frame: MediaInput,
      last_frame: MediaInput,
      driving_audio: MediaInput.optional().openapi({ description: "Requires a model that supports it" }),
      ...videoControls,
      ...commonTaskFields,
    })
    .strict()
    .openapi("FramesToVideoRequest"),
  prompt: (b) => (b.prompt ? { field: "prompt", text: b.prompt } : undefined),
  controls: VIDEO_CONTROLS.filter((c) => c !== "output_format"),
  media: (b) => [
    ...refs("first_frame", "image", b.first_frame),
    ...refs("last_frame", "image", b.last_frame),
    ...refs("driving_audio", "audio", b.driving_audio),
  ],
  ...videoPricing,
});

export const videoExtend = operation({
  name: "videos.extend",
  path: "/v1/videos/extend",
  capability: "video_extend",
  tag: "Videos",
  summary: "Extend one source video before or after",
  description: "`duration` is the final returned video's length and must exceed the source's.",
  schema: z
    .object({
      model: ModelField("auto"),
      video: MediaInput,
      direction: z.enum(["before", "after"]),
      instruction: Prompt(20_000),
      duration: z.number().int().min(2).max(30),
      references: z.array(VideoReference).max(16).optional(),
      ...Object.fromEntries(Object.entries(videoControls).filter(([k]) => k !== "duration")),
      ...outputFormat,
      ...commonTaskFields,
    })
    .strict()
    .openapi("VideoExtendRequest") as z.ZodType<any>,
  prompt: (b) => ({ field: "instruction", text: b.instruction }),
  controls: ["direction", ...VIDEO_CONTROLS],
  media: (b) => [...refs("video", "video", b.video), ...referenceRefs(b.references)],
  check: ({ body, media }) => {
    const source = media.find((m) => m.field === "video")?.facts.duration_seconds;
    if (source !== undefined && body.duration <= source) {
      throw new ApiError(
        "invalid_request",
        `duration (${body.duration} s) must exceed the source video's ${source.toFixed(2)} s.`,
        {
          param: "/duration",
          details: {
            errors: [{ loc: ["body", "duration"], reason: "must exceed the source duration" }],
            source_duration_seconds: source,
          },
        },
      );
    }
  },
  usageKey: "generated_video_seconds",
  quantities: (ctx) => {
    const source = ctx.media.find((m) => m.field === "video")?.facts.duration_seconds ?? 0;
    return { generated_video_seconds: Math.max(1, Math.ceil(ctx.body.duration - source)) };
  },
  dimensions: videoDimensions,
  providerRequest: (ctx) => ({
    ...videoRequest(ctx),
    source_duration: ctx.media.find((m) => m.field === "video")?.facts.duration_seconds,
  }),
});

export const videoUnderstanding = operation({
  name: "videos.responses",
  path: "/v1/videos/responses",
  capability: "video_to_text",
  tag: "Videos",
  summary: "Video understanding (sampled at 1 frame per second)",
  schema: z
    .object({
      model: z.string().min(1).max(128).openapi({ description: "`auto` or the concrete understanding model" }),
      prompt: z.string().max(32_000),
      video: MediaInput,
      detail: z.enum(["default", "low", "high"]).optional().openapi({ description: "Does not change the per-second price" }),
      response_format: z.enum(["text", "json"]).optional(),
      temperature: z.number().min(0).max(2).optional(),
      ...commonTaskFields,
    })
    .strict()
    .openapi("VideoToTextRequest"),
  prompt: (b) => ({ field: "prompt", text: b.prompt }),
  controls: ["detail", "response_format", "temperature"],
  media: (b) => refs("video", "video", b.video),
  usageKey: "input_video_seconds",
  quantities: ({ media }) => ({ input_video_seconds: Math.ceil(media[0]?.facts.duration_seconds ?? 1) }),
  providerRequest: ({ body, selection }) => ({
    prompt: body.prompt,
    detail: resolved(selection, "detail") ?? "default",
    response_format: body.response_format ?? "text",
    temperature: body.temperature,
  }),
});
