/**
 * Fields that other well-known media APIs use, sent here by habit. Request bodies are strict, so
 * such a field is a 422 anyway; this table makes the message name this API's field instead of
 * only saying "unrecognized key". One row per foreign field and set of routes.
 */
import { toJsonPointer } from "../lib/json-pointer";

const IMAGES_OUT = ["/v1/images/generations", "/v1/images/image-to-image", "/v1/images/edits"] as const;
const IMAGES_IN = ["/v1/images/image-to-image", "/v1/images/edits"] as const;
const TEXT_TO_IMAGE = ["/v1/images/generations"] as const;
const VIDEOS_OUT = [
  "/v1/videos/text-to-video",
  "/v1/videos/image-to-video",
  "/v1/videos/reference-to-video",
  "/v1/videos/frames-to-video",
  "/v1/videos/extend",
] as const;
const SPEECH = ["/v1/audio/speech"] as const;
const MUSIC = ["/v1/music/text-to-music"] as const;
const TASKS = [...IMAGES_OUT, "/v1/images/responses", "/v1/videos/prompts/enhance", ...VIDEOS_OUT, ...MUSIC, ...SPEECH];

export interface ForeignField {
  /** The foreign names (top-level body fields). */
  fields: readonly string[];
  routes: readonly string[];
  /**
   * `unknown` (default): the name is not a field here. `object`: the name is ours, but given
   * as the object another API takes there.
   */
  shape?: "unknown" | "object";
  /** This API's field for the same thing, or null where the API has no such choice. */
  use: string | null;
  /** The operation (path) that has `use`, when it is another one than the route the field was sent to. */
  on?: string;
  hint: string;
}

const CANVAS =
  'set the output size with `canvas`: {"type": "preset", "tier": "2K", "aspect": "16:9"} or {"type": "target", "width": 1536, "height": 1024}';

export const FOREIGN_FIELDS: readonly ForeignField[] = [
  // Images
  {
    fields: ["n", "num_images", "num_outputs", "batch_size", "number_of_images"],
    routes: IMAGES_OUT,
    use: "count",
    hint: "`count` (1 to 4) is the number of images; the model must support that exact count",
  },
  {
    fields: ["size", "image_size", "width", "height", "aspect_ratio", "resolution"],
    routes: IMAGES_OUT,
    use: "canvas",
    hint: CANVAS,
  },
  {
    fields: ["quality"],
    routes: IMAGES_OUT,
    use: "canvas",
    hint: "there is no `quality` field: choose the output tier with `canvas.tier` (e.g. `1K`, `2K`, `4K`) and the model with `model`",
  },
  {
    fields: ["response_format"],
    routes: IMAGES_OUT,
    use: null,
    hint: "images are always stored as artifacts: the finished task lists them in `output.images[]` with a download `url` (no `b64_json` or `url` choice; the file format is `output_format`)",
  },
  {
    fields: ["image", "image_url", "image_urls", "input_image", "init_image", "reference_images"],
    routes: IMAGES_IN,
    use: "images",
    hint: '`images` is the ordered list of input images, each a media input such as {"type": "url", "url": "https://…"}',
  },
  {
    fields: ["image", "image_url", "image_urls", "input_image", "init_image", "reference_images"],
    routes: TEXT_TO_IMAGE,
    use: "images",
    on: "/v1/images/image-to-image",
    hint: "text-to-image takes no input image: send it in `images` to POST /v1/images/image-to-image or POST /v1/images/edits",
  },
  {
    fields: ["mask", "mask_url", "mask_image"],
    routes: ["/v1/images/edits"],
    use: "edit_regions",
    hint: "no masks: `edit_regions` are normalized rectangles {image_index, x, y, width, height} over the images",
  },
  {
    fields: ["mask", "mask_url", "mask_image"],
    routes: ["/v1/images/image-to-image"],
    use: "edit_regions",
    on: "/v1/images/edits",
    hint: "no masks: POST /v1/images/edits takes `edit_regions`, normalized rectangles {image_index, x, y, width, height} over the images",
  },
  {
    fields: ["prompt_upsampling", "magic_prompt", "prompt_extend", "prompt_optimizer", "enhancePrompt"],
    routes: [...IMAGES_OUT, ...VIDEOS_OUT],
    use: "enhance_prompt",
    hint: "`enhance_prompt` (true, false, or null to keep the prompt as written) asks the model to rewrite the prompt",
  },
  // Videos
  {
    fields: ["seconds", "length", "duration_seconds", "durationSeconds", "video_length"],
    routes: VIDEOS_OUT,
    use: "duration",
    hint: "`duration` is the length in whole seconds (or `auto` for the model's default; for an extension, the final length)",
  },
  {
    fields: ["size", "width", "height", "dimensions"],
    routes: VIDEOS_OUT,
    use: "aspect_ratio",
    hint: "set the frame with `aspect_ratio` (e.g. `16:9`) and `resolution` (a tier such as `720p`)",
  },
  {
    fields: ["image_url", "input_reference", "start_image", "first_frame_image", "input_image"],
    routes: ["/v1/videos/image-to-video"],
    use: "image",
    hint: '`image` is the opening frame, a media input such as {"type": "url", "url": "https://…"}',
  },
  {
    fields: ["image", "image_url", "input_reference", "start_image", "first_frame_image"],
    routes: ["/v1/videos/frames-to-video"],
    use: "first_frame",
    hint: "`first_frame` and `last_frame` are the two frames, each a media input",
  },
  {
    fields: ["end_image", "tail_image", "last_frame_image", "image_tail"],
    routes: ["/v1/videos/frames-to-video"],
    use: "last_frame",
    hint: "`last_frame` is the closing frame, a media input",
  },
  {
    fields: ["image", "image_url", "input_reference", "start_image", "first_frame_image"],
    routes: ["/v1/videos/text-to-video"],
    use: "image",
    on: "/v1/videos/image-to-video",
    hint: "text-to-video takes no image: animate one with POST /v1/videos/image-to-video (`image`) or use POST /v1/videos/reference-to-video (`references`)",
  },
  {
    fields: ["with_audio", "enable_audio", "sound", "generateAudio"],
    routes: VIDEOS_OUT,
    use: "generate_audio",
    hint: "`generate_audio` (boolean) asks for a synchronized soundtrack",
  },
  // Speech
  {
    fields: ["voice"],
    routes: SPEECH,
    shape: "object",
    use: "voice",
    hint: "`voice` is a voice id string from GET /v1/voices (e.g. `English_expressive_narrator`); speed, volume, pitch and emotion are top-level fields",
  },
  {
    fields: ["voice_id", "voice_name", "voiceId"],
    routes: SPEECH,
    use: "voice",
    hint: "`voice` is the voice id (see GET /v1/voices)",
  },
  {
    fields: ["voice_setting", "voice_settings", "audioConfig", "audio_config"],
    routes: SPEECH,
    use: null,
    hint: "delivery settings are top-level fields: `speed`, `volume`, `pitch`, `emotion`, `format`, `sample_rate`",
  },
  {
    fields: ["text"],
    routes: SPEECH,
    use: "input",
    hint: "`input` is the text to speak",
  },
  {
    fields: ["response_format", "output_format", "audio_format", "audioEncoding", "encoding"],
    routes: SPEECH,
    use: "format",
    hint: "`format` is one of mp3, wav, flac, opus, pcm",
  },
  {
    fields: ["language_code", "languageCode", "language_boost"],
    routes: SPEECH,
    use: "language",
    hint: "`language` is a BCP-47 tag such as `en-US`",
  },
  {
    fields: ["instructions", "style"],
    routes: SPEECH,
    use: "emotion",
    hint: "there are no free-form instructions: shape delivery with `emotion`, `speed` and `pitch`",
  },
  // Music
  {
    fields: ["style", "tags", "genre", "gpt_description_prompt"],
    routes: MUSIC,
    use: "prompt",
    hint: "`prompt` describes the style, mood, genre and instrumentation",
  },
  {
    fields: ["make_instrumental"],
    routes: MUSIC,
    use: "instrumental",
    hint: "`instrumental` (boolean) asks for music without vocals",
  },
  {
    fields: ["customMode", "custom_mode", "negativeTags", "negative_tags", "vocalGender"],
    routes: MUSIC,
    use: "model_options",
    hint: "family-specific options go under `model_options.family_a` / `model_options.family_b`",
  },
  // Every task
  {
    fields: ["webhook", "webhook_url", "callback", "callBackUrl", "notify_url"],
    routes: TASKS,
    use: "callback_url",
    hint: "`callback_url` (HTTPS) receives the final task envelope",
  },
  {
    fields: ["idempotency_key", "idempotencyKey", "request_id"],
    routes: TASKS,
    use: null,
    hint: "send the key as the `Idempotency-Key` header, not in the body",
  },
];

export interface ForeignFieldMatch {
  /** JSON Pointer to the foreign field in the body. */
  param: string;
  field: string;
  row: ForeignField;
}

const byRoute = new Map<string, Map<string, ForeignField[]>>();
for (const row of FOREIGN_FIELDS) {
  for (const route of row.routes) {
    const fields = byRoute.get(route) ?? new Map<string, ForeignField[]>();
    for (const f of row.fields) fields.set(f, [...(fields.get(f) ?? []), row]);
    byRoute.set(route, fields);
  }
}

function rowFor(route: string, field: string, shape: "unknown" | "object"): ForeignField | undefined {
  return byRoute
    .get(route)
    ?.get(field)
    ?.find((r) => (r.shape ?? "unknown") === shape);
}

/** The first top-level body field of `issues` that the table knows for this route. */
export function findForeignField(
  route: string | undefined,
  issues: readonly { code: string; path: readonly PropertyKey[]; keys?: readonly string[] }[],
  input: unknown,
): ForeignFieldMatch | undefined {
  if (!route || !byRoute.has(route)) return undefined;
  for (const issue of issues) {
    if (issue.path.length > 0) {
      const field = issue.path[0];
      if (issue.path.length !== 1 || typeof field !== "string") continue;
      const value = (input as Record<string, unknown> | null)?.[field];
      if (issue.code !== "invalid_type" || typeof value !== "object" || value === null || Array.isArray(value)) continue;
      const row = rowFor(route, field, "object");
      if (row) return { param: toJsonPointer([field]), field, row };
      continue;
    }
    if (issue.code !== "unrecognized_keys") continue;
    for (const field of issue.keys ?? []) {
      const row = rowFor(route, field, "unknown");
      if (row) return { param: toJsonPointer([field]), field, row };
    }
  }
  return undefined;
}
