/** Audio for the sandbox: synthesis and the containers it is delivered in. */
export { encodeFlac } from "./flac";
export { encodeMp3, type Mp3Stream, mp3Frames } from "./mp3";
export { encodeOggOpus } from "./ogg-opus";
export { type SynthOptions, synthesize } from "./synth";
export { encodePcm, encodeWav } from "./wav";
