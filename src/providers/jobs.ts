/**
 * What an adapter receives: one job, typed per capability. The operations in src/operations
 * build these at admission (their `providerRequest`), so the task object stores them as they are
 * and an adapter never reads a free-form record.
 */
import type { Capability, InterfaceFile } from "../catalog/schema";

/** A media input the service fetched, probed and keeps in its own storage (R2 key `key`). */
export interface JobInput {
  /** The body field that carried it: images, image, video, first_frame, last_frame, references, … */
  field: string;
  key: string;
  kind: "image" | "video" | "audio";
  mime: string;
  role?: string;
  bytes?: number;
  width?: number;
  height?: number;
  alpha?: boolean;
  duration_seconds?: number;
  has_audio?: boolean;
  /** For an earlier output of this service: the upstream and job that made it (an extension can name it). */
  origin?: { provider: string; job_id: string };
}

export interface EditRegion {
  image_index: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ImageRequest {
  prompt: string;
  count: number;
  /** Exact output pixels the card resolved for the canvas. */
  dimensions: { width: number; height: number };
  canvas?: { type: "preset"; tier: string; aspect: string } | { type: "target"; width: number; height: number };
  seed?: number;
  negative_prompt?: string;
  enhance_prompt?: unknown;
  palette?: { color: string; weight: number }[];
  output_relationship: "independent" | "sequence";
  reasoning?: unknown;
  edit_regions?: EditRegion[];
  /** The media type to deliver (the request's `output_format`, else the card's default); absent in tasks admitted before it existed. */
  output_format?: string;
}

export interface UnderstandingRequest {
  prompt: string;
  detail: string;
  response_format: string;
  temperature?: number;
  max_output_tokens?: number;
}

export interface PromptEnhanceRequest {
  prompt: string;
  target_model?: string;
  language?: string;
  style?: string;
}

export interface VideoRequest {
  prompt: string;
  duration: number;
  aspect_ratio: string;
  resolution: string;
  seed?: number;
  negative_prompt?: string;
  enhance_prompt?: unknown;
  watermark: boolean;
  generate_audio: boolean;
  web_search: boolean;
  return_last_frame: boolean;
  output_format: "mp4" | "mov";
  /** Extension only. */
  direction?: "before" | "after";
  source_duration?: number;
}

export interface MusicRequest {
  prompt: string;
  lyrics?: string;
  instrumental: boolean;
  title?: string;
  model_options?: Record<string, any>;
  tracks: number;
  format: string;
  sample_rate?: number;
  bitrate?: number;
}

export interface SpeechRequest {
  input: string;
  voice: string;
  language?: string;
  format: "mp3" | "wav" | "flac" | "opus" | "aac" | "pcm";
  sample_rate?: number;
  speed: number;
  volume: number;
  pitch: number;
  emotion?: string;
}

export interface RequestByCapability {
  text_to_image: ImageRequest;
  image_to_image: ImageRequest;
  image_edit: ImageRequest;
  image_to_text: UnderstandingRequest;
  video_prompt_enhance: PromptEnhanceRequest;
  text_to_video: VideoRequest;
  image_to_video: VideoRequest;
  reference_to_video: VideoRequest;
  frames_to_video: VideoRequest;
  video_extend: VideoRequest;
  video_to_text: UnderstandingRequest;
  text_to_music: MusicRequest;
  text_to_speech: SpeechRequest;
}
export type MediaCapability = keyof RequestByCapability;

export type ImageCapability = "text_to_image" | "image_to_image" | "image_edit";
export type VideoCapability = "text_to_video" | "image_to_video" | "reference_to_video" | "frames_to_video" | "video_extend";

interface JobBase {
  task_id: string;
  tenant_id: string;
  /** The card's model id (`flux-2-pro`) and the id the upstream knows it by on this route. */
  model: string;
  upstream_model: string;
  card: InterfaceFile;
  inputs: JobInput[];
  metadata: Record<string, string>;
}

/** A job for one capability: `request` is that capability's typed request. */
export type JobFor<C extends MediaCapability> = JobBase & { capability: C; request: RequestByCapability[C] };
export type ProviderJob = { [C in MediaCapability]: JobFor<C> }[MediaCapability];

export function isCapability<C extends MediaCapability>(
  job: ProviderJob,
  ...caps: C[]
): job is Extract<ProviderJob, { capability: C }> {
  return (caps as Capability[]).includes(job.capability);
}

/** The image type a job is to deliver: what admission resolved, else (older tasks) the card's default. */
export function imageOutputType(job: JobFor<ImageCapability>): string | undefined {
  return job.request.output_format ?? job.card.outputs?.format;
}
