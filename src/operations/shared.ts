/** Pieces several operations share: estimates and control defaults. */
import type { Selection } from "../catalog/select";
import { unicodeLength } from "../catalog/select";
import type { MediaInputT } from "../media/resolve-input";
import type { MediaKind, MediaRef } from "./types";

/**
 * Structural bounds where a card's own limit decides: sanity bounds far above every card's value
 * (test/operations/structural-bounds.test.ts holds them there), so that a value past a concrete
 * card's limit is that card's `unsupported_option`, never a structural `invalid_request`.
 */
export const SANITY_BOUNDS = {
  /** Output tokens of an understanding answer (cards go to 128,000). */
  max_output_tokens: 1_048_576,
  /** Prompt characters where cards count in tokens (32,000 tokens is some 128,000 characters). */
  image_prompt_characters: 262_144,
  /** References of a video request (a card may take 10 images, 5 videos and 5 audio clips). */
  video_references: 32,
} as const;

/** A control's value as it applies: sent, else the card's default. */
export function resolved(selection: Selection, field: string): unknown {
  const v = selection.controls[field];
  if (v === "model_default" || v === undefined) return selection.card.controls.find((c) => c.field === field)?.default;
  return v;
}

/** One media input (or a list) of a body field as media refs with their pointers. */
export function refs(field: string, kind: MediaKind, value: MediaInputT | MediaInputT[] | undefined): MediaRef[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.map((input, i) => ({ field, kind, input, param: `/${field}/${i}` }));
  return [{ field, kind, input: value, param: `/${field}` }];
}

/** Prompt tokens as a budget: about four characters a token, and a fixed allowance per image. */
export function promptTokens(text: string, images = 0): number {
  return Math.ceil(unicodeLength(text) / 4) + images * 1100;
}

/**
 * The output budget of a token-billed task: what the caller asked for, else the card's default
 * budget for the operation (never its maximum). It is both what is reserved and what the upstream
 * may generate, so the output part of a charge never exceeds the hold.
 */
export function maxOutputTokens(selection: Selection, asked: number | undefined): number {
  return asked ?? selection.card.default_output_tokens ?? selection.card.max_output_tokens ?? 2048;
}

/** Image tier of the selection's output dimensions, for cards priced by tier. */
export function tierOf(selection: Selection, asked?: string): string {
  if (asked && asked !== "source") return asked;
  const d = selection.dimensions;
  if (!d) return "2K";
  const mp = (d.width * d.height) / 1_000_000;
  return mp <= 1.3 ? "1K" : mp <= 4.5 ? "2K" : "4K";
}
