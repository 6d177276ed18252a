/** Video operations: prompt enhancement, the five generation modes, extension and understanding. */
import { z } from "@hono/zod-openapi";
import type { OutputFormat } from "../catalog/select";
import { ApiError } from "../errors/api-error";
import { formatMime } from "../media/output-formats";
import { MediaInput } from "../media/resolve-input";
import { EXAMPLE_IMAGE, EXAMPLE_VIDEO } from "./examples";
import { commonTaskFields, ModelField, Prompt, RequiredModelField, requireModel } from "./fields";
import { maxOutputTokens, promptTokens, refs, resolved, SANITY_BOUNDS } from "./shared";
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
/** The free text content review reads in the generating video operations. */
const VIDEO_TEXTS = ["prompt", "negative_prompt"] as const;
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

/** The container asked for (mp4 when omitted, as videoRequest sends it), for the modes that take `output_format`. */
const videoOutput = {
  output: (b: { output_format?: string }): OutputFormat => ({
    param: "/output_format",
    mime: formatMime("video", b.output_format ?? "mp4"),
  }),
};

/** The one model of `video_prompt_enhance` (the catalog's only card for it): `model` never changes it. */
export const PROMPT_ENHANCER_MODEL = "video-prompt-enhancer";

export const videoPromptEnhance = operation({
  name: "videos.prompts.enhance",
  operationId: "createVideoPromptEnhancement",
  path: "/v1/videos/prompts/enhance",
  capability: "video_prompt_enhance",
  tag: "Videos",
  summary: "Enhance a video prompt (text-only task; no video is generated)",
  description: "Charged after completion from actual input and output tokens. The compatibility field `model` is ignored.",
  schema: z
    .object({
      model: z
        .string()
        .max(128)
        .optional()
        .openapi({
          description: `Ignored, no default: this operation always runs on \`${PROMPT_ENHANCER_MODEL}\`; the field is accepted for compatibility (a different value adds a \`model_ignored\` warning).`,
        }),
      prompt: Prompt(20_000),
      images: z.array(MediaInput).max(4).optional().openapi({ description: "Optional visual context" }),
      target_model: z.string().min(1).max(128).optional().openapi({ description: "The video model the prompt is for" }),
      language: z.string().min(2).max(35).optional(),
      style: z.string().min(1).max(500).optional(),
      ...commonTaskFields,
    })
    .strict()
    .openapi("VideoPromptEnhanceRequest"),
  examples: {
    enhance: {
      summary: "Enrich a short idea for a video model",
      value: { prompt: "a fox running through snow at dusk", style: "cinematic, slow motion" },
    },
  },
  prompt: (b) => ({ field: "prompt", text: b.prompt }),
  texts: ["prompt", "style"],
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
  operationId: "createVideoFromText",
  path: "/v1/videos/text-to-video",
  capability: "text_to_video",
  tag: "Videos",
  summary: "Video from text",
  schema: z
    .object({
      model: ModelField(),
      prompt: Prompt(20_000),
      ...videoControls,
      ...outputFormat,
      audio: MediaInput.optional().openapi({ description: "Driving audio for audio-conditioned models" }),
      ...commonTaskFields,
    })
    .strict()
    .openapi("TextToVideoRequest"),
  examples: {
    auto: {
      summary: "A clip with the model's default length and tier",
      value: { prompt: "A paper boat drifting down a rain-soaked street, close-up" },
    },
    concrete: {
      summary: "A named model with explicit controls",
      value: {
        model: "seedance-2.0",
        prompt: "Aerial shot over a misty pine forest at sunrise",
        duration: 8,
        aspect_ratio: "16:9",
        resolution: "720p",
        generate_audio: false,
      },
    },
  },
  prompt: (b) => ({ field: "prompt", text: b.prompt }),
  texts: VIDEO_TEXTS,
  controls: VIDEO_CONTROLS,
  media: (b) => refs("audio", "audio", b.audio),
  ...videoPricing,
  ...videoOutput,
});

export const imageToVideo = operation({
  name: "videos.image-to-video",
  operationId: "createVideoFromImage",
  path: "/v1/videos/image-to-video",
  capability: "image_to_video",
  tag: "Videos",
  summary: "Animate one strict opening image",
  description: "`image` is the video's first frame, not a loose reference.",
  schema: z
    .object({
      model: ModelField(),
      image: MediaInput,
      prompt: z.string().max(20_000).optional().openapi({ description: "Motion instructions" }),
      ...videoControls,
      ...outputFormat,
      audio: MediaInput.optional(),
      ...commonTaskFields,
    })
    .strict()
    .openapi("ImageToVideoRequest"),
  examples: {
    animate: {
      summary: "Animate an opening frame",
      value: { image: EXAMPLE_IMAGE, prompt: "The sun rises slowly and clouds drift across the sky" },
    },
  },
  prompt: (b) => (b.prompt ? { field: "prompt", text: b.prompt } : undefined),
  texts: VIDEO_TEXTS,
  controls: VIDEO_CONTROLS,
  media: (b) => [...refs("image", "image", b.image), ...refs("audio", "audio", b.audio)],
  ...videoPricing,
  ...videoOutput,
});

export const referenceToVideo = operation({
  name: "videos.reference-to-video",
  operationId: "createVideoFromReferences",
  path: "/v1/videos/reference-to-video",
  capability: "reference_to_video",
  tag: "Videos",
  summary: "Video from ordered image, video and audio references",
  schema: z
    .object({
      model: ModelField(),
      prompt: Prompt(20_000),
      references: z.array(VideoReference).min(1).max(SANITY_BOUNDS.video_references),
      ...videoControls,
      ...outputFormat,
      ...commonTaskFields,
    })
    .strict()
    .openapi("ReferenceToVideoRequest"),
  examples: {
    reference: {
      summary: "One image reference",
      value: {
        prompt: "A hot-air balloon rises into this sky",
        references: [{ kind: "image", media: EXAMPLE_IMAGE, role: "subject" }],
      },
    },
  },
  prompt: (b) => ({ field: "prompt", text: b.prompt }),
  texts: VIDEO_TEXTS,
  controls: VIDEO_CONTROLS,
  media: (b) => referenceRefs(b.references),
  ...videoPricing,
  ...videoOutput,
});

export const framesToVideo = operation({
  name: "videos.frames-to-video",
  operationId: "createVideoFromFrames",
  path: "/v1/videos/frames-to-video",
  capability: "frames_to_video",
  tag: "Videos",
  summary: "Video between strict first and last frames",
  schema: z
    .object({
      model: ModelField(),
      prompt: z.string().max(20_000).optional().openapi({ description: "Motion instructions between the frames" }),
      first_frame: MediaInput,
      last_frame: MediaInput,
      driving_audio: MediaInput.optional().openapi({ description: "Requires a model that supports it" }),
      ...videoControls,
      ...commonTaskFields,
    })
    .strict()
    .openapi("FramesToVideoRequest"),
  examples: {
    frames: {
      summary: "Between a first and a last frame",
      value: { first_frame: EXAMPLE_IMAGE, last_frame: EXAMPLE_IMAGE, prompt: "A slow time-lapse of the clouds" },
    },
  },
  prompt: (b) => (b.prompt ? { field: "prompt", text: b.prompt } : undefined),
  texts: VIDEO_TEXTS,
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
  operationId: "createVideoExtension",
  path: "/v1/videos/extend",
  capability: "video_extend",
  tag: "Videos",
  summary: "Extend one source video before or after",
  description: "`duration` is the final returned video's length and must exceed the source's.",
  schema: z
    .object({
      model: ModelField(),
      video: MediaInput,
      direction: z.enum(["before", "after"]),
      instruction: Prompt(20_000),
      duration: z.number().int().min(2).max(30),
      references: z.array(VideoReference).max(SANITY_BOUNDS.video_references).optional(),
      ...Object.fromEntries(Object.entries(videoControls).filter(([k]) => k !== "duration")),
      ...outputFormat,
      ...commonTaskFields,
    })
    .strict()
    .openapi("VideoExtendRequest") as z.ZodType<any>,
  examples: {
    after: {
      summary: "Continue a 5-second video of yours to 10 seconds",
      value: {
        video: EXAMPLE_VIDEO,
        direction: "after",
        instruction: "The camera pulls back to reveal the whole valley",
        duration: 10,
      },
    },
  },
  prompt: (b) => ({ field: "instruction", text: b.instruction }),
  texts: ["instruction", "negative_prompt"],
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
  ...videoOutput,
});

export const videoUnderstanding = operation({
  name: "videos.responses",
  operationId: "createVideoUnderstanding",
  path: "/v1/videos/responses",
  capability: "video_to_text",
  tag: "Videos",
  summary: "Video understanding (sampled at 1 frame per second)",
  schema: z
    .object({
      model: RequiredModelField("the concrete understanding model id"),
      prompt: z.string().max(32_000),
      video: MediaInput,
      detail: z.enum(["default", "low", "high"]).optional().openapi({ description: "Does not change the per-second price" }),
      response_format: z.enum(["text", "json"]).optional(),
      temperature: z.number().min(0).max(2).optional(),
      ...commonTaskFields,
    })
    .strict()
    .superRefine(requireModel)
    .openapi("VideoToTextRequest"),
  examples: {
    summarize: {
      summary: "Summarize a video of yours",
      value: { model: "auto", prompt: "Summarize what happens in this video in two sentences.", video: EXAMPLE_VIDEO },
    },
  },
  prompt: (b) => ({ field: "prompt", text: b.prompt }),
  texts: ["prompt"],
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
