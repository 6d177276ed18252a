/**
 * Validation of a request against model cards, and `auto` selection. A concrete model is checked
 * exactly as requested and never substituted; `auto` takes the best-ranked live card that
 * satisfies the whole request. Nothing here drops or changes a control.
 */

import { ApiError } from "../errors/api-error";
import type { ErrorCode } from "../errors/codes";
import type { Capability, Control, InterfaceFile, ModelFile } from "./schema";
import { type CatalogContext, interfacesOf, isSelectable } from "./views";

export type Canvas = { type: "preset"; tier: string; aspect: string } | { type: "target"; width: number; height: number };

export interface SelectionRequest {
  capability: Capability;
  model: string;
  /** The text the card's `prompt` spec limits, and the body field that carries it. */
  prompt?: { field: string; text: string };
  /** Body fields that map to card controls, as sent (undefined = omitted). */
  controls: Record<string, unknown>;
  canvas?: Canvas;
}

export interface CandidateFailure {
  model: string;
  code: string;
  param: string;
  message: string;
  received?: unknown;
  supported?: unknown;
  /** Which public error this failure is, when the model is requested by name. */
  error: Extract<ErrorCode, "unsupported_option" | "unsupported_input_modality" | "context_length_exceeded">;
}

export interface Selection {
  model: ModelFile;
  card: InterfaceFile;
  /** Every control of the card with the value that applies: sent, default, or "model_default". */
  controls: Record<string, unknown>;
  /** Exact output pixels for image operations. */
  dimensions?: { width: number; height: number };
}

const pointer = (field: string) => `/${field.split(".").join("/")}`;

function typeMatches(control: Control, value: unknown): boolean {
  switch (control.value_type) {
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
  }
}

/** Unicode code points, not UTF-16 units. */
export function unicodeLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function checkControl(modelId: string, control: Control | undefined, field: string, value: unknown): CandidateFailure | null {
  const base = { model: modelId, param: pointer(field), received: value, error: "unsupported_option" as const };
  const code = `unsupported_${field.split(".").pop()}`;
  if (!control) return { ...base, code, message: `${modelId} does not support '${field}'.`, supported: null };
  if (value === null) {
    return control.nullable || control.null_behavior !== "invalid"
      ? null
      : { ...base, code, message: `${modelId} does not accept null for '${field}'.`, supported: "non-null" };
  }
  if (!typeMatches(control, value)) {
    return {
      ...base,
      code,
      message: `'${field}' must be of type ${control.value_type} for ${modelId}.`,
      supported: control.value_type,
    };
  }
  if (control.allowed_values && !control.allowed_values.some((v) => v === value)) {
    return {
      ...base,
      code,
      message: `${modelId} does not support ${field}=${JSON.stringify(value)}.`,
      supported: control.allowed_values,
    };
  }
  if (typeof value === "number") {
    if (
      (control.minimum !== undefined && value < control.minimum) ||
      (control.maximum !== undefined && value > control.maximum)
    ) {
      return {
        ...base,
        code,
        message: `${field}=${value} is outside ${modelId}'s range.`,
        supported: { minimum: control.minimum, maximum: control.maximum },
      };
    }
  }
  if (typeof value === "string" && control.max_length !== undefined && unicodeLength(value) > control.max_length) {
    return {
      ...base,
      code,
      message: `'${field}' is longer than ${control.max_length} characters for ${modelId}.`,
      supported: { max_length: control.max_length },
    };
  }
  if (Array.isArray(value)) {
    if (
      (control.min_items !== undefined && value.length < control.min_items) ||
      (control.max_items !== undefined && value.length > control.max_items)
    ) {
      return {
        ...base,
        code,
        received: value.length,
        message: `'${field}' has ${value.length} items; ${modelId} takes ${control.min_items ?? 0} to ${control.max_items ?? "any"}.`,
        supported: { min_items: control.min_items, max_items: control.max_items },
      };
    }
  }
  return null;
}

function ratio(text: string): number {
  const [a, b] = text.split(":").map(Number) as [number, number | undefined];
  return b === undefined ? a : a / b;
}

function resolveCanvas(
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

/** Every reason this card cannot honour the request (empty when it can), and what it would do. */
export function checkCard(
  model: ModelFile,
  card: InterfaceFile,
  req: SelectionRequest,
): { failures: CandidateFailure[]; selection: Selection } {
  const failures: CandidateFailure[] = [];
  const controls: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(req.controls)) {
    if (value === undefined) continue;
    const control = card.controls.find((c) => c.field === field);
    const failure = checkControl(model.model, control, field, value);
    if (failure) failures.push(failure);
  }
  for (const control of card.controls) {
    const sent = req.controls[control.field];
    if (sent === undefined && control.required) {
      failures.push({
        model: model.model,
        code: `missing_${control.field.split(".").pop()}`,
        param: pointer(control.field),
        message: `${model.model} requires '${control.field}'.`,
        error: "unsupported_option",
      });
    }
    const useDefault = sent === undefined ? control.omitted_behavior : sent === null ? control.null_behavior : null;
    controls[control.field] =
      useDefault === "use_default"
        ? control.default
        : useDefault === "model_default"
          ? "model_default"
          : useDefault
            ? undefined
            : sent;
  }
  if (req.prompt && card.prompt) {
    const length = unicodeLength(req.prompt.text);
    if (length > card.prompt.limit && card.prompt.overflow === "reject") {
      failures.push({
        model: model.model,
        code: "prompt_too_long",
        param: pointer(req.prompt.field),
        message: `'${req.prompt.field}' has ${length} characters; ${model.model} accepts at most ${card.prompt.limit}.`,
        received: length,
        supported: { limit: card.prompt.limit, unit: card.prompt.unit, counter: card.prompt.counter },
        error: "context_length_exceeded",
      });
    }
  }
  let dimensions: { width: number; height: number } | undefined;
  if (req.canvas) {
    const canvas = resolveCanvas(model, card, req.canvas);
    if ("failure" in canvas) failures.push(canvas.failure);
    else dimensions = canvas.dimensions;
  }
  return { failures, selection: { model, card, controls, ...(dimensions ? { dimensions } : {}) } };
}

/** Resolves `model` for a capability: the concrete model as asked, or the `auto` choice. */
export function select(ctx: CatalogContext, req: SelectionRequest): Selection {
  const candidates = interfacesOf(ctx, req.capability);
  if (req.model !== "auto") {
    const found = candidates.find(({ model }) => model.model === req.model);
    if (!found || !isSelectable(found.model, found.card, ctx.providers)) {
      throw new ApiError(
        "unsupported_model",
        found
          ? `Model '${req.model}' is not available for ${req.capability}.`
          : `Model '${req.model}' does not offer ${req.capability}.`,
        {
          param: "/model",
          details: {
            supported_models: [
              "auto",
              ...candidates.filter((c) => isSelectable(c.model, c.card, ctx.providers)).map((c) => c.model.model),
            ],
          },
        },
      );
    }
    const { failures, selection } = checkCard(found.model, found.card, req);
    const first = failures[0];
    if (first) {
      throw new ApiError(first.error, first.message, {
        param: first.param,
        details: { candidate_failures: failures.map(({ error: _e, ...f }) => f) },
      });
    }
    return selection;
  }
  const live = candidates.filter(({ model, card }) => isSelectable(model, card, ctx.providers));
  const allFailures: CandidateFailure[] = [];
  for (const { model, card } of live) {
    const { failures, selection } = checkCard(model, card, req);
    if (failures.length === 0) return selection;
    allFailures.push(failures[0] as CandidateFailure);
  }
  throw new ApiError("no_eligible_model", `No live model can honour this ${req.capability} request as sent.`, {
    param: allFailures[0]?.param,
    details: { candidate_failures: allFailures.map(({ error: _e, ...f }) => f) },
  });
}
