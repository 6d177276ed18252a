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
import { chatFailed, chatSucceeded } from "../health/chat-outcomes";
import { flushDue, flushOutcomes } from "../health/reporter";
import { type HealthView, healthView } from "../health/snapshot";
import type { KeyMode } from "../keys/api-keys";
import { dec, fmt } from "../lib/decimal";
import { randomToken } from "../lib/ids";
import { byokFeePercent, routeEstimate } from "../provider-keys/fee";
import { providerKeyRefused, tenantKeyPlans, withTenantProviders } from "../provider-keys/routing";
import { type ChatRoute, completeOnRoutes, providerSide, tenantKeyRefused } from "../providers/chat";
import type { ChatUpstreamResult } from "../providers/chat-upstream";
import { providerMessage } from "../providers/messages";
import { liveProviders } from "../providers/routing";
import type { RequestNote } from "../request-log/note";
import { checkOneModelField, type ModelFallback } from "../routing/models-list";
import type { TenantFeatures } from "../tenancy/tenant-features";
import { reserveChat } from "./billing";
import { noteChatAttempt } from "./log-note";
import { type ChatCandidate, planChat, routePrices } from "./plan";
import { estimatePromptTokens, usageCredits } from "./pricing";
import { ChatRelay } from "./relay";
import type { ChatCompletionRequest } from "./schema";
import type { ChatSelection } from "./select";
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
  /** What the key's resolution says the tenant uses: without provider keys, they cost no call. */
  features?: TenantFeatures;
}

/**
 * What the relay's usage costs on the route that served: the card's (or the route's) price, or on
 * a tenant's own key the BYOK fee on it; never more than the call's max_credits.
 */
function cost(
  mode: KeyMode,
  selection: ChatSelection,
  route: ChatRoute,
  relay: ChatRelay,
  admittedAt: number,
  cap?: string,
): string {
  const usage = relay.used();
  const amount = routeEstimate(usageCredits(routePrices(mode, selection, route, usage.prompt_tokens, admittedAt), usage), route);
  return cap !== undefined && dec(amount).gt(cap) ? fmt(dec(cap)) : amount;
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
  checkOneModelField(raw);
  const admittedAt = Date.now();
  const live = call.mode === "live";
  const platform = liveProviders(env, call.mode);
  // One wait for all three: the catalog, the tenant's own keys (no call for a tenant without any)
  // and route health (cached per isolate; read only when this isolate's copy is old). Test-mode
  // calls run on the sandbox: no keys, no health.
  const caller = { tenant_id: call.tenantId, mode: call.mode, ...(call.features ? { features: call.features } : {}) };
  const [bundle, keys, health] = await Promise.all([
    loadCatalog(env.CATALOG),
    tenantKeyPlans(env, caller),
    live ? healthView(env, platform) : Promise.resolve(null as HealthView | null),
  ]);
  const providers = keys.length > 0 ? withTenantProviders(platform, keys) : platform;
  const ctx = { bundle, providers };
  const promptTokens = estimatePromptTokens(body);
  checkCapabilityAllowed(call.limits, CHAT_CAPABILITY);
  const models = body.models;
  // A listed model the key may not use is passed over (not_allowed_for_key), not refused.
  if (!models) checkModelAllowed(call.limits, body.model);
  const cap = body.max_credits;
  const plan = planChat(
    {
      env,
      mode: call.mode,
      ctx,
      platform,
      body,
      promptTokens,
      admittedAt,
      ...(call.limits?.models ? { allowModel: (m: string) => allowsModel(call.limits, m) } : {}),
      ...(keys.length > 0 ? { tenant: { tenantId: call.tenantId, keys, feePercent: byokFeePercent(env) } } : {}),
      health,
      ...(body.provider ? { prefs: body.provider } : {}),
      ...(cap !== undefined ? { cap } : {}),
    },
    models,
  );
  const firstModel = (plan.candidates[0] as ChatCandidate).selection.model;
  if (call.note) call.note.model = firstModel.model;
  // Content review sees the request once, whichever listed model serves.
  const reviewHeaders = call.review ? await call.review(ctx.bundle, body) : {};
  const stream = body.stream === true;
  const ledger = await reserveChat(env, call.tenantId, call.requestId, plan.hold, {
    mode: call.mode,
    model: firstModel.model,
    ...(call.keyId ? { key_id: call.keyId } : {}),
    limited: call.held === true || hasCreditLimit(call.limits),
  });
  const includeUsage = stream && body.stream_options?.include_usage === true;
  const completionId = `chatcmpl-${randomToken(16)}`;
  // max_credits, models and provider are this service's own fields: the upstream never sees them.
  const { max_credits: _cap, models: _models, provider: _provider, ...forwarded } = raw;
  const upstreamBody = (upstreamModel: string): Record<string, unknown> => ({
    ...forwarded,
    model: upstreamModel,
    // The service needs the upstream's count to charge a stream, whether or not the client asked for it.
    ...(stream ? { stream_options: { ...(body.stream_options ?? {}), include_usage: true } } : {}),
  });
  const abort = new AbortController();
  let reported = false;
  let failed = false;
  const flush = () => {
    if (!reported) return;
    reported = false;
    if (flushDue(failed)) call.waitUntil(flushOutcomes(env));
  };
  /** Each upstream call: the request log's attempt, route health's outcome, a tenant's refused key. */
  const report = (route: ChatRoute, startedAt: number, error: unknown) => {
    if (call.note) noteChatAttempt(call.note, route, startedAt, error);
    if (error === null) return;
    if (health && !abort.signal.aborted) {
      chatFailed(route, call.tenantId, call.requestId, startedAt, error);
      reported = true;
      failed = true;
    }
    if (tenantKeyRefused(route, error))
      call.waitUntil(providerKeyRefused(env, call.tenantId, route.provider, providerMessage(error)));
  };

  // Settlement must not depend on the client staying connected.
  const work = (async (): Promise<Response> => {
    let result: ChatUpstreamResult;
    let served: ChatRoute;
    let startedAt: number;
    let candidate = plan.candidates[0] as ChatCandidate;
    const fallbacks: ModelFallback[] = [...(plan.passedOver[0] ?? [])];
    const first: { events: string[]; created?: number } = { events: [] };
    let relay: ChatRelay;
    try {
      for (let i = 0; ; i++) {
        candidate = plan.candidates[i] as ChatCandidate;
        try {
          ({
            result,
            route: served,
            startedAt,
          } = await completeOnRoutes(
            candidate.routes,
            (route) => ({
              body: upstreamBody(route.upstreamModel),
              stream,
              maxCompletionTokens: candidate.selection.maxCompletionTokens,
              requestId: call.requestId,
            }),
            abort.signal,
            report,
          ));
          break;
        } catch (e) {
          // Every route of this model failed on the provider's side: the next listed model that fits, if any.
          const next = plan.candidates[i + 1];
          if (!next || abort.signal.aborted || !providerSide(e)) throw e;
          fallbacks.push({
            model: candidate.selection.model.model,
            reason: "upstream_failed",
            at: new Date().toISOString(),
            message: (e as Error).message,
          });
          fallbacks.push(...(plan.passedOver[i + 1] ?? []));
        }
      }
      const model = candidate.selection.model;
      if (call.note) call.note.model = model.model;
      relay = new ChatRelay(completionId, model.model, promptTokens, includeUsage);
      const answerHeaders: Record<string, string> = {
        ...deprecationHeaders(model),
        ...reviewHeaders,
        "X-Provider": served.provider,
        ...(fallbacks.length > 0 ? { "X-Model-Fallbacks": JSON.stringify(fallbacks) } : {}),
      };
      if (!result.stream) {
        if (health) {
          chatSucceeded(served, call.tenantId, call.requestId, startedAt);
          reported = true;
        }
        flush();
        const completion = relay.completion(result.completion);
        const amount = cost(call.mode, candidate.selection, served, relay, admittedAt, cap);
        // The charge is known here in the usual case (within the hold): capture after answering.
        const expected = ledger.expectedCharge(amount);
        const charged = expected ?? (await ledger.capture(amount, counters(relay)));
        if (expected !== null) call.waitUntil(ledger.capture(amount, counters(relay)).catch(logBilling(call.requestId)));
        return Response.json(fallbacks.length > 0 ? { ...completion, model_fallbacks: fallbacks } : completion, {
          headers: { ...answerHeaders, "X-Credits-Charged": charged },
        });
      }
      // Failures up to the first forwardable chunk are still answered as JSON errors.
      try {
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
        report(served, startedAt, e);
        throw e;
      }
      // The first chunk is the stream's first token: what route health measures.
      if (health) {
        chatSucceeded(served, call.tenantId, call.requestId, startedAt);
        reported = true;
      }
      flush();
      return streamed(answerHeaders, served, candidate.selection, relay, first, result.chunks);
    } catch (e) {
      flush();
      abort.abort();
      call.waitUntil(ledger.release().catch(logBilling(call.requestId)));
      throw e;
    }
  })();

  /** The event stream of a call whose first chunk is in `first`. */
  function streamed(
    answerHeaders: Record<string, string>,
    served: ChatRoute,
    selection: ChatSelection,
    relay: ChatRelay,
    first: { events: string[]; created?: number },
    chunks: Extract<ChatUpstreamResult, { stream: true }>["chunks"],
  ) {
    // The log entry waits for the stream's end: its length is known then.
    let ended = () => {};
    if (call.note) call.note.settled = new Promise<void>((resolve) => (ended = resolve));
    const noted = (settle: () => Promise<unknown>) => () =>
      settle()
        .then(() => {})
        .finally(ended);
    const out = eventStream({
      relay,
      first,
      chunks,
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
    return new Response(out, {
      headers: { ...answerHeaders, "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache" },
    });
  }
  call.waitUntil(work.catch(() => {}));
  return work;
}
