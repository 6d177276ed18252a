/**
 * What the shared conformance suite runs against Kie's Suno relay (through test/providers/fakes/kie.ts):
 * Suno v5 text-to-music in simple mode, where the text is the prompt Kie sees. Every request
 * yields two MP3 tracks, the card's fixed count.
 */
import type { Subject } from "../subject";

export const subjects: Subject[] = [
  {
    name: "kie suno-v5 text_to_music",
    provider: "kie",
    model: "suno-v5",
    path: "/v1/music/text-to-music",
    body: (text) => ({ model: "suno-v5", prompt: text, instrumental: true }),
    output: { kind: "audio", count: 2 },
    skip: {
      cancel: "Kie documents no way to cancel a Suno task; the service answers 409 and the task runs on",
      signed_inputs: "text-to-music sends no input media",
    },
  },
];
