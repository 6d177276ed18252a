/**
 * What the conformance suite runs against the Gemini API fake (test/providers/fakes/google.ts).
 * Image and understanding calls are synchronous generateContent calls whose answers carry the
 * result inline, so the cases about an upstream job's life cannot apply to them; video is a
 * long-running operation and runs nearly every case.
 */
import type { Subject } from "../subject";

const SYNCHRONOUS = {
  progress: "generateContent is synchronous: the answer arrives in one response, with no queued or running states to report",
  cancel: "generateContent has finished before a handle exists, so there is nothing to cancel",
  unknown_status: "generateContent is synchronous: there is no status to read",
  expiring_output: "the output arrives inline in the answer (base64 inlineData or text), never as an upstream URL",
};
const INLINE = "input images are sent to Gemini inline (base64 inlineData of the stored bytes), never as URLs";
const NO_INPUTS = "this request sends no input media";

const ONE_K_SQUARE = { type: "preset", tier: "1K", aspect: "1:1" };

export const subjects: Subject[] = [
  {
    name: "google gemini-3-pro-image text_to_image",
    provider: "google",
    model: "gemini-3-pro-image",
    path: "/v1/images/generations",
    body: (text) => ({ model: "gemini-3-pro-image", prompt: text, count: 1, canvas: ONE_K_SQUARE }),
    output: { kind: "image", count: 1, width: 1024, height: 1024 },
    skip: { ...SYNCHRONOUS, signed_inputs: NO_INPUTS },
  },
  {
    name: "google gemini-nano-banana-2.1 image_edit",
    provider: "google",
    model: "gemini-nano-banana-2.1",
    path: "/v1/images/edits",
    body: (text, inputs) => ({
      model: "gemini-nano-banana-2.1",
      prompt: text,
      images: [inputs.png],
      count: 1,
      canvas: { type: "preset", tier: "1K", aspect: "16:9" },
    }),
    output: { kind: "image", count: 1, width: 1376, height: 768 },
    skip: { ...SYNCHRONOUS, signed_inputs: INLINE },
  },
  {
    name: "google gemini-3.5-flash image_to_text",
    provider: "google",
    model: "gemini-3.5-flash",
    path: "/v1/images/responses",
    body: (text, inputs) => ({ model: "gemini-3.5-flash", prompt: text, images: [inputs.png], detail: "high" }),
    output: { kind: "text", count: 0 },
    skip: { ...SYNCHRONOUS, signed_inputs: INLINE },
  },
  {
    name: "google gemini-omni-1.2-flash text_to_video",
    provider: "google",
    model: "gemini-omni-1.2-flash",
    path: "/v1/videos/text-to-video",
    body: (text) => ({ model: "gemini-omni-1.2-flash", prompt: text, duration: 4, aspect_ratio: "16:9", resolution: "720p" }),
    output: { kind: "video", count: 1 },
    skip: {
      cancel:
        "the Gemini API binds CancelOperation for batches only, not for model operations: a running video cannot be stopped (the task answers 409 and keeps running)",
      safety_input:
        "predictLongRunning has no separate input refusal: a refused prompt ends the operation like a filtered output (raiMediaFilteredCount/raiMediaFilteredReasons), which is content_filtered (covered by safety_output and the unit tests)",
      signed_inputs: NO_INPUTS,
    },
  },
];
