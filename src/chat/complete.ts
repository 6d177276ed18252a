/**
 * One chat completion, end to end: choose the card, reserve the most it can cost, call the
 * upstream, answer (whole or streamed), and settle the reservation exactly once.
 */

import { allowsModel, hasCreditLimit, type KeyLimits } from "../accounts/key-limits";
import { checkCapabilityAllowed, checkModelAllowed } from "../accounts/key-refusals";
import { CHAT_CAPABILITY, type UsageCounters } from "../accounts/usage";
import type { CatalogBundle } from "../catalog/build";
import { deprecationHeaders } from "../catalog/deprecation";
import { loadCatalog } from "../catalog/store";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import type { KeyMode } from "../keys/api-keys";
import { dec, fmt } from "../lib/decimal";
import { randomToken } from "../lib/ids";
import { type ChatRoute, chatRoutesFor, completeOnRoutes } from "../providers/chat";
import type { ChatUpstreamResult } from "../providers/chat-upstream";
import { liveProviders } from "../providers/routing";
import type { RequestNote } from "../request-log/note";
import { reserveChat } from "./billing";
import { noteChatAttempt } from "./log-note";
import { estimateCredits, estimatePromptTokens, tokenPrices, usageCredits } from "./pricing";
import { ChatRelay } from "./relay";
import type { ChatCompletionRequest } from "./schema";
import { type ChatSelection, selectChatModel } from "./select";
import { eventStream } from "./stream";

export interface ChatCall {
  env: Env;
  tenantId: string;
  /** `test` keys are answered by the sandbox and charged nothing. */
  mode: KeyMode;
  /** The calling key and its limits: its lists choose the model, its credit limit holds every call. */
  keyId?: string;
  limits?: KeyLimits | null;
  /** The key's family has a credit limit (a key that made it may have one when the key has none). */
  held?: boolean;
  requestId: string;
  waitUntil(promise: Promise<unknown>): void;
  /**
   * Content review (src/safety/chat.ts), after the model is chosen and before anything is held:
   * throws a refusal, else gives the headers the answer carries.
   */
  review?: (bundle: CatalogBundle, body: ChatCompletionRequest) => Promise<Record<string, string>>;
  /** The request's log note: the model, each upstream call and the charge (src/request-log/note.ts). */
  note?: RequestNote;
}

const FREE = { input: "0", output: "0", cache_read: "0", cache_write: "0", reasoning: "0" };

/**
 * The token prices of the route (its own, or the card's) in force when the call was admitted, so
 * the hold and the charge use one price even across a price change; nothing for a test-mode key.
 */
function prices(mode: KeyMode, selection: ChatSelection, route: ChatRoute, promptTokens: number, admittedAt: number) {
  if (mode === "test") return FREE;
  return tokenPrices(route.pricing ? { ...selection.card, pricing: route.pricing } : selection.card, promptTokens, admittedAt);
}

/** What the relay's usage costs on the card; never more than the call's max_credits. */
function cost(
  mode: KeyMode,
  selection: ChatSelection,
  route: ChatRoute,
  relay: ChatRelay,
  admittedAt: number,
  cap?: string,
): string {
  const usage = relay.used();
  const amount = usageCredits(prices(mode, selection, route, usage.prompt_tokens, admittedAt), usage);
  return cap !== undefined && dec(amount).gt(cap) ? fmt(dec(cap)) : amount;
}

/** 422 at /max_credits, before anything is held or sent, when the most the call can cost is above the cap. */
function capCheck(estimate: string, cap: string, model: string): void {
  if (!dec(estimate).gt(cap)) return;
  throw new ApiError("invalid_request", `This call may cost up to ${estimate} credits on ${model}, above max_credits (${cap}).`, {
    param: "/max_credits",
    details: {
      estimate_credits: estimate,
      max_credits: fmt(dec(cap)),
      errors: [{ loc: ["body", "max_credits"], reason: `the estimate (${estimate} credits) is above it` }],
    },
  });
}

/** The relay's usage as the usage report counts it (the task envelope's counter names). */
function counters(relay: ChatRelay): UsageCounters {
  const u = relay.used();
  return {
    input_tokens: u.prompt_tokens,
    output_tokens: u.completion_tokens,
    cache_read_tokens: u.prompt_tokens_details.cached_tokens,
    cache_creation_tokens: u.prompt_tokens_details.cache_creation_tokens ?? 0,
    reasoning_tokens: u.completion_tokens_details.reasoning_tokens,
  };
}

/** A settlement that failed after the client had its answer: logged (the hold's lease gives it back). */
function logBilling(requestId: string) {
  return (e: unknown) =>
    console.error(JSON.stringify({ level: "error", request_id: requestId, message: `chat settlement failed: ${String(e)}` }));
}

export async function chatCompletion(
  call: ChatCall,
  body: ChatCompletionRequest,
  raw: Record<string, unknown>,
): Promise<Response> {
  const { env } = call;
  const admittedAt = Date.now();
  const ctx = { bundle: await loadCatalog(env.CATALOG), providers: liveProviders(env, call.mode) };
  const promptTokens = estimatePromptTokens(body);
  checkCapabilityAllowed(call.limits, CHAT_CAPABILITY);
  checkModelAllowed(call.limits, body.model);
  const selection = selectChatModel(
    ctx,
    body,
    promptTokens,
    call.limits?.models ? (m) => allowsModel(call.limits, m) : undefined,
  );
  const routes = chatRoutesFor(env, selection.model, ctx.providers);
  if (call.note) call.note.model = selection.model.model;
  // The model's deprecation headers and what content review says, on every answer.
  const answerHeaders = { ...deprecationHeaders(selection.model), ...(call.review ? await call.review(ctx.bundle, body) : {}) };
  const stream = body.stream === true;
  const reserve = estimateCredits(
    prices(call.mode, selection, routes[0] as ChatRoute, promptTokens, admittedAt),
    promptTokens,
    selection.maxCompletionTokens * (body.n ?? 1),
  );
  const cap = body.max_credits;
  if (cap !== undefined) capCheck(reserve, cap, selection.model.model);
  const ledger = await reserveChat(env, call.tenantId, call.requestId, reserve, {
    mode: call.mode,
    model: selection.model.model,
    ...(call.keyId ? { key_id: call.keyId } : {}),
    limited: call.held === true || hasCreditLimit(call.limits),
  });
  const includeUsage = stream && body.stream_options?.include_usage === true;
  const relay = new ChatRelay(`chatcmpl-${randomToken(16)}`, selection.model.model, promptTokens, includeUsage);
  // max_credits is this service's own field: the upstream never sees it.
  const { max_credits: _cap, ...forwarded } = raw;
  const upstreamBody = (upstreamModel: string): Record<string, unknown> => ({
    ...forwarded,
    model: upstreamModel,
    // The service needs the upstream's count to charge a stream, whether or not the client asked for it.
    ...(stream ? { stream_options: { ...(body.stream_options ?? {}), include_usage: true } } : {}),
  });
  const abort = new AbortController();

  // Settlement must not depend on the client staying connected.
  const work = (async (): Promise<Response> => {
    let result: ChatUpstreamResult;
    let served: ChatRoute = routes[0] as ChatRoute;
    const first: { events: string[]; created?: number } = { events: [] };
    try {
      ({ result, route: served } = await completeOnRoutes(
        routes,
        (route) => ({
          body: upstreamBody(route.upstreamModel),
          stream,
          maxCompletionTokens: selection.maxCompletionTokens,
          requestId: call.requestId,
        }),
        abort.signal,
        call.note ? (route, startedAt, error) => noteChatAttempt(call.note, route, startedAt, error) : undefined,
      ));
      if (!result.stream) {
        const completion = relay.completion(result.completion);
        const amount = cost(call.mode, selection, served, relay, admittedAt, cap);
        // The charge is known here in the usual case (within the hold): capture after answering.
        const expected = ledger.expectedCharge(amount);
        const charged = expected ?? (await ledger.capture(amount, counters(relay)));
        if (expected !== null) call.waitUntil(ledger.capture(amount, counters(relay)).catch(logBilling(call.requestId)));
        return Response.json(completion, { headers: { ...answerHeaders, "X-Credits-Charged": charged } });
      }
      // Failures up to the first forwardable chunk are still answered as JSON errors.
      while (first.events.length === 0) {
        const next = await result.chunks.next();
        if (next.done) break;
        for (const chunk of Array.isArray(next.value) ? next.value : [next.value]) {
          const out = relay.chunkText(chunk);
          if (!out) continue;
          if (first.events.length === 0 && typeof chunk.created === "number") first.created = chunk.created;
          first.events.push(out);
        }
      }
    } catch (e) {
      abort.abort();
      call.waitUntil(ledger.release().catch(logBilling(call.requestId)));
      throw e;
    }
    // The log entry waits for the stream's end: its length is known then.
    let ended = () => {};
    if (call.note) call.note.settled = new Promise<void>((resolve) => (ended = resolve));
    const noted = (settle: () => Promise<unknown>) => () =>
      settle()
        .then(() => {})
        .finally(ended);
    const body = eventStream({
      relay,
      first,
      chunks: result.chunks,
      includeUsage,
      requestId: call.requestId,
      abort,
      waitUntil: call.waitUntil,
      held: ledger.held,
      settlement: {
        complete: noted(() => ledger.capture(cost(call.mode, selection, served, relay, admittedAt, cap), counters(relay))),
        cutShort: noted(() =>
          relay.hasDelivered
            ? ledger.capture(cost(call.mode, selection, served, relay, admittedAt, cap), counters(relay))
            : ledger.release(),
        ),
      },
    });
    return new Response(body, {
      headers: { ...answerHeaders, "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache" },
    });
  })();
  call.waitUntil(work.catch(() => {}));
  return work;
}
