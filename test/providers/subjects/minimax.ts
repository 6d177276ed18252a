/**
 * What the conformance suite runs against the fake MiniMax (test/providers/fakes/minimax.ts): the
 * cards routed to MiniMax, speech-2.8-hd (T2A v2) and music-2.6. Both calls are synchronous (the
 * answer is the result), so the cases about an upstream job's life cannot apply. No card routes
 * video to MiniMax yet; the video task is exercised in test/providers/minimax.test.ts.
 */
import type { Subject } from "../subject";

const SYNCHRONOUS = {
  progress: "MiniMax answers speech and music in one synchronous response, with no queued or running states to report",
  cancel:
    "the synchronous call has finished before a handle exists, so there is nothing to cancel (MiniMax has no cancel endpoint)",
  unknown_status: "speech and music have no status endpoint to answer an unlisted status",
};

export const subjects: Subject[] = [
  {
    name: "minimax speech-2.8-hd text_to_speech",
    provider: "minimax",
    model: "speech-2.8-hd",
    path: "/v1/audio/speech",
    body: (text) => ({ model: "speech-2.8-hd", voice: "English_radiant_girl", input: text }),
    output: { kind: "audio", count: 1 },
    skip: {
      ...SYNCHRONOUS,
      expiring_output: "speech is asked with output_format hex: the audio arrives inside the answer, never as an upstream URL",
      signed_inputs: "text-to-speech takes no input media",
    },
  },
  {
    name: "minimax music-2.6 text_to_music",
    provider: "minimax",
    model: "music-2.6",
    path: "/v1/music/text-to-music",
    body: (text) => ({
      model: "music-2.6",
      prompt: text,
      lyrics: "[verse]\nLight on the water\nMorning on the shore",
      model_options: { family_b: { audio_setting: { format: "mp3", sample_rate: 44100, bitrate: 256000 } } },
    }),
    output: { kind: "audio", count: 1 },
    skip: { ...SYNCHRONOUS, signed_inputs: "text-to-music takes no input media" },
  },
];
