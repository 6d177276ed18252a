/**
 * What the conformance suite runs against ByteDance Ark, through the fake Ark started as
 * `byteplus` and as `volcengine` (test/providers/fakes/ark/server.ts): each body is valid against
 * its card, and the text goes in the prompt, which Ark receives as `prompt` (Seedream) or as the
 * task's `{type: "text"}` content (Seedance).
 * Seedream's image endpoint is synchronous (the answer is the result), so the cases about an
 * upstream job's life cannot apply to the image subjects; Seedance runs as a polled task.
 */
import type { Subject } from "../subject";

const SYNCHRONOUS = {
  progress: "Seedream answers in one synchronous response, with no queued or running states to report",
  cancel: "Seedream's call has finished before a handle exists, so there is nothing to cancel",
  unknown_status: "Seedream's image endpoint has no status to read",
};

export const subjects: Subject[] = [
  {
    name: "byteplus seedream-4.5 text_to_image",
    provider: "byteplus",
    model: "seedream-4.5",
    path: "/v1/images/generations",
    body: (text) => ({ model: "seedream-4.5", prompt: text, canvas: { type: "preset", tier: "2K", aspect: "1:1" } }),
    output: { kind: "image", count: 1, width: 2048, height: 2048 },
    skip: { ...SYNCHRONOUS, signed_inputs: "text-to-image takes no input media" },
  },
  {
    name: "byteplus seedream-4.0 image_edit",
    provider: "byteplus",
    model: "seedream-4.0",
    path: "/v1/images/edits",
    // The canvas follows the base image (the card's default `source` aspect): 512x512 → 2K square.
    body: (text, inputs) => ({
      model: "seedream-4.0",
      prompt: text,
      images: [inputs.png],
      canvas: { type: "preset", tier: "2K", aspect: "source" },
    }),
    output: { kind: "image", count: 1, width: 2048, height: 2048 },
    skip: SYNCHRONOUS,
  },
  {
    name: "volcengine seedance-2.0 text_to_video",
    provider: "volcengine",
    model: "seedance-2.0",
    path: "/v1/videos/text-to-video",
    body: (text) => ({ model: "seedance-2.0", prompt: text, duration: 5, aspect_ratio: "16:9", resolution: "720p" }),
    output: { kind: "video", count: 1 },
    skip: { signed_inputs: "text-to-video takes no input media" },
  },
  {
    name: "volcengine seedance-2.0 image_to_video",
    provider: "volcengine",
    model: "seedance-2.0",
    path: "/v1/videos/image-to-video",
    body: (text, inputs) => ({ model: "seedance-2.0", prompt: text, image: inputs.png, duration: 5, resolution: "720p" }),
    output: { kind: "video", count: 1 },
  },
];
