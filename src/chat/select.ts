/**
 * Which chat card answers a request. A concrete id is checked exactly as asked; `auto` takes the
 * live card with the lowest auto_rank that accepts every control and fits the context window.
 */

import type { InterfaceFile, ModelFile } from "../catalog/schema";
import { type CandidateFailure, checkCard, noLiveRoute, noLiveRouteFailure, notAllowedFailure } from "../catalog/select";
import { type CatalogContext, interfacesOf, isOffered, isSelectable } from "../catalog/views";
import { ApiError } from "../errors/api-error";
import type { ChatCompletionRequest } from "./schema";

export interface ChatSelection {
  model: ModelFile;
  card: InterfaceFile;
  /** What the answer may use: the request's limit, or what the card and the window leave. */
  maxCompletionTokens: number;
}

/** Request fields that a chat card must list among its controls to accept them. */
function controlsOf(body: ChatCompletionRequest): {
  controls: Record<string, unknown>;
  fields: Record<string, unknown>;
  maxParam: string;
} {
  const max = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  const controls = {
    temperature: body.temperature ?? undefined,
    top_p: body.top_p ?? undefined,
    max_tokens: max,
    tools: body.tools?.length ? body.tools : undefined,
    response_format: body.response_format,
    seed: body.seed ?? undefined,
  };
  return {
    controls,
    // Card rules also see fields that pass through unchecked (a combination an upstream refuses).
    fields: { ...controls, reasoning_effort: body.reasoning_effort ?? undefined },
    maxParam: body.max_completion_tokens != null ? "/max_completion_tokens" : "/max_tokens",
  };
}

function check(
  model: ModelFile,
  card: InterfaceFile,
  body: ChatCompletionRequest,
  promptTokens: number,
): { failures: CandidateFailure[]; maxCompletionTokens: number } {
  const { controls, fields, maxParam } = controlsOf(body);
  const failures = checkCard(model, card, { capability: "chat_completion", model: model.model, controls, fields }).failures.map(
    (f) => (f.param === "/max_tokens" ? { ...f, param: maxParam } : f),
  );
  const window = card.context_window ?? Number.POSITIVE_INFINITY;
  const cardMax = card.max_output_tokens ?? window;
  const asked = controls.max_tokens as number | undefined;
  const room = window - promptTokens;
  if (promptTokens >= window || (asked !== undefined && asked > room)) {
    failures.push({
      model: model.model,
      code: "context_length_exceeded",
      param: promptTokens >= window ? "/messages" : maxParam,
      message: `About ${promptTokens} prompt tokens${asked ? ` plus ${asked} output tokens` : ""} exceed ${model.model}'s context window of ${window} tokens.`,
      received: { prompt_tokens_estimate: promptTokens, max_tokens: asked ?? null },
      supported: { context_window: window, max_output_tokens: cardMax },
      error: "context_length_exceeded",
    });
  }
  const maxCompletionTokens = Math.max(1, Math.min(asked ?? cardMax, cardMax, room));
  return { failures, maxCompletionTokens };
}

/**
 * A model's routes for this call, judged after its card accepted the request: null when it can
 * serve, else why not (the preferences leave it no route, every route is open, max_credits).
 */
export type RouteCheck = (selection: ChatSelection) => CandidateFailure | null;

const publicFailures = (failures: CandidateFailure[]) => failures.map(({ error: _e, ...f }) => f);

/** One named model against its card: the selection, or why its card refuses the request. */
function checkNamed(
  ctx: CatalogContext,
  body: ChatCompletionRequest,
  promptTokens: number,
  name: string,
): { selection: ChatSelection } | { failures: CandidateFailure[]; unknown?: true; noRoute?: true } {
  const found = interfacesOf(ctx, "chat_completion").find(({ model, card }) => model.model === name && isOffered(model, card));
  if (!found) {
    return {
      unknown: true,
      failures: [
        {
          model: name,
          code: "unsupported_model",
          param: "/models",
          message: `'${name}' is not a chat model available on this deployment.`,
          error: "invalid_request",
        },
      ],
    };
  }
  if (!isSelectable(found.model, found.card, ctx.providers)) {
    return { noRoute: true, failures: [noLiveRouteFailure(name, "chat_completion")] };
  }
  const { failures, maxCompletionTokens } = check(found.model, found.card, body, promptTokens);
  return failures.length > 0 ? { failures } : { selection: { ...found, maxCompletionTokens } };
}

export function selectChatModel(
  ctx: CatalogContext,
  body: ChatCompletionRequest,
  promptTokens: number,
  allowModel?: (model: string) => boolean,
  routeCheck?: RouteCheck,
): ChatSelection {
  const candidates = interfacesOf(ctx, "chat_completion");
  if (body.model !== "auto") {
    const named = checkNamed(ctx, body, promptTokens, body.model);
    if ("selection" in named) return named.selection;
    if (named.noRoute) throw noLiveRoute(body.model, "chat_completion");
    if (named.unknown) {
      const selectable = candidates.filter(({ model, card }) => isSelectable(model, card, ctx.providers));
      throw new ApiError("unsupported_model", `Model '${body.model}' is not a chat model available on this deployment.`, {
        param: "/model",
        details: { supported_models: ["auto", ...selectable.map((c) => c.model.model)] },
      });
    }
    const first = named.failures[0] as CandidateFailure;
    throw new ApiError(first.error, first.message, {
      param: first.param,
      details: { candidate_failures: publicFailures(named.failures) },
    });
  }
  const firstFailures: CandidateFailure[] = [];
  for (const { model, card } of candidates) {
    if ((card.status ?? model.status) !== "live") continue;
    if (allowModel && !allowModel(model.model)) {
      firstFailures.push(notAllowedFailure(model.model));
      continue;
    }
    if (!isSelectable(model, card, ctx.providers)) {
      firstFailures.push(noLiveRouteFailure(model.model, "chat_completion"));
      continue;
    }
    const { failures, maxCompletionTokens } = check(model, card, body, promptTokens);
    const selection = { model, card, maxCompletionTokens };
    const routeFailure = failures.length === 0 && routeCheck ? routeCheck(selection) : null;
    if (failures.length === 0 && !routeFailure) return selection;
    firstFailures.push((failures[0] ?? routeFailure) as CandidateFailure);
  }
  throw noEligibleModel(firstFailures);
}

export function noEligibleModel(
  failures: CandidateFailure[],
  message = "No live chat model can honour this request as sent.",
): ApiError {
  return new ApiError("no_eligible_model", message, {
    param: failures[0]?.param,
    details: { candidate_failures: publicFailures(failures) },
  });
}

/** A model of the caller's `models` list, judged in the list's order: it fits, or why it is passed over. */
export type ListedModel = { model: string; selection: ChatSelection } | { model: string; failure: CandidateFailure };

/**
 * Every model of `models`, in order: each the key's list allows, whose card accepts the request
 * and whose routes can serve it fits; the others carry the first reason they are passed over.
 */
export function judgeChatModels(
  ctx: CatalogContext,
  body: ChatCompletionRequest,
  list: readonly string[],
  promptTokens: number,
  allowModel: ((model: string) => boolean) | undefined,
  routeCheck: RouteCheck,
): ListedModel[] {
  return list.map((name) => {
    if (allowModel && !allowModel(name)) return { model: name, failure: notAllowedFailure(name) };
    const named = checkNamed(ctx, body, promptTokens, name);
    if (!("selection" in named)) return { model: name, failure: named.failures[0] as CandidateFailure };
    const failure = routeCheck(named.selection);
    return failure ? { model: name, failure } : { model: name, selection: named.selection };
  });
}
