/** The operations a model can offer: the key of every card, route price and default deadline. */
import { z } from "zod";

export const CAPABILITIES = [
  "chat_completion",
  "text_to_image",
  "image_to_image",
  "image_edit",
  "image_to_text",
  "video_prompt_enhance",
  "text_to_video",
  "image_to_video",
  "reference_to_video",
  "frames_to_video",
  "video_extend",
  "video_to_text",
  "text_to_music",
  "text_to_speech",
] as const;
export const Capability = z.enum(CAPABILITIES);
export type Capability = z.infer<typeof Capability>;
