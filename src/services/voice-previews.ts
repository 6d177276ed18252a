/** A voice's preview clip, made by the built-in synthesizer (the sandbox Worker) in the voice's character. */
import type { VoiceFile } from "../catalog/schema";
import type { Env } from "../env";
import { hash32 } from "../lib/random";
import { sandboxService } from "../providers/sandbox-stub";

/** The clip's MP3 bytes, or undefined where this deployment has no sandbox or it made none. */
export async function voicePreviewClip(env: Env, voice: VoiceFile): Promise<Uint8Array | undefined> {
  const made = await sandboxService(env)?.render({
    task_id: `voice-preview-${voice.voice_id}`,
    capability: "text_to_speech",
    request: { input: `Hello, this is ${voice.display_name}.`, voice: voice.voice_id, format: "mp3", sample_rate: 24000 },
    inputs: [],
    seed: hash32(voice.voice_id),
  });
  const clip = made && "result" in made ? made.result.outputs[0] : undefined;
  return clip && "bytes" in clip ? clip.bytes : undefined;
}
