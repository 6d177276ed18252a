/**
 * What the conformance suite runs against the OpenAI fake: one public request per OpenAI
 * endpoint the adapter uses. OpenAI's media calls are synchronous (the answer is the result), so
 * the cases about an upstream job's life (progress, status, cancel, output URLs) cannot apply.
 */
import type { Subject } from "../subject";

const SYNCHRONOUS = {
  progress: "synchronous API: the answer arrives in one response, with no queued or running states to report",
  cancel: "synchronous API: the call has finished before a handle exists, so there is nothing to cancel",
  unknown_status: "synchronous API: there is no status endpoint to answer an unlisted status",
  expiring_output: "outputs arrive inline in the answer (base64 or the audio bytes), never as upstream URLs",
};

const ONE_K_SQUARE = { type: "preset", tier: "1K", aspect: "1:1" };

export const subjects: Subject[] = [
  {
    name: "openai gpt-image-2 text_to_image",
    provider: "openai",
    model: "gpt-image-2",
    path: "/v1/images/generations",
    body: (text) => ({ model: "gpt-image-2", prompt: text, count: 1, canvas: ONE_K_SQUARE }),
    output: { kind: "image", count: 1, width: 1024, height: 1024 },
    skip: { ...SYNCHRONOUS, signed_inputs: "text-to-image takes no input media" },
  },
  {
    name: "openai gpt-image-2 image_edit",
    provider: "openai",
    model: "gpt-image-2",
    path: "/v1/images/edits",
    body: (text, inputs) => ({ model: "gpt-image-2", prompt: text, images: [inputs.png], count: 1, canvas: ONE_K_SQUARE }),
    output: { kind: "image", count: 1, width: 1024, height: 1024 },
    skip: {
      ...SYNCHRONOUS,
      signed_inputs: "edits upload the stored input bytes as multipart `image[]` files; OpenAI is never given a URL",
    },
  },
  {
    name: "openai gpt-4o-mini-tts text_to_speech",
    provider: "openai",
    model: "gpt-4o-mini-tts",
    path: "/v1/audio/speech",
    body: (text) => ({ model: "gpt-4o-mini-tts", voice: "alloy", input: text, format: "mp3" }),
    output: { kind: "audio", count: 1 },
    skip: {
      ...SYNCHRONOUS,
      safety_input: "OpenAI documents no content-policy refusal for /audio/speech",
      safety_output: "OpenAI documents no output filter signal for /audio/speech",
      signed_inputs: "text-to-speech takes no input media",
    },
  },
  {
    name: "openai video-prompt-enhancer video_prompt_enhance",
    provider: "openai",
    model: "video-prompt-enhancer",
    path: "/v1/videos/prompts/enhance",
    body: (text) => ({ model: "video-prompt-enhancer", prompt: text, target_model: "seedance-2.0", language: "en" }),
    output: { kind: "text", count: 0 },
    skip: {
      ...SYNCHRONOUS,
      safety_input:
        "chat completions document no input refusal status; a model refusal arrives in-band (message.refusal) and the filter as finish_reason content_filter (safety_output)",
      signed_inputs: "context images are sent to OpenAI as data URIs of the stored bytes, never as URLs",
    },
  },
  {
    name: "openai gpt-6-luna image_to_text",
    provider: "openai",
    model: "gpt-6-luna",
    path: "/v1/images/responses",
    body: (text, inputs) => ({ model: "gpt-6-luna", prompt: text, images: [inputs.png] }),
    output: { kind: "text", count: 0 },
    skip: {
      ...SYNCHRONOUS,
      safety_input:
        "chat completions document no input refusal status; a model refusal arrives in-band (message.refusal) and the filter as finish_reason content_filter (safety_output)",
      signed_inputs: "images are sent to OpenAI as data URIs of the stored bytes, never as URLs",
    },
  },
];
