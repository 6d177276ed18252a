/**
 * Validation of a request against model cards, and `auto` selection. A concrete model is checked
 * exactly as requested and never substituted; `auto` takes the best-ranked live card that
 * satisfies the whole request. Nothing here drops or changes a control.
 */

import { ApiError } from "../errors/api-error";
import type { ErrorCode } from "../errors/codes";
import type { ProbedMedia } from "../media/probe";
import { routeProduces } from "../providers/output-formats";
import { routesFor } from "../providers/routing";
import { promptLength, unicodeLength } from "./prompt-length";
import type { Capability, Control, InterfaceFile, ModelFile } from "./schema";
import { type CatalogContext, interfacesOf, isOffered, isSelectable } from "./views";

export type Canvas = { type: "preset"; tier: string; aspect: string } | { type: "target"; width: number; height: number };

/** What the service learned about one media input, from its bytes (src/media/probe.ts). */
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

export { unicodeLength };

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

/**
 * A `source` aspect takes the ratio of an input image — the first for edits, the last for
 * image-to-image, as the card's anchor says — and becomes the nearest preset aspect of the tier.
 */
function sourceCanvas(card: InterfaceFile, canvas: Canvas, media: RequestMedia[]): Canvas {
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

/** Media inputs against the card's input specs: kinds, counts, transports, formats, sizes, shapes, durations. */
function checkMedia(model: ModelFile, card: InterfaceFile, media: RequestMedia[]): CandidateFailure[] {
  const failures: CandidateFailure[] = [];
  const id = model.model;
  const groups = new Map<string, RequestMedia[]>();
  for (const m of media) groups.set(`${m.field}|${m.kind}`, [...(groups.get(`${m.field}|${m.kind}`) ?? []), m]);
  for (const [key, items] of groups) {
    const [field, kind] = key.split("|") as [string, string];
    const spec = card.inputs.find((s) => s.field === field && s.kind === kind);
    const first = items[0] as RequestMedia;
    if (!spec) {
      failures.push({
        model: id,
        code: `unsupported_${kind}_input`,
        param: first.param,
        message: `${id} does not take ${kind} input in '${field}'.`,
        received: kind,
        supported: card.inputs.filter((s) => s.field === field).map((s) => s.kind),
        error: "unsupported_input_modality",
      });
      continue;
    }
    if (items.length > spec.public_max_count || items.length < spec.minimum_count) {
      failures.push({
        model: id,
        code: "unsupported_input_count",
        param: `/${field}`,
        message: `${id} takes ${spec.minimum_count} to ${spec.public_max_count} ${kind} inputs in '${field}'; got ${items.length}.`,
        received: items.length,
        supported: { minimum: spec.minimum_count, maximum: spec.public_max_count },
        error: "unsupported_option",
      });
    }
    for (const m of items) {
      const f = m.facts;
      const fail = (code: string, error: CandidateFailure["error"], message: string, received: unknown, supported: unknown) =>
        failures.push({ model: id, code, param: m.param, message, received, supported, error });
      const h = spec.hard_constraints;
      if (!spec.transport.accepted_kinds.includes(m.transport)) {
        fail(
          "unsupported_transport",
          "unsupported_option",
          `${id} does not accept ${m.transport} inputs.`,
          m.transport,
          spec.transport.accepted_kinds,
        );
      } else if (m.transport === "url" && spec.transport.https_only && !m.https) {
        fail("https_required", "unsupported_option", `${id} takes https URLs only.`, "http", "https");
      } else if (
        m.transport === "data_uri" &&
        spec.transport.data_uri_max_encoded_length &&
        (m.encoded_length ?? 0) > spec.transport.data_uri_max_encoded_length
      ) {
        fail("data_uri_too_long", "media_too_large", `The data URI is longer than ${id} accepts.`, m.encoded_length, {
          max: spec.transport.data_uri_max_encoded_length,
        });
      }
      if (!spec.formats.includes(f.mime)) {
        fail("unsupported_media_type", "unsupported_media_type", `${id} does not accept ${f.mime}.`, f.mime, spec.formats);
        continue;
      }
      if (f.bytes > h.max_bytes)
        fail("media_too_large", "media_too_large", `The input is larger than ${id} accepts.`, f.bytes, {
          max_bytes: h.max_bytes,
        });
      if (f.width && f.height) {
        const lo = Math.min(f.width, f.height);
        const hi = Math.max(f.width, f.height);
        if (h.edge_pixels && (lo < h.edge_pixels.minimum || hi > h.edge_pixels.maximum)) {
          fail(
            "unsupported_edge_pixels",
            "unsupported_option",
            `${f.width}x${f.height} is outside ${id}'s edge limits.`,
            `${f.width}x${f.height}`,
            h.edge_pixels,
          );
        }
        const r = f.width / f.height;
        if (h.aspect_ratio && (r < ratio(h.aspect_ratio.minimum) - 1e-9 || r > ratio(h.aspect_ratio.maximum) + 1e-9)) {
          fail(
            "unsupported_aspect_ratio",
            "unsupported_option",
            `${f.width}:${f.height} is outside ${id}'s input aspect bounds.`,
            `${f.width}:${f.height}`,
            h.aspect_ratio,
          );
        }
      }
      if (h.alpha === "rejected" && f.alpha)
        fail("unsupported_alpha", "unsupported_option", `${id} does not accept images with transparency.`, true, false);
      if (f.animated && spec.animation?.[f.mime] === "rejected") {
        fail("unsupported_animation", "unsupported_option", `${id} does not accept animated ${f.mime}.`, "animated", "still");
      }
      const d = f.duration_seconds;
      if (
        d !== undefined &&
        ((h.min_duration_seconds && d < h.min_duration_seconds) || (h.max_duration_seconds && d > h.max_duration_seconds))
      ) {
        fail("unsupported_duration", "unsupported_option", `A ${d.toFixed(2)} s input is outside ${id}'s limits.`, d, {
          minimum: h.min_duration_seconds,
          maximum: h.max_duration_seconds,
        });
      }
    }
  }
  for (const spec of card.inputs) {
    if (spec.minimum_count > 0 && !media.some((m) => m.field === spec.field && m.kind === spec.kind)) {
      failures.push({
        model: id,
        code: `missing_${spec.field}`,
        param: `/${spec.field}`,
        message: `${id} needs at least ${spec.minimum_count} ${spec.kind} input(s) in '${spec.field}'.`,
        received: 0,
        supported: { minimum: spec.minimum_count },
        error: "unsupported_option",
      });
    }
  }
  return failures;
}

function matches(cond: { operator: string; value?: unknown }, actual: unknown): boolean {
  switch (cond.operator) {
    case "equals":
      return actual === cond.value;
    case "not_equals":
      return actual !== undefined && actual !== cond.value;
    case "in":
      return Array.isArray(cond.value) && cond.value.includes(actual);
    case "not_in":
      return actual !== undefined && Array.isArray(cond.value) && !cond.value.includes(actual);
    case "present":
      return actual !== undefined && actual !== null;
    case "absent":
      return actual === undefined || actual === null;
    case "greater_than":
      return typeof actual === "number" && typeof cond.value === "number" && actual > cond.value;
    case "less_than":
      return typeof actual === "number" && typeof cond.value === "number" && actual < cond.value;
    default:
      return false;
  }
}

/** Card rules: when every condition holds, the effect applies (reject, require or restrict a field). */
function checkRules(model: ModelFile, card: InterfaceFile, fields: Record<string, unknown>): CandidateFailure[] {
  const failures: CandidateFailure[] = [];
  for (const rule of card.rules) {
    if (!rule.when.every((c) => matches(c, fields[c.field]))) continue;
    const { type, field, value, message } = rule.effect;
    const actual = fields[field];
    const base = {
      model: model.model,
      code: `rule_${rule.id}`,
      param: pointer(field),
      received: actual,
      error: "unsupported_option" as const,
    };
    const say = message ?? rule.description ?? `${model.model}: rule ${rule.id} applies to '${field}'.`;
    // A reject fails when its field is sent, or when the condition itself is about that field
    // (e.g. "references absent → reject references").
    const conditionIsTheField = rule.when.some((c) => c.field === field);
    if (type === "reject" && (conditionIsTheField || (actual !== undefined && actual !== null))) {
      failures.push({ ...base, message: say, supported: null });
    }
    if (type === "require" && (actual === undefined || actual === null || (value !== undefined && actual !== value))) {
      failures.push({ ...base, message: say, supported: value ?? "required" });
    }
    if (type === "restrict" && actual !== undefined && actual !== null) {
      const r = (value ?? {}) as {
        allowed_values?: unknown[];
        max_length?: number;
        max_count?: number;
        maximum?: number;
        minimum?: number;
      };
      const bad =
        (Array.isArray(value) && !value.includes(actual)) ||
        (r.allowed_values && !r.allowed_values.includes(actual)) ||
        (r.max_length !== undefined && typeof actual === "string" && unicodeLength(actual) > r.max_length) ||
        (r.max_count !== undefined && Array.isArray(actual) && actual.length > r.max_count) ||
        (r.max_count !== undefined && typeof actual === "number" && actual > r.max_count) ||
        (r.maximum !== undefined && typeof actual === "number" && actual > r.maximum) ||
        (r.minimum !== undefined && typeof actual === "number" && actual < r.minimum);
      if (bad) failures.push({ ...base, message: say, supported: value });
    }
  }
  return failures;
}

/** Every reason this card cannot honour the request (empty when it can), and what it would do. */
export function checkCard(
  model: ModelFile,
  card: InterfaceFile,
  req: SelectionRequest,
  providers?: Set<string>,
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
    // Counted in the card's unit; a token count is a lower bound, so only a certain excess is refused.
    const { length, unit, lower_bound } = promptLength(req.prompt.text, card.prompt);
    if (length > card.prompt.limit && card.prompt.overflow === "reject") {
      failures.push({
        model: model.model,
        code: "prompt_too_long",
        param: pointer(req.prompt.field),
        message: `'${req.prompt.field}' has ${lower_bound ? "at least " : ""}${length} ${unit}; ${model.model} accepts at most ${card.prompt.limit} ${card.prompt.unit}.`,
        received: length,
        supported: { limit: card.prompt.limit, unit: card.prompt.unit, counter: card.prompt.counter },
        error: "context_length_exceeded",
      });
    }
  }
  failures.push(...checkMedia(model, card, req.media ?? []));
  if (req.voice && !req.voice.compatible_models.includes(model.model)) {
    failures.push({
      model: model.model,
      code: "voice_model_incompatible",
      param: "/voice",
      message: `Voice '${req.voice.voice_id}' does not resolve on ${model.model}.`,
      received: req.voice.voice_id,
      supported: req.voice.compatible_models,
      error: "voice_model_incompatible",
    });
  }
  failures.push(...checkRules(model, card, req.fields ?? req.controls));
  let dimensions: { width: number; height: number } | undefined;
  if (req.canvas) {
    const canvas = resolveCanvas(model, card, sourceCanvas(card, req.canvas, req.media ?? []));
    if ("failure" in canvas) failures.push(canvas.failure);
    else dimensions = canvas.dimensions;
  }
  const selection: Selection = { model, card, controls, ...(dimensions ? { dimensions } : {}) };
  const output = req.output?.(selection);
  if (output) {
    selection.output = output;
    // A format refused as a control already has its failure; one failure per field.
    if (!failures.some((f) => f.param === output.param)) {
      const failure = outputFailure(model, card, output, providers);
      if (failure) failures.push(failure);
    }
  }
  return { failures, selection };
}

/**
 * The card must list the format, and (given the caller's providers) a route that would serve
 * the request must be able to make it: a format no serving route produces is refused here, at
 * admission, never after the task has started.
 */
function outputFailure(
  model: ModelFile,
  card: InterfaceFile,
  output: OutputFormat,
  providers: Set<string> | undefined,
): CandidateFailure | null {
  const base = { model: model.model, param: output.param, received: output.mime, error: "unsupported_option" as const };
  const listed = card.outputs ? (card.outputs.formats ?? [card.outputs.format]) : [];
  if (!listed.includes(output.mime)) {
    return {
      ...base,
      code: "unsupported_output_format",
      message: `${model.model} does not produce ${output.mime}.`,
      supported: listed,
    };
  }
  if (!providers) return null;
  const routes = routesFor(model, card.capability, providers);
  if (routes.length === 0 || routes.some((r) => routeProduces(r, card.capability, output.mime))) return null;
  const names = routes.map((r) => r.provider).join(", ");
  return {
    ...base,
    code: "output_format_unavailable",
    message: `${model.model} lists ${output.mime}, but ${routes.length === 1 ? `the route that would serve this request here (${names}) cannot` : `none of the routes that would serve this request here (${names}) can`} deliver it.`,
    supported: listed.filter((mime) => routes.some((r) => routeProduces(r, card.capability, mime))),
  };
}

/** Resolves `model` for a capability: the concrete model as asked, or the `auto` choice. */
export function select(ctx: CatalogContext, req: SelectionRequest): Selection {
  const candidates = interfacesOf(ctx, req.capability);
  if (req.model !== "auto") {
    const found = candidates.find(({ model }) => model.model === req.model);
    if (found && isOffered(found.model, found.card) && !isSelectable(found.model, found.card, ctx.providers)) {
      throw noLiveRoute(found.model.model, req.capability);
    }
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
    const { failures, selection } = checkCard(found.model, found.card, req, ctx.providers);
    const first = failures[0];
    if (first) {
      throw new ApiError(first.error, first.message, {
        param: first.param,
        details: { candidate_failures: failures.map(({ error: _e, ...f }) => f) },
      });
    }
    return selection;
  }
  const allFailures: CandidateFailure[] = [];
  for (const { model, card } of candidates) {
    if (!isOffered(model, card)) continue;
    if (req.allowModel && !req.allowModel(model.model)) {
      allFailures.push(notAllowedFailure(model.model));
      continue;
    }
    if (!isSelectable(model, card, ctx.providers)) {
      allFailures.push(noLiveRouteFailure(model.model, req.capability));
      continue;
    }
    const { failures, selection } = checkCard(model, card, req, ctx.providers);
    const over = failures.length === 0 ? (req.overCap?.(selection) ?? null) : null;
    const sick = failures.length === 0 && !over ? (req.unhealthy?.(selection) ?? null) : null;
    if (failures.length === 0 && !over && !sick) return selection;
    allFailures.push(over ?? sick ?? (failures[0] as CandidateFailure));
  }
  const sick = allFailures.filter((f) => f.code === "all_routes_unhealthy");
  if (sick.length > 0) {
    // Some model could serve the request but for its routes' health: worth retrying, unlike a 422.
    const retryAfter = Math.min(...sick.map((f) => (f.supported as { retry_after_seconds: number }).retry_after_seconds));
    throw new ApiError(
      "model_unavailable",
      `Every model that can honour this ${req.capability} request is failing right now; try again in ${retryAfter} s.`,
      {
        param: "/model",
        retryAfter,
        details: {
          reason: "all_routes_unhealthy",
          retry_after_seconds: retryAfter,
          candidate_failures: allFailures.map(({ error: _e, ...f }) => f),
        },
      },
    );
  }
  throw new ApiError("no_eligible_model", `No live model can honour this ${req.capability} request as sent.`, {
    param: allFailures[0]?.param,
    details: { candidate_failures: allFailures.map(({ error: _e, ...f }) => f) },
  });
}

/** A concrete model whose card is offered but that no configured provider serves for this caller. */
export function noLiveRoute(model: string, capability: Capability): ApiError {
  return new ApiError(
    "model_unavailable",
    `No provider configured on this deployment serves ${model} for ${capability} with this key; try again later or choose another model.`,
    { param: "/model", details: { model, reason: "no_live_route" } },
  );
}

/** A model the calling key's model list leaves out, as an `auto` candidate failure. */
export function notAllowedFailure(model: string): CandidateFailure {
  return {
    model,
    code: "not_allowed_for_key",
    param: "/model",
    message: `This API key may not use ${model}.`,
    error: "unsupported_option",
  };
}

/** The same reason as an `auto` candidate failure. */
export function noLiveRouteFailure(model: string, capability: Capability): CandidateFailure {
  return {
    model,
    code: "no_live_route",
    param: "/model",
    message: `No provider configured on this deployment serves ${model} for ${capability} with this key.`,
    error: "unsupported_option",
  };
}
