/** What a selection is asked (the request as the catalog sees it) and what it answers. */
import type { ErrorCode } from "../../errors/codes";
import type { ProbedMedia } from "../../media/probe";
import type { Capability, InterfaceFile, ModelFile } from "../schema";

export type Canvas = { type: "preset"; tier: string; aspect: string } | { type: "target"; width: number; height: number };

/** What the service learned about one media input, from its bytes (src/media/probe/). */
export type MediaFacts = ProbedMedia;

export interface RequestMedia {
  /** The body field that carries it (images, image, video, audio, first_frame, references, …). */
  field: string;
  kind: "image" | "video" | "audio";
  /** JSON Pointer to the input in the body. */
  param: string;
  transport: "url" | "artifact" | "data_uri";
  /** For url inputs: whether the URL is https. */
  https: boolean;
  encoded_length?: number;
  facts: MediaFacts;
}

export interface SelectionRequest {
  capability: Capability;
  model: string;
  /** The text the card's `prompt` spec limits, and the body field that carries it. */
  prompt?: { field: string; text: string };
  /** Body fields that map to card controls, as sent (undefined = omitted). */
  controls: Record<string, unknown>;
  canvas?: Canvas;
  /** Media inputs, already fetched and probed. */
  media?: RequestMedia[];
  /** The voice of a speech request and the models it resolves on. */
  voice?: { voice_id: string; compatible_models: string[] };
  /** Every body field by dotted path, for card rules. */
  fields?: Record<string, unknown>;
  /** The calling key's model list, as a test (src/accounts/key-limits.ts); `auto` skips the models it leaves out. */
  allowModel?: (model: string) => boolean;
  /** The output format the request comes to on a card (its field and media type), where the operation makes files. */
  output?: (selection: Selection) => OutputFormat | undefined;
  /** For `auto`: why a candidate that honours the request is still passed over (its price is over the request's cap). */
  overCap?: (selection: Selection) => CandidateFailure | null;
  /** For `auto`: a candidate every route of which has its circuit open (src/health/route-order.ts). */
  unhealthy?: (selection: Selection) => CandidateFailure | null;
}

/** The format a request's output is to be delivered in, and the body field that chooses it. */
export interface OutputFormat {
  /** JSON Pointer of the field (where it would be when omitted). */
  param: string;
  mime: string;
}

export interface CandidateFailure {
  model: string;
  code: string;
  param: string;
  message: string;
  received?: unknown;
  supported?: unknown;
  /** Which public error this failure is, when the model is requested by name. */
  error: Extract<
    ErrorCode,
    | "unsupported_option"
    | "unsupported_input_modality"
    | "context_length_exceeded"
    | "unsupported_media_type"
    | "media_too_large"
    | "voice_model_incompatible"
    | "invalid_request"
  >;
}

export interface Selection {
  model: ModelFile;
  card: InterfaceFile;
  /** Every control of the card with the value that applies: sent, default, or "model_default". */
  controls: Record<string, unknown>;
  /** Exact output pixels for image operations. */
  dimensions?: { width: number; height: number };
  /** The output format resolved on this card. */
  output?: OutputFormat;
}
