/**
 * What the shared conformance suite runs against the Replicate route: flux-2-pro's three image
 * capabilities. The text (with its #tag/#fake markers) goes in the prompt, which Replicate receives
 * as `input.prompt`; the canvas is a 1K square preset, so the fake's PNG is 1024x1024.
 */
import type { Subject } from "../subject";

const canvas = { type: "preset", tier: "1K", aspect: "1:1" };
const square = { kind: "image", count: 1, width: 1024, height: 1024 } as const;

export const subjects: Subject[] = [
  {
    name: "replicate flux-2-pro text_to_image",
    provider: "replicate",
    model: "flux-2-pro",
    path: "/v1/images/generations",
    body: (text) => ({ model: "flux-2-pro", prompt: text, canvas }),
    output: square,
    skip: { signed_inputs: "text-to-image takes no input media" },
  },
  {
    name: "replicate flux-2-pro image_to_image",
    provider: "replicate",
    model: "flux-2-pro",
    path: "/v1/images/image-to-image",
    body: (text, inputs) => ({ model: "flux-2-pro", prompt: text, images: [inputs.png], canvas }),
    output: square,
  },
  {
    name: "replicate flux-2-pro image_edit",
    provider: "replicate",
    model: "flux-2-pro",
    path: "/v1/images/edits",
    body: (text, inputs) => ({ model: "flux-2-pro", prompt: text, images: [inputs.png], canvas }),
    output: square,
  },
];
