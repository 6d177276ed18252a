/**
 * What the conformance suite runs against Luma Ray 3.2, through the fake Agents API
 * (test/providers/fakes/luma.ts): each body is valid against the luma-ray-3.2 card, and the text
 * goes in the prompt, which Luma receives as `prompt`.
 */
import type { Subject } from "../subject";

const NO_CANCEL =
  "Luma's Agents API documents no way to stop a generation (no cancel or delete endpoint), so the adapter answers not_cancelable and nothing reaches the upstream";

export const subjects: Subject[] = [
  {
    name: "luma ray-3.2 text_to_video",
    provider: "luma",
    model: "luma-ray-3.2",
    path: "/v1/videos/text-to-video",
    body: (text) => ({ model: "luma-ray-3.2", prompt: text, duration: 5, aspect_ratio: "16:9", resolution: "720p" }),
    output: { kind: "video", count: 1 },
    skip: { cancel: NO_CANCEL, signed_inputs: "text-to-video takes no input media" },
  },
  {
    name: "luma ray-3.2 image_to_video",
    provider: "luma",
    model: "luma-ray-3.2",
    path: "/v1/videos/image-to-video",
    body: (text, inputs) => ({ model: "luma-ray-3.2", prompt: text, image: inputs.png, duration: 5, resolution: "720p" }),
    output: { kind: "video", count: 1 },
    skip: { cancel: NO_CANCEL },
  },
];
