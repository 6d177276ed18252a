/** What a probe finds, and the two ways a probe refuses bytes. */

export interface ProbedMedia {
  kind: "image" | "video" | "audio";
  /** image/png, image/jpeg, image/webp, image/gif, video/mp4, video/quicktime, video/webm,
   * audio/wav, audio/mpeg, audio/flac, audio/ogg; audio/mp4 and audio/webm for audio-only containers. */
  mime: string;
  bytes: number;
  width?: number;
  height?: number;
  alpha?: boolean;
  animated?: boolean;
  frames?: number;
  duration_seconds?: number;
  has_audio?: boolean;
  sample_rate?: number;
  channels?: number;
  bits_per_sample?: number;
}

export type Facts = Omit<ProbedMedia, "bytes">;

/** A known format whose structure does not hold; becomes invalid_media. */
export class Malformed extends Error {}
/** A recognised container holding something this service does not take; becomes unsupported_media_type. */
export class Unsupported extends Error {}

export function fail(why: string): never {
  throw new Malformed(why);
}
