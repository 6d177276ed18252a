/**
 * The built-in sandbox in the conformance suite: it has no wire format, so scenarios come through
 * its fault injection (`metadata.sandbox_fault`), and what a simulator cannot show is skipped.
 */
import type { Subject } from "../subject";

const FAULTS: Record<string, string> = {
  safety_output: "content_filtered",
  slow: "stay_queued",
};

export const subjects: Subject[] = [
  {
    name: "sandbox seedream-4.5 text_to_image",
    provider: "sandbox",
    model: "seedream-4.5",
    path: "/v1/images/generations",
    body: (text) => ({ model: "seedream-4.5", prompt: text, canvas: { type: "preset", tier: "2K", aspect: "1:1" } }),
    output: { kind: "image", count: 1, width: 2048, height: 2048 },
    scenarioMetadata: (scenario) => (FAULTS[scenario] ? { sandbox_fault: FAULTS[scenario] } : null),
    skip: {
      progress: "the sandbox finishes at once in tests (SANDBOX_LATENCY_SCALE=0)",
      submit_429: "the sandbox has no submission endpoint to refuse",
      submit_5xx: "the sandbox has no submission endpoint to fail",
      safety_input: "the sandbox reviews no input",
      expiring_output: "the sandbox's outputs are bytes, not URLs",
      unknown_status: "the sandbox reports only its own statuses",
      malformed: "the sandbox has no wire format",
      signed_inputs: "text-to-image takes no input media",
    },
  },
];
