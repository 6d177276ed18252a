import { deprecationHeaders } from "../catalog/deprecation";
import { loadCatalog } from "../catalog/store";
import { outputDestination } from "../destinations/admission";
import { ApiError } from "../errors/api-error";
import { healthView } from "../health/snapshot";
import { taskObjectName } from "../keys/scope";
import type { OperationSpec } from "../operations/types";
import { tenantKeyPlans } from "../provider-keys/routing";
import { liveProviders } from "../providers/routing";
import { reviewerFor } from "../safety/review";
import type { Envelope } from "../task-record/record";
import { checkCallback } from "./admit/callback";
import type { AdmissionContext, CommonFields } from "./admit/context";
import { outcome } from "./admit/outcome";
import { taskPlan } from "./admit/plan";
import { type PricedRequest, priceRequest } from "./admit/price";
import { retentionOf } from "./admit/retention";
import { FetchedImages, reviewAdmission } from "./admit/safety";
import { requestHash, requireIdempotencyKey } from "./idempotency";
import { quoteFor, useQuote } from "./quote-binding";
import { taskObjectFor } from "./task-stub";

export { checkCallback } from "./admit/callback";
export type { AdmissionContext, CommonFields } from "./admit/context";
export { checkRecordSize, MAX_TASK_PLAN_BYTES } from "./admit/plan";
export { type PricedRequest, priceRequest } from "./admit/price";

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
      // A quoted `models` list runs as listed, within the quote's total; a quoted model runs on that model.
      ...(quote ? { ...(body.models ? {} : { model: quote.resolved_model }), quoted: quote } : {}),
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
  // Content review: after every validation, before anything is reserved (src/tasks/admit/safety.ts).
  const safety = await reviewAdmission({ ctx, reviewer, spec, body, images, stub, hash });
  if ("result" in safety) return outcome(safety.result);
  if (quote) await useQuote(ctx, quote, taskObjectName(ctx.caller.tenant_id, ctx.caller.mode, idempotencyKey));
  const { json: planJson } = await taskPlan(ctx, spec, body, raw, priced, {
    callback,
    retentionDays: retention.days,
    safety: safety.admitted,
    outputDestination: outputDestinationPlan,
  });
  // The plan crosses to the task object as the JSON its size was checked on: cheaper than a structured copy.
  const result = await stub.create({ request_hash: hash, plan_json: planJson });
  return { ...outcome(result), headers: deprecationHeaders(priced.selection.model) };
}
