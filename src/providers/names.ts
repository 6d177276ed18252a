/**
 * Which upstreams the code can call and what each serves: plain data, so that the catalog check
 * (which runs outside the Worker) and the catalog views agree with the registry without loading
 * the adapters. A test holds the registry's adapters to this table.
 */
import { CAPABILITIES, type Capability } from "../catalog/schema";
import type { MediaCapability } from "./jobs";

export interface ProviderServes {
  media: readonly MediaCapability[];
  chat: boolean;
  /** No documented default host: PROVIDER_<NAME>_BASE_URL is required as well as the key. */
  needsBaseUrl?: boolean;
  /** Its outputs are simulated, not a real model's: the envelope warns of it, and it alone speaks sample voices. */
  simulated?: boolean;
}

const IMAGES = ["text_to_image", "image_to_image", "image_edit"] as const;

export const PROVIDERS: Readonly<Record<string, ProviderServes>> = {
  // The simulator serves every capability there is.
  sandbox: {
    media: CAPABILITIES.filter((c): c is MediaCapability => c !== "chat_completion"),
    chat: true,
    simulated: true,
  },
  openai: { media: [...IMAGES, "image_to_text", "text_to_speech", "video_prompt_enhance"], chat: true },
  "openai-compatible": { media: [], chat: true, needsBaseUrl: true },
  deepseek: { media: [], chat: true },
  fal: { media: [...IMAGES, "text_to_video", "image_to_video", "frames_to_video", "video_extend"], chat: false },
  replicate: { media: [...IMAGES], chat: false },
  google: {
    media: [
      ...IMAGES,
      "image_to_text",
      "video_to_text",
      "text_to_video",
      "image_to_video",
      "reference_to_video",
      "frames_to_video",
      "video_extend",
    ],
    chat: true,
  },
  anthropic: { media: ["image_to_text"], chat: true },
  bfl: { media: [...IMAGES], chat: false },
  // ByteDance Ark: one protocol, two platforms with their own hosts and keys.
  byteplus: {
    media: [...IMAGES, "text_to_video", "image_to_video", "reference_to_video", "frames_to_video", "video_extend"],
    chat: false,
  },
  volcengine: {
    media: [...IMAGES, "text_to_video", "image_to_video", "reference_to_video", "frames_to_video", "video_extend"],
    chat: false,
  },
  minimax: { media: ["text_to_video", "image_to_video", "frames_to_video", "text_to_music", "text_to_speech"], chat: false },
  dashscope: { media: ["text_to_video", "image_to_video", "reference_to_video", "frames_to_video", "video_extend"], chat: false },
  luma: { media: ["text_to_video", "image_to_video", "frames_to_video", "video_extend"], chat: false },
  runway: { media: ["image_to_video"], chat: false },
  // Suno has no official API: a relay with a documented task API serves it.
  kie: { media: ["text_to_music"], chat: false },
};

export const SANDBOX = "sandbox";

/** Whether the code has an adapter that serves `capability` for `provider`. */
export function serves(provider: string, capability: Capability): boolean {
  const p = Object.hasOwn(PROVIDERS, provider) ? PROVIDERS[provider] : undefined;
  if (!p) return false;
  return capability === "chat_completion" ? p.chat : (p.media as readonly string[]).includes(capability);
}
