/** The task a create makes: its plan, with every warning it carries, and the size it may have. */
import { deprecationWarning } from "../../catalog/deprecation";
import type { PricedMeter } from "../../catalog/pricing";
import { ApiError } from "../../errors/api-error";
import { publicBaseUrl } from "../../lib/public-url";
import { planDeadline } from "../../operations/deadline-request";
import type { OperationContext, OperationSpec } from "../../operations/types";
import { PROVIDERS } from "../../providers/names";
import type { RoutePlan } from "../../providers/routing";
import type { SafetyRecord } from "../../safety/review";
import type { AlternateModel, TaskPlan } from "../../task-record/record";
import { echoInput } from "../input-echo";
import { type AdmissionContext, COMMON_FIELDS, type CommonFields } from "./context";
import type { PricedRequest } from "./price";

/** What admission decided besides the price: the callback, the retention, content review, the destination. */
export interface PlanChoices {
  callback: TaskPlan["callback"];
  retentionDays: number;
  safety: { record: SafetyRecord; warnings: TaskPlan["warnings"] };
  outputDestination: TaskPlan["output_destination"];
}

/** The plan the task object stores, refused here when it could never be stored. */
export async function taskPlan<B extends CommonFields>(
  ctx: AdmissionContext,
  spec: OperationSpec,
  body: B,
  raw: Record<string, unknown>,
  priced: PricedRequest<B>,
  choices: PlanChoices,
): Promise<{ plan: TaskPlan; json: string }> {
  const { opCtx, selection, media, routes, meters, estimate } = priced;
  const route = routes[0] as RoutePlan;
  const input = await echoInput(Object.fromEntries(Object.entries(raw).filter(([k]) => !COMMON_FIELDS.has(k))), media);
  const plan: TaskPlan = {
    tenant_id: ctx.caller.tenant_id,
    capability: spec.capability,
    // With a `models` list, the first listed model is the one asked for; `resolved_model` the one that serves.
    model: typeof raw.model === "string" ? raw.model : (body.models?.[0] ?? "auto"),
    resolved_model: selection.model.model,
    route,
    routes,
    mode: ctx.caller.mode,
    key_id: ctx.caller.key_id,
    card: selection.card,
    request: { ...spec.providerRequest(opCtx), inputs: planInputs(priced) },
    input,
    metadata: body.metadata ?? {},
    warnings: [
      ...(spec.warnings?.(opCtx) ?? []),
      ...canvasWarnings(opCtx),
      ...simulatedWarning(ctx, selection.model.model, route.provider),
      ...deprecationWarning(selection.model),
      ...choices.safety.warnings,
    ],
    estimate,
    pricing: meters[0] as PricedMeter[],
    route_pricing: meters,
    callback: choices.callback,
    deadline_seconds: planDeadline(spec.capability, body.deadline_seconds),
    output_retention_days: choices.retentionDays,
    origin: publicBaseUrl(ctx.env),
    request_id: ctx.requestId,
    safety: choices.safety.record,
    output_destination: choices.outputDestination,
    ...(ctx.batch ? { batch: ctx.batch } : {}),
    ...(body.models
      ? { models: body.models, alternates: alternatesOf(spec, priced), model_fallbacks: priced.fallbacks ?? [] }
      : {}),
  };
  return { plan, json: checkRecordSize(plan) };
}

/** The listed models after the admitted one, each with what it needs to run, or why it cannot. */
function alternatesOf<B extends CommonFields>(spec: OperationSpec, priced: PricedRequest<B>): AlternateModel[] {
  return (priced.alternates ?? []).map((l) =>
    l.failure
      ? { model: l.model, failure: { code: l.failure.code, message: l.failure.message } }
      : {
          model: l.model,
          card: l.priced.selection.card,
          request: { ...spec.providerRequest(l.priced.opCtx), inputs: planInputs(l.priced) },
          routes: l.priced.routes,
          pricing: l.priced.meters[0] as PricedMeter[],
          route_pricing: l.priced.meters,
        },
  );
}

/** A task record is one SQLite value (at most 2 MB): far below that, with room for what execution adds. */
export const MAX_TASK_PLAN_BYTES = 1024 * 1024;

/**
 * Refuses at once, before anything is reserved, a request whose task could never be stored.
 * Answers the plan as JSON, which is how it travels to the task object.
 */
export function checkRecordSize(plan: TaskPlan): string {
  const json = JSON.stringify(plan);
  // A UTF-8 character is at most 3 bytes per UTF-16 unit: only a long plan is encoded to be measured.
  if (json.length * 3 <= MAX_TASK_PLAN_BYTES) return json;
  const bytes = new TextEncoder().encode(json).length;
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
  return json;
}

/** The request's stored media, as the provider request lists them. */
function planInputs(priced: { media: PricedRequest<CommonFields>["media"] }) {
  return priced.media.map((m) => ({
    field: m.field,
    key: m.key,
    role: m.role,
    ...m.facts,
    ...(m.origin ? { origin: m.origin } : {}),
  }));
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
