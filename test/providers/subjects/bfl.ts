/**
 * What the shared conformance suite runs against Black Forest Labs (through test/providers/fakes/bfl.ts):
 * FLUX.2 [pro] and [max] text-to-image, and a FLUX.1 Kontext [pro] edit of the suite's PNG, which
 * BFL reads from a signed input URL of this service. The text goes in the prompt, where BFL sees it;
 * the canvas is a 1K square, so every output is 1024x1024 (Kontext renders ~1 MP at 1:1).
 */
import type { Subject } from "../subject";

const canvas = { type: "preset", tier: "1K", aspect: "1:1" };
const square = { kind: "image", count: 1, width: 1024, height: 1024 } as const;
const NO_CANCEL = "BFL documents no way to cancel a submitted task; the service answers 409 and the task runs on";
const NO_INPUTS = "text-to-image sends no input media";

export const subjects: Subject[] = [
  {
    name: "bfl flux-2-pro text_to_image",
    provider: "bfl",
    model: "flux-2-pro",
    path: "/v1/images/generations",
    body: (text) => ({ model: "flux-2-pro", prompt: text, canvas }),
    output: square,
    skip: { cancel: NO_CANCEL, signed_inputs: NO_INPUTS },
  },
  {
    name: "bfl flux-2-max text_to_image",
    provider: "bfl",
    model: "flux-2-max",
    path: "/v1/images/generations",
    body: (text) => ({ model: "flux-2-max", prompt: text, canvas }),
    output: square,
    skip: { cancel: NO_CANCEL, signed_inputs: NO_INPUTS },
  },
  {
    name: "bfl flux-kontext-pro image_edit",
    provider: "bfl",
    model: "flux-kontext-pro",
    path: "/v1/images/edits",
    body: (text, inputs) => ({ model: "flux-kontext-pro", prompt: text, images: [inputs.png], canvas }),
    output: square,
    skip: { cancel: NO_CANCEL },
  },
];
