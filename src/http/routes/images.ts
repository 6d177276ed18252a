import { createRoute, z } from "@hono/zod-openapi";
import type { Selection } from "../../catalog/select";
import { admitTask } from "../../tasks/admit";
import { requireIdempotencyHeader, requireKey } from "../auth";
import { newRouter } from "../context";
import { errorResponses } from "../schemas";
import { Canvas, commonTaskFields, ModelField, Palette, Prompt } from "../task-body";
import { TaskEnvelope, taskContext } from "./task-shared";

const DEFAULT_CANVAS = { type: "preset", tier: "2K", aspect: "16:9" } as const;

export const ImageGenerationRequest = z
  .object({
    model: ModelField("auto"),
    prompt: Prompt(100_000).openapi({ example: "A lighthouse on a cliff at dawn, oil painting" }),
    count: z.number().int().min(1).max(4).default(1).openapi({ description: "1 to 4; the model must support the exact count" }),
    canvas: Canvas.default(DEFAULT_CANVAS),
    seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    negative_prompt: z.string().min(1).max(20_000).optional(),
    enhance_prompt: z.boolean().nullable().optional(),
    palette: Palette.optional(),
    output_relationship: z.enum(["independent", "sequence"]).optional(),
    reasoning: z.boolean().nullable().optional(),
    ...commonTaskFields,
  })
  .strict()
  .openapi("ImageGenerationRequest");

/** Price tier of a target canvas, by megapixels, for cards priced by tier. */
function tierOf(selection: Selection): string {
  const d = selection.dimensions;
  if (!d) return "2K";
  const mp = (d.width * d.height) / 1_000_000;
  return mp <= 1.3 ? "1K" : mp <= 4.5 ? "2K" : "4K";
}

const CONTROL_FIELDS = [
  "count",
  "seed",
  "negative_prompt",
  "enhance_prompt",
  "palette",
  "output_relationship",
  "reasoning",
] as const;

export const imageRoutes = newRouter();

imageRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/images/generations",
    tags: ["Images"],
    summary: "Text to 1 to 4 images (asynchronous task)",
    security: [{ bearerAuth: [] }],
    "x-lifecycle": "preview",
    middleware: [requireKey("tasks:write"), requireIdempotencyHeader] as const,
    request: {
      headers: z.object({ "idempotency-key": z.string().optional().openapi({ description: "Required: 1 to 128 characters" }) }),
      body: { required: true, content: { "application/json": { schema: ImageGenerationRequest } } },
    },
    responses: {
      202: { description: "The task, queued", content: { "application/json": { schema: TaskEnvelope } } },
      ...errorResponses(400, 401, 402, 403, 404, 409, 422, 503),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const raw = (await c.req.json()) as Record<string, unknown>;
    const result = await admitTask(taskContext(c), {
      operation: "images.generations",
      capability: "text_to_image",
      rawBody: raw,
      metadata: body.metadata,
      callback_url: body.callback_url,
      callback_signing_key_id: body.callback_signing_key_id,
      selection: {
        capability: "text_to_image",
        model: body.model,
        prompt: { field: "prompt", text: body.prompt },
        controls: Object.fromEntries(CONTROL_FIELDS.map((f) => [f, Object.hasOwn(raw, f) ? body[f] : undefined])),
        canvas: body.canvas,
      },
      input: {
        prompt: body.prompt,
        count: body.count,
        canvas: body.canvas,
        ...Object.fromEntries(CONTROL_FIELDS.filter((f) => f !== "count" && body[f] !== undefined).map((f) => [f, body[f]])),
      },
      providerRequest: (s) => ({
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
      }),
      estimate: (s) => ({
        dimensions: { tier: body.canvas.type === "preset" ? body.canvas.tier : tierOf(s) },
        quantity: body.count,
      }),
    });
    return c.json(result.envelope as z.infer<typeof TaskEnvelope>, 202);
  },
);
