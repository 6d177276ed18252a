/** Image operations: generation, image-to-image, edits and image understanding. */
import { z } from "@hono/zod-openapi";
import type { OutputFormat, Selection } from "../catalog/select";
import { formatMime } from "../media/output-formats";
import { MediaInput } from "../media/resolve-input";
import { EXAMPLE_IMAGE } from "./examples";
import { Canvas, commonTaskFields, ModelField, Palette, Prompt } from "./fields";
import { maxOutputTokens, promptTokens, refs, resolved, SANITY_BOUNDS, tierOf } from "./shared";
import { type OperationContext, operation } from "./types";

const DEFAULT_CANVAS = { type: "preset", tier: "2K", aspect: "16:9" } as const;

const imageControls = {
  count: z
    .number()
    .int()
    .min(1)
    .max(4)
    .default(1)
    .openapi({ description: "1 to 4; the model must support the exact count; never split" }),
  seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  negative_prompt: z.string().min(1).max(20_000).optional(),
  enhance_prompt: z.boolean().nullable().optional().openapi({ description: "null or omitted keeps the prompt as written" }),
  palette: Palette.optional(),
  output_format: z
    .enum(["png", "jpeg", "webp"])
    .optional()
    .openapi({ description: "File format of the images; omitted is the model's default (`outputs.format` of its card)" }),
};

/** The free text content review reads in the generating image operations. */
const IMAGE_TEXTS = ["prompt", "negative_prompt"] as const;

const IMAGE_CONTROL_FIELDS = [
  "count",
  "seed",
  "negative_prompt",
  "enhance_prompt",
  "palette",
  "output_relationship",
  "reasoning",
] as const;

function imageRequest(
  body: Record<string, any>,
  s: { dimensions?: { width: number; height: number }; controls: Record<string, unknown>; output?: OutputFormat },
) {
  return {
    prompt: body.prompt,
    count: body.count,
    dimensions: s.dimensions,
    canvas: body.canvas,
    seed: body.seed,
    negative_prompt: body.negative_prompt,
    enhance_prompt: s.controls.enhance_prompt,
    palette: body.palette,
    output_relationship: body.output_relationship ?? "independent",
    reasoning: s.controls.reasoning,
    edit_regions: body.edit_regions,
    output_format: s.output?.mime,
  };
}

/** The requested image format, else the card's default; the card must list it and a serving route make it. */
function imageOutput(body: { output_format?: string }, selection: Selection): OutputFormat {
  return {
    param: "/output_format",
    mime: body.output_format ? formatMime("image", body.output_format) : (selection.card.outputs?.format ?? "image/png"),
  };
}

/** Images are billed per image at the price of the output tier. */
const imagePricing = {
  usageKey: "image_count",
  quantities: ({ body }: OperationContext<any>) => ({ image_count: body.count }),
  dimensions: ({ body, selection }: OperationContext<any>) => ({
    tier: tierOf(selection, body.canvas.type === "preset" ? body.canvas.tier : undefined),
  }),
  providerRequest: ({ body, selection }: OperationContext<any>) => imageRequest(body, selection),
  output: imageOutput,
};

export const imageGeneration = operation({
  name: "images.generations",
  operationId: "createImageGeneration",
  path: "/v1/images/generations",
  capability: "text_to_image",
  tag: "Images",
  summary: "Text to 1 to 4 images",
  schema: z
    .object({
      model: ModelField(),
      prompt: Prompt(SANITY_BOUNDS.image_prompt_characters).openapi({ example: "A lighthouse on a cliff at dawn, oil painting" }),
      ...imageControls,
      canvas: Canvas.default(DEFAULT_CANVAS),
      output_relationship: z.enum(["independent", "sequence"]).optional(),
      reasoning: z.boolean().nullable().optional(),
      ...commonTaskFields,
    })
    .strict()
    .openapi("ImageGenerationRequest"),
  examples: {
    auto: {
      summary: "One image, model chosen by the service",
      value: { prompt: "A lighthouse on a cliff at dawn, oil painting" },
    },
    concrete: {
      summary: "Two square images from a named model",
      value: {
        model: "gpt-image-2",
        prompt: "A ceramic teapot shaped like a snail, studio photograph",
        count: 2,
        canvas: { type: "preset", tier: "1K", aspect: "1:1" },
      },
    },
  },
  prompt: (b) => ({ field: "prompt", text: b.prompt }),
  texts: IMAGE_TEXTS,
  controls: IMAGE_CONTROL_FIELDS,
  canvas: (b) => b.canvas,
  ...imagePricing,
});

const Images = (max: number) => z.array(MediaInput).min(1).max(max);

export const imageToImage = operation({
  name: "images.image-to-image",
  operationId: "createImageFromImages",
  path: "/v1/images/image-to-image",
  capability: "image_to_image",
  tag: "Images",
  summary: "1 to 4 ordered reference images to a new result",
  schema: z
    .object({
      model: ModelField(),
      prompt: Prompt(SANITY_BOUNDS.image_prompt_characters),
      images: Images(4).openapi({ description: "1 to 4 ordered inputs (artifact, HTTPS URL or data URI)" }),
      ...imageControls,
      canvas: Canvas.default(DEFAULT_CANVAS).openapi({ description: "Aspect `source` inherits the last input image's ratio" }),
      output_relationship: z.enum(["independent", "sequence"]).optional(),
      ...commonTaskFields,
    })
    .strict()
    .openapi("ImageToImageRequest"),
  examples: {
    restyle: {
      summary: "A new image from one reference, in the reference's aspect",
      value: {
        prompt: "The same sky as a watercolour with a flock of birds",
        images: [EXAMPLE_IMAGE],
        canvas: { type: "preset", tier: "2K", aspect: "source" },
      },
    },
  },
  prompt: (b) => ({ field: "prompt", text: b.prompt }),
  texts: IMAGE_TEXTS,
  controls: IMAGE_CONTROL_FIELDS.filter((f) => f !== "reasoning"),
  media: (b) => refs("images", "image", b.images),
  canvas: (b) => b.canvas,
  ...imagePricing,
});

export const EditRegion = z
  .object({
    image_index: z.number().int().min(0),
    x: z.number().min(0).max(1),
    y: z.number().min(0).max(1),
    width: z.number().gt(0).max(1),
    height: z.number().gt(0).max(1),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.x + r.width > 1 + 1e-9)
      ctx.addIssue({ code: "custom", path: ["width"], message: "x + width must stay inside the unit square" });
    if (r.y + r.height > 1 + 1e-9)
      ctx.addIssue({ code: "custom", path: ["height"], message: "y + height must stay inside the unit square" });
  })
  .openapi("EditRegion");

export const imageEdit = operation({
  name: "images.edits",
  operationId: "createImageEdit",
  path: "/v1/images/edits",
  capability: "image_edit",
  tag: "Images",
  summary: "Edit a base image with references and regions",
  description:
    "`images[0]` is the base image; later entries are ordered references. Canvas aspect `source` (the default) follows the base image.",
  schema: z
    .object({
      model: ModelField(),
      prompt: Prompt(SANITY_BOUNDS.image_prompt_characters),
      images: Images(16),
      ...imageControls,
      canvas: Canvas.default({ type: "preset", tier: "2K", aspect: "source" }),
      edit_regions: z.array(EditRegion).min(1).max(16).optional(),
      ...commonTaskFields,
    })
    .strict()
    .superRefine((b, ctx) => {
      b.edit_regions?.forEach((r, i) => {
        if (r.image_index >= b.images.length) {
          ctx.addIssue({
            code: "custom",
            path: ["edit_regions", i, "image_index"],
            message: `image_index must be below ${b.images.length}`,
          });
        }
      });
    })
    .openapi("ImageEditRequest"),
  examples: {
    edit: {
      summary: "Edit the base image",
      value: { prompt: "Add a small red sailing boat on the horizon", images: [EXAMPLE_IMAGE] },
    },
  },
  prompt: (b) => ({ field: "prompt", text: b.prompt }),
  texts: IMAGE_TEXTS,
  controls: [...IMAGE_CONTROL_FIELDS.filter((f) => f !== "reasoning" && f !== "output_relationship"), "edit_regions"],
  media: (b) => refs("images", "image", b.images),
  canvas: (b) => b.canvas,
  ...imagePricing,
});

export const imageUnderstanding = operation({
  name: "images.responses",
  operationId: "createImageUnderstanding",
  path: "/v1/images/responses",
  capability: "image_to_text",
  tag: "Images",
  summary: "Image understanding: answer a prompt about one or more images",
  schema: z
    .object({
      model: ModelField(),
      prompt: Prompt(32_000).openapi({ example: "What is in this picture?" }),
      images: z.array(MediaInput).min(1).max(16),
      detail: z.enum(["auto", "low", "high"]).optional(),
      response_format: z.enum(["text", "json"]).optional(),
      temperature: z.number().min(0).max(2).optional(),
      max_output_tokens: z.number().int().min(1).max(SANITY_BOUNDS.max_output_tokens).optional(),
      ...commonTaskFields,
    })
    .strict()
    .openapi("ImageToTextRequest"),
  examples: {
    describe: {
      summary: "Ask about an image",
      value: { prompt: "What time of day does this sky suggest?", images: [EXAMPLE_IMAGE] },
    },
  },
  prompt: (b) => ({ field: "prompt", text: b.prompt }),
  texts: ["prompt"],
  controls: ["detail", "response_format", "temperature", "max_output_tokens"],
  media: (b) => refs("images", "image", b.images),
  usageKey: "input_tokens",
  quantities: ({ body, selection }) => ({
    input_tokens: promptTokens(body.prompt, body.images.length),
    output_tokens: maxOutputTokens(selection, body.max_output_tokens),
  }),
  providerRequest: ({ body, selection }) => ({
    prompt: body.prompt,
    detail: resolved(selection, "detail") ?? "auto",
    response_format: body.response_format ?? "text",
    temperature: body.temperature,
    max_output_tokens: maxOutputTokens(selection, body.max_output_tokens),
  }),
});
