/**
 * What the conformance suite runs against Alibaba DashScope, through the fake in
 * test/providers/fakes/dashscope.ts: each body is valid against its Wan card, and the text goes in
 * the prompt, which DashScope receives as `input.prompt`.
 */
import type { Subject } from "../subject";

export const subjects: Subject[] = [
  {
    name: "dashscope wan-2.7 text_to_video",
    provider: "dashscope",
    model: "wan-2.7",
    path: "/v1/videos/text-to-video",
    body: (text) => ({ model: "wan-2.7", prompt: text, duration: 5, aspect_ratio: "16:9", resolution: "720p" }),
    output: { kind: "video", count: 1 },
    skip: { signed_inputs: "text-to-video takes no input media" },
  },
  {
    name: "dashscope wan-3.0 text_to_video",
    provider: "dashscope",
    model: "wan-3.0",
    path: "/v1/videos/text-to-video",
    body: (text) => ({ model: "wan-3.0", prompt: text, duration: 5, aspect_ratio: "16:9", resolution: "720p" }),
    output: { kind: "video", count: 1 },
    skip: { signed_inputs: "text-to-video takes no input media" },
  },
  {
    name: "dashscope wan-2.7 image_to_video",
    provider: "dashscope",
    model: "wan-2.7",
    path: "/v1/videos/image-to-video",
    body: (text, inputs) => ({ model: "wan-2.7", prompt: text, image: inputs.png, duration: 5, resolution: "720p" }),
    output: { kind: "video", count: 1 },
  },
];
