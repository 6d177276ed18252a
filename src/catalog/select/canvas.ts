/** The requested canvas resolved on a card: a preset tier and aspect, or a target size normalised and bounded. */
import type { InterfaceFile, ModelFile } from "../schema";
import type { CandidateFailure, Canvas, RequestMedia } from "./types";

export function ratio(text: string): number {
  const [a, b] = text.split(":").map(Number) as [number, number | undefined];
  return b === undefined ? a : a / b;
}

export function resolveCanvas(
  model: ModelFile,
  card: InterfaceFile,
  canvas: Canvas,
): { failure: CandidateFailure } | { dimensions: { width: number; height: number } } {
  const spec = card.canvas;
  const fail = (code: string, param: string, message: string, received: unknown, supported: unknown) => ({
    failure: { model: model.model, code, param, message, received, supported, error: "unsupported_option" as const },
  });
  if (!spec) return fail("unsupported_canvas", "/canvas", `${model.model} takes no canvas.`, canvas, null);
  if (canvas.type === "preset") {
    const byAspect = spec.presets[canvas.tier];
    if (!byAspect || !spec.preset_tiers.includes(canvas.tier)) {
      return fail(
        "unsupported_resolution",
        "/canvas/tier",
        `${model.model} has no '${canvas.tier}' tier.`,
        canvas.tier,
        spec.preset_tiers,
      );
    }
    const dims = byAspect[canvas.aspect];
    if (!dims) {
      return fail(
        "unsupported_aspect_ratio",
        "/canvas/aspect",
        `${model.model} has no ${canvas.aspect} aspect at ${canvas.tier}.`,
        canvas.aspect,
        Object.keys(byAspect),
      );
    }
    return { dimensions: { width: dims[0], height: dims[1] } };
  }
  const t = spec.target;
  if (!t.supported)
    return fail("unsupported_canvas_target", "/canvas/type", `${model.model} takes presets only.`, "target", ["preset"]);
  const m = t.normalization_multiple;
  const width = Math.max(m, Math.round(canvas.width / m) * m);
  const height = Math.max(m, Math.round(canvas.height / m) * m);
  const pixels = width * height;
  if (pixels < t.minimum_total_pixels || pixels > t.maximum_total_pixels) {
    return fail("unsupported_canvas_pixels", "/canvas", `${width}x${height} is outside ${model.model}'s pixel bounds.`, pixels, {
      minimum_total_pixels: t.minimum_total_pixels,
      maximum_total_pixels: t.maximum_total_pixels,
    });
  }
  const r = width / height;
  if (r < ratio(t.minimum_aspect_ratio) - 1e-9 || r > ratio(t.maximum_aspect_ratio) + 1e-9) {
    return fail(
      "unsupported_aspect_ratio",
      "/canvas",
      `${width}:${height} is outside ${model.model}'s aspect bounds.`,
      `${width}:${height}`,
      {
        minimum_aspect_ratio: t.minimum_aspect_ratio,
        maximum_aspect_ratio: t.maximum_aspect_ratio,
      },
    );
  }
  return { dimensions: { width, height } };
}

/**
 * A `source` aspect takes the ratio of an input image — the first for edits, the last for
 * image-to-image, as the card's anchor says — and becomes the nearest preset aspect of the tier.
 */
export function sourceCanvas(card: InterfaceFile, canvas: Canvas, media: RequestMedia[]): Canvas {
  if (canvas.type !== "preset" || canvas.aspect !== "source") return canvas;
  const images = media.filter((m) => m.kind === "image" && m.facts.width && m.facts.height);
  const anchor =
    card.canvas?.source_aspect_anchor ?? card.inputs.find((i) => i.kind === "image")?.source_aspect_anchor ?? "first";
  const src = anchor === "last" ? images[images.length - 1] : images[0];
  const byAspect = card.canvas?.presets[canvas.tier];
  if (!src || !byAspect) return canvas;
  const want = (src.facts.width as number) / (src.facts.height as number);
  let best = canvas.aspect;
  let bestDiff = Number.POSITIVE_INFINITY;
  for (const [aspect, [w, h]] of Object.entries(byAspect)) {
    const diff = Math.abs(Math.log(w / h / want));
    if (diff < bestDiff) {
      best = aspect;
      bestDiff = diff;
    }
  }
  return { ...canvas, aspect: best };
}
