/**
 * Admission of a task-creating request: Idempotency-Key, callback checks, model selection,
 * the estimate, then the task object (which reserves credits and commits). Every operation
 * goes through here; operations differ only in how they describe their request.
 */
import { accountFor, type Caller } from "../accounts/service";
import { unitPrice } from "../catalog/pricing";
import { configuredProviders } from "../catalog/providers-configured";
import type { Capability } from "../catalog/schema";
import { type Selection, type SelectionRequest, select } from "../catalog/select";
import { loadCatalog } from "../catalog/store";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { dec, fmt } from "../lib/decimal";
import { checkOutsideUrl, policyFrom } from "../lib/url-policy";
import { chooseRoute } from "../providers/registry";
import { deadlineSeconds } from "./deadlines";
import { requestHash, requireIdempotencyKey } from "./idempotency";
import type { Envelope, TaskPlan } from "./record";
import type { CreateResult } from "./task-object";

export interface OperationRequest {
  /** The operation's name, part of the idempotency hash (the same body on two operations differs). */
  operation: string;
  capability: Capability;
  /** The body as the client sent it (hashed for idempotency). */
  rawBody: unknown;
  metadata?: Record<string, string>;
  callback_url?: string;
  callback_signing_key_id?: string;
  selection: SelectionRequest;
  input: Record<string, unknown>;
  /** The normalized request the provider receives, from the selection's resolved controls. */
  providerRequest: (selection: Selection) => Record<string, unknown>;
  /** Pricing dimensions and billed quantity for the estimate. */
  estimate: (selection: Selection) => { dimensions: Record<string, string>; quantity: number };
}

export interface AdmissionContext {
  env: Env;
  caller: Caller;
  requestId: string;
  origin: string;
  idempotencyKey: string | undefined;
}

export function taskObjectFor(env: Env, tenantId: string, idempotencyKey: string) {
  return env.TASKS.getByName(`${tenantId}:${idempotencyKey}`);
}

async function checkCallback(ctx: AdmissionContext, req: OperationRequest): Promise<TaskPlan["callback"]> {
  if (req.callback_signing_key_id !== undefined && req.callback_url === undefined) {
    throw new ApiError("callback_url_required", "callback_signing_key_id needs a callback_url to sign deliveries to.", {
      param: "/callback_signing_key_id",
    });
  }
  if (req.callback_url === undefined) return null;
  const verdict = checkOutsideUrl(req.callback_url, policyFrom(ctx.env));
  if (!verdict.ok) {
    throw new ApiError("invalid_request", `callback_url ${verdict.reason}.`, {
      param: "/callback_url",
      details: { errors: [{ loc: ["body", "callback_url"], reason: verdict.reason }] },
    });
  }
  if (req.callback_signing_key_id !== undefined) {
    const key = await accountFor(ctx.env, ctx.caller.tenant_id).signingKey(req.callback_signing_key_id);
    if (!key) {
      throw new ApiError(
        "callback_signing_key_not_found",
        `Callback signing key '${req.callback_signing_key_id}' does not exist.`,
        {
          param: "/callback_signing_key_id",
        },
      );
    }
    if (key.status !== "active") {
      throw new ApiError("callback_signing_key_inactive", `Callback signing key '${req.callback_signing_key_id}' is retired.`, {
        param: "/callback_signing_key_id",
      });
    }
  }
  return { url: verdict.url.toString(), signing_key_id: req.callback_signing_key_id ?? null };
}

export async function admitTask(
  ctx: AdmissionContext,
  req: OperationRequest,
): Promise<{ status: 202; envelope: Envelope; replayed: boolean }> {
  const idempotencyKey = requireIdempotencyKey(ctx.idempotencyKey);
  const callback = await checkCallback(ctx, req);
  const providers = configuredProviders(ctx.env);
  const bundle = await loadCatalog(ctx.env.CATALOG);
  const selection = select({ bundle, providers }, req.selection);
  const route = chooseRoute(selection.model.routes, providers);
  if (!route)
    throw new ApiError("model_unavailable", `No provider can serve ${selection.model.model} right now.`, { param: "/model" });
  const { dimensions, quantity } = req.estimate(selection);
  const unitCredits = unitPrice(selection.card, dimensions);
  const plan: TaskPlan = {
    tenant_id: ctx.caller.tenant_id,
    capability: req.capability,
    model: req.selection.model,
    resolved_model: selection.model.model,
    route: { provider: route.provider, upstream_model: route.upstream_model },
    card: selection.card,
    request: req.providerRequest(selection),
    input: req.input,
    metadata: req.metadata ?? {},
    warnings: [],
    estimate: fmt(dec(unitCredits).times(quantity)),
    pricing: { meter: selection.card.pricing.meter, unit: selection.card.pricing.unit, unit_credits: unitCredits },
    callback,
    deadline_seconds: deadlineSeconds(req.capability),
    origin: ctx.env.PUBLIC_BASE_URL ?? ctx.origin,
    request_id: ctx.requestId,
  };
  const hash = await requestHash(req.operation, req.rawBody);
  // RPC typing cannot express the free-form parts of the envelope; the object returns CreateResult.
  const result = (await taskObjectFor(ctx.env, ctx.caller.tenant_id, idempotencyKey).create({
    request_hash: hash,
    plan,
  })) as unknown as CreateResult;
  switch (result.kind) {
    case "created":
      return { status: 202, envelope: result.envelope, replayed: false };
    case "replay":
      return { status: 202, envelope: result.envelope, replayed: true };
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
    case "refused":
      if (result.code === "tenant_disabled") throw new ApiError("tenant_disabled", "The tenant of this key is disabled.");
      throw new ApiError(
        "insufficient_balance",
        `This task needs ${result.required} credits; the balance is ${result.balance}.`,
        {
          details: { balance: result.balance, required: result.required },
        },
      );
  }
}
