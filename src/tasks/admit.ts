/**
 * Admission of a task-creating request, the same for every operation: Idempotency-Key,
 * callback checks, media fetched and probed once, model selection against the cards, the
 * estimate, then the task object (which reserves credits and commits).
 */
import type { KeyMode } from "../accounts/api-keys";
import { allowsModel, type KeyLimits } from "../accounts/key-limits";
import { checkCapabilityAllowed, checkModelAllowed, keySpendLimitError } from "../accounts/key-refusals";
import type { QuoteRecord } from "../accounts/quote-rows";
import { accountFor, type Caller } from "../accounts/service";
import type { AuditActor } from "../audit/audit-store";
import type { CatalogBundle } from "../catalog/build";
import { deprecationHeaders, deprecationWarning } from "../catalog/deprecation";
import { estimateCredits, type PricedMeter, pricedMeters } from "../catalog/pricing";
import type { InterfaceFile } from "../catalog/schema";
import { type CandidateFailure, noLiveRoute, type Selection, select } from "../catalog/select";
import { loadCatalog } from "../catalog/store";
import { interfacesOf, isSelectable } from "../catalog/views";
import { outputDestination } from "../destinations/admission";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { allRoutesUnhealthy, orderByHealth, unhealthyFailure } from "../health/route-order";
import { type HealthView, healthView } from "../health/snapshot";
import { sha256Hex } from "../lib/crypto";
import { dec, fmt } from "../lib/decimal";
import { flatten, getPath } from "../lib/paths";
import { publicBaseUrl } from "../lib/public-url";
import { checkOutsideUrl, policyFrom } from "../lib/url-policy";
import { largestImageInputPixels } from "../media/image-pixel-bound";
import { resolveMediaInput } from "../media/resolve-input";
import { UPLOAD_CAP_BYTES } from "../media/uploads";
import type { MediaRef, OperationContext, OperationSpec, StoredMedia } from "../operations/types";
import { byokFeePercent, routeEstimate } from "../provider-keys/fee";
import { orderWithTenantKeys, tenantKeyPlans, withTenantProviders } from "../provider-keys/routing";
import type { ProviderKeyPlan } from "../provider-keys/rows";
import { PROVIDERS } from "../providers/names";
import { routeProduces } from "../providers/output-formats";
import { liveProviders, type RoutePlan, routesFor } from "../providers/routing";
import { callerRetentionDays, requestRetentionDays } from "../retention/settings";
import { FetchedImages, reviewAdmission } from "../safety/admission";
import { refusalError, reviewerFor } from "../safety/review";
import { checkDeadline, deadlineFailure, planDeadline } from "./deadline-request";
import { requestHash, requireIdempotencyKey } from "./idempotency";
import { echoInput } from "./input-echo";
import { quoteFor, useQuote } from "./quote-binding";
import type { Envelope, TaskPlan } from "./record";
import { keyScope, taskObjectName } from "./scope";
import type { CreateResult } from "./task-object";
import { type TaskRpc, taskRpc } from "./task-rpc";

export interface AdmissionContext {
  env: Env;
  caller: Caller;
  requestId: string;
  idempotencyKey: string | undefined;
  /** Who the audit log names for what admission records (a content review refusal); default: the caller's key. */
  actor?: AuditActor;
  /** The batch this task is an item of (src/batches/). */
  batch?: TaskPlan["batch"];
}

/** Fields of every create that are not the operation's own: kept out of card rules and the echoed input. */
const COMMON_FIELDS = new Set([
  "metadata",
  "callback_url",
  "callback_signing_key_id",
  "max_credits",
  "quote_id",
  "deadline_seconds",
  "output_retention_days",
  "output_destination_id",
]);

/** The task object of an Idempotency-Key in a tenant and a key mode: the mode is part of the namespace. */
export function taskObjectFor(env: Env, tenantId: string, mode: KeyMode, idempotencyKey: string): TaskRpc {
  return taskRpc(env.TASKS.getByName(taskObjectName(tenantId, mode, idempotencyKey)));
}

export interface CommonFields {
  metadata?: Record<string, string>;
  callback_url?: string;
  callback_signing_key_id?: string;
  max_credits?: string;
  quote_id?: string;
  deadline_seconds?: number;
  output_retention_days?: number;
  output_destination_id?: string;
}

export async function checkCallback(ctx: AdmissionContext, body: CommonFields): Promise<TaskPlan["callback"]> {
  if (body.callback_signing_key_id !== undefined && body.callback_url === undefined) {
    throw new ApiError("callback_url_required", "callback_signing_key_id needs a callback_url to sign deliveries to.", {
      param: "/callback_signing_key_id",
    });
  }
  if (body.callback_url === undefined) return null;
  const verdict = checkOutsideUrl(body.callback_url, policyFrom(ctx.env));
  if (!verdict.ok) {
    throw new ApiError("invalid_request", `callback_url ${verdict.reason}.`, {
      param: "/callback_url",
      details: { errors: [{ loc: ["body", "callback_url"], reason: verdict.reason }] },
    });
  }
  if (body.callback_signing_key_id !== undefined) {
    const key = await accountFor(ctx.env, ctx.caller.tenant_id).signingKeyState(body.callback_signing_key_id);
    if (!key) {
      throw new ApiError(
        "callback_signing_key_not_found",
        `Callback signing key '${body.callback_signing_key_id}' does not exist.`,
        {
          param: "/callback_signing_key_id",
        },
      );
    }
    if (key.status !== "active") {
      throw new ApiError("callback_signing_key_inactive", `Callback signing key '${body.callback_signing_key_id}' is retired.`, {
        param: "/callback_signing_key_id",
      });
    }
  }
  return { url: verdict.url.toString(), signing_key_id: body.callback_signing_key_id ?? null };
}

/** Fetches and probes every media input once, and keeps its bytes where the provider can read them. */
async function resolveMedia(
  ctx: AdmissionContext,
  refs: MediaRef[],
  maxImagePixels: number | undefined,
  images?: FetchedImages,
): Promise<StoredMedia[]> {
  return Promise.all(
    refs.map(async (ref) => {
      const resolved = await resolveMediaInput(ref.input, {
        env: ctx.env,
        scope: keyScope(ctx.caller),
        param: ref.param,
        // Caps before any card is consulted (cards then apply their own limits).
        maxBytes: UPLOAD_CAP_BYTES[ref.kind],
        artifactMaxBytes: UPLOAD_CAP_BYTES[ref.kind],
        ...(maxImagePixels !== undefined ? { maxImagePixels } : {}),
      });
      if (resolved.probe.kind !== ref.kind) {
        throw new ApiError("unsupported_media_type", `Expected ${ref.kind} media at ${ref.param}, got ${resolved.probe.mime}.`, {
          param: ref.param,
          details: { expected_kind: ref.kind, detected: resolved.probe.mime },
        });
      }
      // Content review reads these bytes (src/safety/admission.ts): nothing is fetched twice.
      if (images && resolved.probe.kind === "image") images.set(ref.param, { bytes: resolved.data, mime: resolved.probe.mime });
      // Content-addressed over every byte: two inputs share a key only when they are the same file.
      const key = `inputs/${ctx.caller.tenant_id}/${await sha256Hex(resolved.data)}`;
      await ctx.env.ARTIFACTS.put(key, resolved.data, {
        httpMetadata: { contentType: resolved.probe.mime },
        customMetadata: { tenant_id: ctx.caller.tenant_id, kind: "input" },
      });
      const stored: StoredMedia = {
        field: ref.field,
        kind: ref.kind,
        param: ref.param,
        transport: resolved.transport,
        https: resolved.https,
        ...(resolved.encoded_length !== undefined ? { encoded_length: resolved.encoded_length } : {}),
        facts: resolved.probe,
        key,
        ...(resolved.origin ? { origin: resolved.origin } : {}),
        ...(ref.role !== undefined ? { role: ref.role } : {}),
      };
      return stored;
    }),
  );
}

/**
 * The model to validate against: as sent; `auto` when omitted. Prompt enhancement ignores the
 * field (compatibility only) and runs on the service's enhancer, validated as concrete: the first
 * live one the key's model list allows. With none allowed it is `auto`, which passes over each
 * enhancer as `not_allowed_for_key` (422 no_eligible_model), as `auto` does for any capability.
 */
function modelFor(
  spec: OperationSpec,
  raw: Record<string, unknown>,
  bundle: CatalogBundle,
  providers: Set<string>,
  limits: KeyLimits | null | undefined,
): string {
  if (spec.capability === "video_prompt_enhance") {
    const live = interfacesOf({ bundle, providers }, spec.capability).find(
      ({ model, card }) => isSelectable(model, card, providers) && allowsModel(limits, model.model),
    );
    return live?.model.model ?? "auto";
  }
  return typeof raw.model === "string" ? raw.model : "auto";
}

/** The body's values for the card's controls, as sent: leaves of `model_options` included. */
function controlValues(spec: OperationSpec, raw: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of spec.controls) values[field] = getPath(raw, field);
  const options = raw.model_options;
  if (options && typeof options === "object") {
    for (const [path, value] of Object.entries(flatten(options, "model_options"))) {
      if (value === null || typeof value !== "object" || Array.isArray(value)) values[path] = value;
    }
  }
  return values;
}

/** What a request comes to before anything is reserved: its model, media, routes and price. */
export interface PricedRequest<B> {
  opCtx: OperationContext<B>;
  selection: Selection;
  media: StoredMedia[];
  routes: RoutePlan[];
  /** The meters of each route, in the routes' order. */
  meters: PricedMeter[][];
  quantities: Record<string, number>;
  /** What a create reserves: the dearest route's price of the estimated quantities. */
  estimate: string;
  /** The index of the route whose price is the estimate. */
  dearest: number;
}

/**
 * Validation, media, selection and pricing of a request, the same for a create and a quote:
 * `model` replaces the body's (a quote's resolved model), `quoted` caps the unit prices and the
 * total at a quote's, and `max_credits` passes over `auto` candidates priced above it and refuses
 * a concrete model priced above it.
 */
export async function priceRequest<B extends CommonFields>(
  ctx: AdmissionContext,
  spec: OperationSpec,
  body: B,
  raw: Record<string, unknown>,
  opts: {
    bundle: CatalogBundle;
    providers: Set<string>;
    images?: FetchedImages;
    model?: string;
    quoted?: QuoteRecord;
    /** The tenant's own provider keys (live tasks only): src/provider-keys/routing.ts. */
    keys?: readonly ProviderKeyPlan[];
    /** Route health: open routes go last, and a model with every route open is refused (503). */
    health?: HealthView;
  },
): Promise<PricedRequest<B>> {
  const { bundle, providers: platform } = opts;
  const keys = opts.keys ?? [];
  const providers = keys.length > 0 ? withTenantProviders(platform, keys) : platform;
  const feePercent = byokFeePercent(ctx.env);
  // The key's lists first: a key never learns more of a model it may not use.
  checkCapabilityAllowed(ctx.caller.limits, spec.capability);
  const asked = opts.model ?? raw.model;
  if (typeof asked === "string") checkModelAllowed(ctx.caller.limits, asked);
  let voice: { voice_id: string; compatible_models: string[]; sample?: boolean } | undefined;
  const voiceId = spec.voice?.(body);
  if (voiceId !== undefined) {
    const found = bundle.voices.find((v) => v.voice_id === voiceId);
    if (!found) throw new ApiError("voice_not_found", `Voice '${voiceId}' does not exist.`, { param: "/voice" });
    voice = { voice_id: found.voice_id, compatible_models: found.compatible_models, ...(found.sample ? { sample: true } : {}) };
  }
  const media = await resolveMedia(ctx, spec.media?.(body) ?? [], largestImageInputPixels(bundle), opts.images);
  const cap = body.max_credits;
  // Only routes that can deliver the resolved output format serve (and fail over); selection refused the rest.
  const producingRoutes = (selection: Selection) =>
    orderWithTenantKeys(
      selection.model,
      spec.capability,
      routesFor(selection.model, spec.capability, platform),
      keys,
      feePercent,
    ).filter((r) => !selection.output || routeProduces(r, spec.capability, selection.output.mime));
  const healthOrder = (routes: RoutePlan[]) => (opts.health ? orderByHealth(routes, opts.health) : { routes, retry_at: null });
  const priceOn = (selection: Selection) => {
    const opCtx: OperationContext<B> = { body, raw, selection, media };
    spec.check?.(opCtx);
    const producing = producingRoutes(selection);
    const ordered = healthOrder(drillRouteOrder(ctx.env, body.metadata, producing));
    if (ordered.retry_at !== null) throw allRoutesUnhealthy(selection.model.model, ordered.retry_at, producing);
    const live = ordered.routes;
    if (live.length === 0) throw noLiveRoute(selection.model.model, spec.capability);
    const priced = pricedRoutes(ctx, live, selection.card, spec.dimensions?.(opCtx) ?? {}, spec.usageKey);
    const meters = opts.quoted ? priced.meters.map((m) => atQuotedPrices(m, opts.quoted as QuoteRecord)) : priced.meters;
    const quantities = spec.quantities(opCtx);
    // Reserve what the dearest route would cost, so a failover never runs past the reservation.
    const estimates = meters.map((m, i) =>
      routeEstimate(estimateCredits({ meters: m, quantities }), priced.routes[i] as RoutePlan),
    );
    let dearest = 0;
    estimates.forEach((e, i) => {
      if (dec(e).gt(estimates[dearest] as string)) dearest = i;
    });
    let estimate = estimates[dearest] as string;
    if (opts.quoted && dec(estimate).gt(opts.quoted.credits)) estimate = fmt(dec(opts.quoted.credits));
    return { opCtx, selection, media, routes: priced.routes, meters, quantities, estimate, dearest };
  };
  const selection = select(
    { bundle, providers },
    {
      capability: spec.capability,
      model: opts.model ?? modelFor(spec, raw, bundle, providers, ctx.caller.limits),
      prompt: spec.prompt?.(body),
      controls: controlValues(spec, spec.normalize ? spec.normalize(raw) : raw),
      canvas: spec.canvas?.(body),
      media,
      voice,
      fields: Object.fromEntries(Object.entries(flatten(raw)).filter(([k]) => !COMMON_FIELDS.has(k.split(".")[0] as string))),
      ...(spec.output ? { output: (s: Selection) => spec.output?.(body, s) } : {}),
      ...(cap !== undefined || body.deadline_seconds !== undefined
        ? {
            overCap: (s: Selection) =>
              deadlineFailure(s, body.deadline_seconds) ?? (cap !== undefined ? overCapFailure(s, cap, priceOn) : null),
          }
        : {}),
      unhealthy: (s: Selection) => {
        const { retry_at } = healthOrder(producingRoutes(s));
        return retry_at === null ? null : unhealthyFailure(s.model.model, retry_at);
      },
      ...(ctx.caller.limits?.models ? { allowModel: (m: string) => allowsModel(ctx.caller.limits, m) } : {}),
    },
  );
  checkDeadline(selection, body.deadline_seconds);
  const priced = priceOn(selection);
  if (cap !== undefined && dec(priced.estimate).gt(cap)) {
    throw new ApiError(
      "invalid_request",
      `This request may cost up to ${priced.estimate} credits on ${selection.model.model}, above max_credits (${cap}).`,
      {
        param: "/max_credits",
        details: {
          estimate_credits: priced.estimate,
          max_credits: fmt(dec(cap)),
          errors: [{ loc: ["body", "max_credits"], reason: `the estimate (${priced.estimate} credits) is above it` }],
        },
      },
    );
  }
  const route = priced.routes[0] as RoutePlan;
  if (voice?.sample && !PROVIDERS[route.provider]?.simulated) {
    // A sample voice exists only in the simulator: no real upstream can speak it.
    throw new ApiError(
      "voice_model_incompatible",
      `Voice '${voice.voice_id}' is a sample voice that ${selection.model.model} cannot speak on ${route.provider}; choose a preset voice.`,
      { param: "/voice", details: { voice_id: voice.voice_id, reason: "sample_voice", provider: route.provider } },
    );
  }
  return priced;
}

/** An `auto` candidate priced above the cap; a candidate that cannot be priced is left to fail as it would. */
function overCapFailure(
  selection: Selection,
  cap: string,
  priceOn: (s: Selection) => { estimate: string },
): CandidateFailure | null {
  let estimate: string;
  try {
    estimate = priceOn(selection).estimate;
  } catch {
    return null;
  }
  if (!dec(estimate).gt(cap)) return null;
  return {
    model: selection.model.model,
    code: "over_max_credits",
    param: "/max_credits",
    message: `${selection.model.model} may cost up to ${estimate} credits, above max_credits (${cap}).`,
    received: cap,
    supported: { estimate_credits: estimate },
    error: "invalid_request",
  };
}

/** A route's meters at the quote's unit prices where those are lower: a price raised since the quote does not apply. */
function atQuotedPrices(meters: PricedMeter[], quote: QuoteRecord): PricedMeter[] {
  const quoted = new Map(quote.lines.map((l) => [l.meter, l.unit_credits]));
  return meters.map((m) => {
    const price = quoted.get(m.meter);
    return price !== undefined && dec(price).lt(m.unit_credits) ? { ...m, unit_credits: price } : m;
  });
}

export async function admitOperation<B extends CommonFields>(
  ctx: AdmissionContext,
  spec: OperationSpec,
  body: B,
  raw: Record<string, unknown>,
): Promise<{ envelope: Envelope; replayed: boolean; headers?: Record<string, string> }> {
  const idempotencyKey = requireIdempotencyKey(ctx.idempotencyKey);
  const hash = await requestHash(spec.name, raw);
  const stub = taskObjectFor(ctx.env, ctx.caller.tenant_id, ctx.caller.mode, idempotencyKey);
  const refs = spec.media?.(body) ?? [];
  if (refs.length > 0 || body.quote_id !== undefined) {
    // A replay is answered before media are fetched again, and before its quote is looked at (it may have expired since).
    const seen = await stub.replay(hash, ctx.caller.mode);
    if (seen) return outcome(seen);
  }
  const quote = body.quote_id !== undefined ? await quoteFor(ctx, spec, body.quote_id, raw) : undefined;
  const callback = await checkCallback(ctx, body);
  const retention = await retentionOf(ctx, body, () => stub.replay(hash, ctx.caller.mode));
  if ("replay" in retention) return outcome(retention.replay);
  const outputDestinationPlan = await outputDestination(ctx.env, ctx.caller, body.output_destination_id);
  const providers = liveProviders(ctx.env, ctx.caller.mode);
  const [bundle, keys, health] = await Promise.all([
    loadCatalog(ctx.env.CATALOG),
    tenantKeyPlans(ctx.env, ctx.caller),
    healthView(ctx.env, providers),
  ]);
  const reviewer = await reviewerFor(ctx.env, ctx.caller, bundle);
  if (reviewer.provider.external && refs.length === 0) {
    // A review that leaves the Worker is not made again for a request already answered.
    const seen = await stub.replay(hash, ctx.caller.mode);
    if (seen) return outcome(seen);
  }
  const images = new FetchedImages(
    reviewer.provider.reviewsImages,
    refs.map((r) => r.param),
  );
  let priced: PricedRequest<B>;
  try {
    priced = await priceRequest(ctx, spec, body, raw, {
      bundle,
      providers,
      images,
      keys,
      health,
      ...(quote ? { model: quote.resolved_model, quoted: quote } : {}),
    });
  } catch (e) {
    // A key already used answers as it was (or as a conflict) before any refusal of the moment,
    // such as routes found unhealthy since: the refusal path alone pays this read.
    if (e instanceof ApiError && e.code === "model_unavailable") {
      const seen = await stub.replay(hash, ctx.caller.mode);
      if (seen) return outcome(seen);
    }
    throw e;
  }
  const { opCtx, selection, media, routes, meters, estimate } = priced;
  const route = routes[0] as RoutePlan;
  // Content review: after every validation, before anything is reserved (src/safety/admission.ts).
  const safety = await reviewAdmission({ ctx, reviewer, spec, body, images, stub, hash });
  if ("result" in safety) return outcome(safety.result);
  if (quote) await useQuote(ctx, quote, taskObjectName(ctx.caller.tenant_id, ctx.caller.mode, idempotencyKey));
  const input = await echoInput(Object.fromEntries(Object.entries(raw).filter(([k]) => !COMMON_FIELDS.has(k))), media);
  const plan: TaskPlan = {
    tenant_id: ctx.caller.tenant_id,
    capability: spec.capability,
    model: typeof raw.model === "string" ? raw.model : "auto",
    resolved_model: selection.model.model,
    route,
    routes,
    mode: ctx.caller.mode,
    key_id: ctx.caller.key_id,
    card: selection.card,
    request: {
      ...spec.providerRequest(opCtx),
      inputs: media.map((m) => ({
        field: m.field,
        key: m.key,
        role: m.role,
        ...m.facts,
        ...(m.origin ? { origin: m.origin } : {}),
      })),
    },
    input,
    metadata: body.metadata ?? {},
    warnings: [
      ...(spec.warnings?.(opCtx) ?? []),
      ...canvasWarnings(opCtx),
      ...simulatedWarning(ctx, selection.model.model, route.provider),
      ...deprecationWarning(selection.model),
      ...safety.admitted.warnings,
    ],
    estimate,
    pricing: meters[0] as PricedMeter[],
    route_pricing: meters,
    callback,
    deadline_seconds: planDeadline(spec.capability, body.deadline_seconds),
    output_retention_days: retention.days,
    origin: publicBaseUrl(ctx.env),
    request_id: ctx.requestId,
    safety: safety.admitted.record,
    output_destination: outputDestinationPlan,
    ...(ctx.batch ? { batch: ctx.batch } : {}),
  };
  checkRecordSize(plan);
  const result = await stub.create({ request_hash: hash, plan });
  return { ...outcome(result), headers: deprecationHeaders(selection.model) };
}

/**
 * The days the task keeps its outputs. A body asking for more than the tenant allows is refused,
 * unless it is a retry of a task already made (the tenant may have lowered its retention since).
 */
async function retentionOf(
  ctx: AdmissionContext,
  body: CommonFields,
  replay: () => Promise<CreateResult | null>,
): Promise<{ days: number } | { replay: CreateResult }> {
  const tenantDays = await callerRetentionDays(ctx.env, ctx.caller);
  if (body.output_retention_days !== undefined && body.output_retention_days > tenantDays) {
    const seen = await replay();
    if (seen) return { replay: seen };
  }
  return { days: requestRetentionDays(body.output_retention_days, tenantDays) };
}

/** A task record is one SQLite value (at most 2 MB): far below that, with room for what execution adds. */
export const MAX_TASK_PLAN_BYTES = 1024 * 1024;

/** Refuses at once, before anything is reserved, a request whose task could never be stored. */
export function checkRecordSize(plan: TaskPlan): void {
  const bytes = new TextEncoder().encode(JSON.stringify(plan)).length;
  if (bytes > MAX_TASK_PLAN_BYTES) {
    throw new ApiError(
      "invalid_request",
      `This request would make a task of ${bytes} bytes; the limit is ${MAX_TASK_PLAN_BYTES}.`,
      {
        param: "",
        details: {
          errors: [{ loc: ["body"], reason: `the stored task would exceed ${MAX_TASK_PLAN_BYTES} bytes` }],
          limit_bytes: MAX_TASK_PLAN_BYTES,
          task_bytes: bytes,
        },
      },
    );
  }
}

/** A target canvas is normalised to the model's multiple and bounds: say so when it moved. */
function canvasWarnings(ctx: OperationContext<any>): { code: string; message: string; field: string }[] {
  const canvas = ctx.body?.canvas;
  const d = ctx.selection.dimensions;
  if (canvas?.type !== "target" || !d || (d.width === canvas.width && d.height === canvas.height)) return [];
  return [
    {
      code: "canvas_normalized",
      message: `${canvas.width}x${canvas.height} becomes ${d.width}x${d.height} on ${ctx.selection.model.model}; the output reports its actual size.`,
      field: "/canvas",
    },
  ];
}

/**
 * Each live route with the meters that price this request on it (its own price, or the card's).
 * A route whose price list has no option for the request cannot honour it and is left out; when
 * none is left the pricing refusal stands. Test-mode keys are priced at zero.
 */
function pricedRoutes(
  ctx: AdmissionContext,
  live: RoutePlan[],
  card: InterfaceFile,
  dimensions: Record<string, string>,
  usageKey: string,
): { routes: RoutePlan[]; meters: PricedMeter[][] } {
  const routes: RoutePlan[] = [];
  const meters: PricedMeter[][] = [];
  let refusal: unknown;
  for (const route of live) {
    try {
      const m = pricedMeters({ ...card, pricing: route.pricing ?? card.pricing }, dimensions, usageKey);
      meters.push(ctx.caller.mode === "test" ? m.map((x) => ({ ...x, unit_credits: "0" })) : m);
      routes.push(route);
    } catch (e) {
      refusal ??= e;
    }
  }
  if (routes.length === 0) throw refusal;
  return { routes, meters };
}

/**
 * A drill (fault injection only, never in the regions): `metadata.drill_route` names the provider
 * to try first, so the conformance suite can hold each route of a model to the same cases.
 */
function drillRouteOrder(env: Env, metadata: Record<string, string> | undefined, routes: RoutePlan[]): RoutePlan[] {
  const first = metadata?.drill_route;
  if (env.SANDBOX_FAULT_INJECTION !== "true" || !first) return routes;
  return [...routes.filter((r) => r.provider === first), ...routes.filter((r) => r.provider !== first)];
}

/** Sandbox output is never silent: the envelope says so, and why. */
function simulatedWarning(ctx: AdmissionContext, model: string, provider: string) {
  if (!PROVIDERS[provider]?.simulated) return [];
  return [
    {
      code: "simulated_output",
      message:
        ctx.caller.mode === "test"
          ? "Test-mode key: the built-in sandbox produces this task's output (simulated, not the real model) and nothing is charged."
          : `No real provider serving ${model} is configured on this deployment: the built-in sandbox produces this output (simulated, not the real model).`,
      field: "/model",
    },
  ];
}

function outcome(result: CreateResult): { envelope: Envelope; replayed: boolean } {
  switch (result.kind) {
    case "created":
      return { envelope: result.envelope, replayed: false };
    case "replay":
      return { envelope: result.envelope, replayed: true };
    case "in_progress":
      throw new ApiError(
        "request_in_progress",
        "A request with this Idempotency-Key is still being admitted; retry shortly with the same key.",
        {
          retryAfter: 1,
        },
      );
    case "conflict":
      throw new ApiError(
        "idempotency_conflict",
        "This Idempotency-Key was used with a different request body; send changed work under a new key.",
        {
          details: { recovery: { action: "use_new_idempotency_key", requires_input_change: false, client_request_id: "new" } },
        },
      );
    case "rejected":
      throw refusalError(result.error);
    case "refused":
      if (result.code === "tenant_disabled") throw new ApiError("tenant_disabled", "The tenant of this key is disabled.");
      if (result.code === "key_spend_limit")
        throw keySpendLimitError(result.required, result.remaining, result.resets_at, result.limited_by);
      throw new ApiError(
        "insufficient_balance",
        `This task needs ${result.required} credits; the balance is ${result.balance}.`,
        {
          details: { balance: result.balance, required: result.required },
        },
      );
  }
}
