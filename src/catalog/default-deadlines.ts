import type { Capability } from "./capability";

// Kept in catalog/ so that a card's timing can be checked against it without the catalog reaching into tasks/.

/** How long a task may run before it ends failed with `model_timeout` (seconds), when the create sets no `deadline_seconds`. */
const DEADLINES: Partial<Record<Capability, number>> = {
  text_to_image: 600,
  image_to_image: 600,
  image_edit: 600,
  image_to_text: 300,
  video_prompt_enhance: 300,
  text_to_music: 1200,
  text_to_speech: 600,
  video_to_text: 1200,
};
const VIDEO_DEADLINE = 3600;

export function deadlineSeconds(capability: Capability): number {
  return DEADLINES[capability] ?? VIDEO_DEADLINE;
}
