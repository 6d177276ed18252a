/**
 * What the shared conformance suite runs against Runway (through test/providers/fakes/runway.ts):
 * Gen-4 Turbo image-to-video from the suite's PNG, which Runway reads from a signed input URL of
 * this service. The body stays within the card (runway-gen4-turbo: 2–10 s, 16:9 among its six
 * ratios, 720p only, one start image); the text goes in the prompt, Runway's `promptText`.
 * 16:9 at 720p is Runway's 1280:720, so the video is 1280x720.
 */
import type { Subject } from "../subject";

export const subjects: Subject[] = [
  {
    name: "runway runway-gen4-turbo image_to_video",
    provider: "runway",
    model: "runway-gen4-turbo",
    path: "/v1/videos/image-to-video",
    body: (text, inputs) => ({
      model: "runway-gen4-turbo",
      prompt: text,
      image: inputs.png,
      duration: 5,
      aspect_ratio: "16:9",
      resolution: "720p",
    }),
    output: { kind: "video", count: 1, width: 1280, height: 720 },
  },
];
