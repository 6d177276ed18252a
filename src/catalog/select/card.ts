/** One card against the whole request: every failure it has, and the selection it would make. */
import { routeProduces } from "../../providers/output-formats";
import { routesFor } from "../../providers/routing";
import { promptLength } from "../prompt-length";
import type { InterfaceFile, ModelFile } from "../schema";
import { resolveCanvas, sourceCanvas } from "./canvas";
import { checkControl, pointer } from "./controls";
import { checkMedia } from "./media";
import { checkRules } from "./rules";
import type { CandidateFailure, OutputFormat, Selection, SelectionRequest } from "./types";

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
