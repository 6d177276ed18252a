/** The codes an upstream's answer can end an admitted task with (src/providers/*: their status and error maps). */
export const ENDING_CODES = [
  "model_request_failed",
  "model_unavailable",
  "model_timeout",
  "model_rate_limited",
  "model_output_invalid",
  "content_filtered",
  "safety_rejected",
  "invalid_request",
  "invalid_media",
  "unsupported_option",
  "unsupported_capability",
  "unsupported_media_type",
  "unsupported_input_modality",
  "voice_model_incompatible",
  "context_length_exceeded",
] as const;
