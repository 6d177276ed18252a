/** Audio for the sandbox: synthesis and the containers it is delivered in. */
export { encodeFlac } from "./flac.ts";
export { encodeMp3, type Mp3Stream, mp3Frames } from "./mp3.ts";
export { type SynthOptions, synthesize } from "./synth.ts";
export { encodePcm, encodeWav } from "./wav.ts";
// Opus/Ogg is not offered: no installed package encodes Opus inside workerd.
