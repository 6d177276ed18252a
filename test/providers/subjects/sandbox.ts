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
    // A test-mode key runs on the sandbox whatever providers are configured.
    name: "sandbox speech-2.8-hd text_to_speech",
    provider: "sandbox",
    keyMode: "test",
    model: "speech-2.8-hd",
    path: "/v1/audio/speech",
    body: (text) => ({ model: "speech-2.8-hd", voice: "English_radiant_girl", input: text }),
    output: { kind: "audio", count: 1 },
    scenarioMetadata: (scenario) => (FAULTS[scenario] ? { sandbox_fault: FAULTS[scenario] } : null),
    skip: {
      progress: "the sandbox finishes at once in tests (SANDBOX_LATENCY_SCALE=0)",
      submit_429: "the sandbox has no submission endpoint to refuse",
      submit_5xx: "the sandbox has no submission endpoint to fail",
      safety_input: "the sandbox reviews no input",
      expiring_output: "the sandbox's outputs are bytes, not URLs",
      unknown_status: "the sandbox reports only its own statuses",
      malformed: "the sandbox has no wire format",
      signed_inputs: "text-to-speech takes no input media",
    },
  },
];
