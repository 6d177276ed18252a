/**
 * What the conformance suite runs against the Anthropic fake: image understanding on Claude
 * Sonnet 5.5. The Messages API is synchronous (the answer is the result), so the cases about an
 * upstream job's life cannot apply, and the images travel as base64 in the request.
 */
import type { Subject } from "../subject";

export const subjects: Subject[] = [
  {
    name: "anthropic claude-sonnet-5-5 image_to_text",
    provider: "anthropic",
    model: "claude-sonnet-5-5",
    path: "/v1/images/responses",
    body: (text, inputs) => ({ model: "claude-sonnet-5-5", prompt: text, images: [inputs.png], max_output_tokens: 1024 }),
    output: { kind: "text", count: 0 },
    skip: {
      progress: "synchronous API: the answer arrives in one response, with no queued or running states to report",
      cancel: "synchronous API: the call has finished before a handle exists, so there is nothing to cancel",
      unknown_status: "synchronous API: there is no status endpoint to answer an unlisted status",
      expiring_output: "the answer is text inside the response, never an upstream URL",
      signed_inputs: "images are sent as base64 sources of the stored bytes; Anthropic is never given a URL",
    },
  },
];
