/**
 * One chat completion, end to end: choose the card, reserve the most it can cost, call the
 * upstream, answer (whole or streamed), and settle the reservation exactly once.
 */

import type { KeyMode } from "../accounts/api-keys";
import { deprecationHeaders } from "../catalog/deprecation";
import { loadCatalog } from "../catalog/store";
import type { Env } from "../env";
import { randomToken } from "../lib/ids";
import { type ChatRoute, chatRoutesFor, completeOnRoutes } from "../providers/chat";
import type { ChatObject, ChatUpstreamResult } from "../providers/chat-upstream";
import { liveProviders } from "../providers/routing";
import { type ChatCharge, reserveChat } from "./billing";
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
  requestId: string;
  waitUntil(promise: Promise<unknown>): void;
}

const FREE = { input: "0", output: "0", cache_read: "0", cache_write: "0", reasoning: "0" };

/** The token prices of the route (its own, or the card's); nothing for a test-mode key. */
function prices(mode: KeyMode, selection: ChatSelection, route: ChatRoute, promptTokens: number) {
  if (mode === "test") return FREE;
  return tokenPrices(route.pricing ? { ...selection.card, pricing: route.pricing } : selection.card, promptTokens);
}

/** What the relay's usage costs on the card, captured against the reservation. */
function charge(
  mode: KeyMode,
  selection: ChatSelection,
  route: ChatRoute,
  relay: ChatRelay,
  ledger: ChatCharge,
): Promise<string> {
  const usage = relay.used();
  return ledger.capture(usageCredits(prices(mode, selection, route, usage.prompt_tokens), usage));
}

export async function chatCompletion(
  call: ChatCall,
  body: ChatCompletionRequest,
  raw: Record<string, unknown>,
): Promise<Response> {
  const { env } = call;
  const ctx = { bundle: await loadCatalog(env.CATALOG), providers: liveProviders(env, call.mode) };
  const promptTokens = estimatePromptTokens(body);
  const selection = selectChatModel(ctx, body, promptTokens);
  const routes = chatRoutesFor(env, selection.model, ctx.providers);
  const deprecated = deprecationHeaders(selection.model);
  const stream = body.stream === true;
  const reserve = estimateCredits(
    prices(call.mode, selection, routes[0] as ChatRoute, promptTokens),
    promptTokens,
    selection.maxCompletionTokens * (body.n ?? 1),
  );
  const ledger = await reserveChat(env, call.tenantId, call.requestId, reserve);
  const includeUsage = stream && body.stream_options?.include_usage === true;
  const relay = new ChatRelay(`chatcmpl-${randomToken(16)}`, selection.model.model, promptTokens, includeUsage);
  const upstreamBody = (upstreamModel: string): Record<string, unknown> => ({
    ...raw,
    model: upstreamModel,
    // The service needs the upstream's count to charge a stream, whether or not the client asked for it.
    ...(stream ? { stream_options: { ...(body.stream_options ?? {}), include_usage: true } } : {}),
  });
  const abort = new AbortController();

  // Settlement must not depend on the client staying connected.
  const work = (async (): Promise<Response> => {
    let result: ChatUpstreamResult;
    let served: ChatRoute = routes[0] as ChatRoute;
    let first: ChatObject | null = null;
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
      ));
      if (!result.stream) {
        const completion = relay.completion(result.completion);
        const charged = await charge(call.mode, selection, served, relay, ledger);
        return Response.json(completion, { headers: { ...deprecated, "X-Credits-Charged": charged } });
      }
      // Failures up to the first forwardable chunk are still answered as JSON errors.
      for (;;) {
        const next = await result.chunks.next();
        if (next.done) break;
        first = relay.chunk(next.value);
        if (first) break;
      }
    } catch (e) {
      abort.abort();
      await ledger.release();
      throw e;
    }
    const body = eventStream({
      relay,
      first,
      chunks: result.chunks,
      includeUsage,
      requestId: call.requestId,
      abort,
      waitUntil: call.waitUntil,
      settlement: {
        complete: () => charge(call.mode, selection, served, relay, ledger).then(() => {}),
        cutShort: () =>
          relay.hasDelivered ? charge(call.mode, selection, served, relay, ledger).then(() => {}) : ledger.release(),
      },
    });
    return new Response(body, {
      headers: { ...deprecated, "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache" },
    });
  })();
  call.waitUntil(work.catch(() => {}));
  return work;
}
