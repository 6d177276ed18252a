/**
 * What the shared conformance suite runs against fal (through test/providers/fakes/fal.ts).
 * Each body is valid against its model card; the text goes in the prompt, which is where fal sees it.
 */
import type { Subject } from "../subject";

const NO_INPUTS = "this request sends no input media";
const NO_VIDEO_FILTER_SIGNAL =
  "fal documents no output-filter signal for its video endpoints (has_nsfw_concepts belongs to image models); video refusals come as content_policy_violation errors";

export const subjects: Subject[] = [
  {
    name: "fal flux-2-pro text_to_image",
    provider: "fal",
    model: "flux-2-pro",
    path: "/v1/images/generations",
    body: (text) => ({ model: "flux-2-pro", prompt: text, canvas: { type: "preset", tier: "1K", aspect: "1:1" } }),
    output: { kind: "image", count: 1, width: 1024, height: 1024 },
    skip: { signed_inputs: NO_INPUTS },
  },
  {
    name: "fal flux-2-pro image_edit",
    provider: "fal",
    model: "flux-2-pro",
    path: "/v1/images/edits",
    body: (text, inputs) => ({
      model: "flux-2-pro",
      prompt: text,
      images: [inputs.png],
      canvas: { type: "preset", tier: "1K", aspect: "1:1" },
    }),
    output: { kind: "image", count: 1, width: 1024, height: 1024 },
    skip: {},
  },
  {
    name: "fal flux-kontext-pro text_to_image",
    provider: "fal",
    model: "flux-kontext-pro",
    path: "/v1/images/generations",
    body: (text) => ({ model: "flux-kontext-pro", prompt: text, canvas: { type: "preset", tier: "1K", aspect: "1:1" } }),
    output: { kind: "image", count: 1, width: 1024, height: 1024 },
    skip: { signed_inputs: NO_INPUTS },
  },
  {
    name: "fal kling-4.0 text_to_video",
    provider: "fal",
    model: "kling-4.0",
    path: "/v1/videos/text-to-video",
    body: (text) => ({ model: "kling-4.0", prompt: text, duration: 5, aspect_ratio: "16:9", resolution: "720p" }),
    output: { kind: "video", count: 1 },
    skip: { signed_inputs: NO_INPUTS, safety_output: NO_VIDEO_FILTER_SIGNAL },
  },
  {
    name: "fal pixverse-v6 image_to_video",
    provider: "fal",
    model: "pixverse-v6",
    path: "/v1/videos/image-to-video",
    body: (text, inputs) => ({ model: "pixverse-v6", prompt: text, image: inputs.png, duration: 5, resolution: "540p" }),
    output: { kind: "video", count: 1 },
    skip: { safety_output: NO_VIDEO_FILTER_SIGNAL },
  },
];
