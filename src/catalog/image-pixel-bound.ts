/**
 * The most pixels an image input may have anywhere in the service: the largest image any offered
 * card accepts, from its `edge_pixels` maximum within its aspect-ratio bounds. An upload over it
 * is refused from its header, before its image data is inflated or stored: no card could take it.
 * A card that states no edge limit adds nothing; it is held to the caps of src/media/uploads.ts.
 * The same bound holds for a task's inputs however they come (a URL, a data URI, an artifact),
 * checked from the probed dimensions before the image data is inflated to validate it.
 */

import { ApiError } from "../errors/api-error";
import type { CatalogBundle } from "./build";
import { isOffered } from "./views";

const ratio = (text: string) => {
  const [a, b] = text.split(":").map(Number) as [number, number | undefined];
  return b === undefined ? a : a / b;
};

/** The largest width × height with both edges at most `edge` and width/height within [lo, hi]. */
function largestArea(edge: number, lo: number, hi: number): number {
  if (lo <= 1 && hi >= 1) return edge * edge;
  // Every allowed shape is wider than tall (lo > 1) or taller than wide (hi < 1): the long edge is at its maximum.
  return hi < 1 ? Math.floor(edge * hi) * edge : edge * Math.floor(edge / lo);
}

const bounds = new WeakMap<CatalogBundle, number | undefined>();

/** Undefined when no offered card states an edge limit for an image input. */
export function largestImageInputPixels(bundle: CatalogBundle): number | undefined {
  if (bounds.has(bundle)) return bounds.get(bundle);
  let largest: number | undefined;
  for (const model of Object.values(bundle.models)) {
    for (const card of model.interfaces) {
      if (!isOffered(model, card)) continue;
      for (const input of card.inputs ?? []) {
        const edges = input.kind === "image" ? input.hard_constraints.edge_pixels : undefined;
        if (!edges) continue;
        const aspect = input.hard_constraints.aspect_ratio;
        const area = aspect
          ? largestArea(edges.maximum, ratio(aspect.minimum), ratio(aspect.maximum))
          : edges.maximum * edges.maximum;
        largest = Math.max(largest ?? 0, area);
      }
    }
  }
  bounds.set(bundle, largest);
  return largest;
}

/** `422 media_too_large` at `param` for an image of more than `max` pixels; nothing when no bound. */
export function checkImagePixels(
  size: { width?: number; height?: number } | undefined,
  max: number | undefined,
  param: string,
): void {
  if (max === undefined || !size?.width || !size.height || size.width * size.height <= max) return;
  throw new ApiError(
    "media_too_large",
    `The image is ${size.width}×${size.height} (${size.width * size.height} pixels); no model accepts an image over ${max} pixels.`,
    { param, details: { kind: "image", max_pixels: max, width: size.width, height: size.height } },
  );
}
