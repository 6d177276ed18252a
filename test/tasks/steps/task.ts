/** A task record as admission commits it, built by the admission step itself, for the step tests. */
import type { InterfaceFile } from "../../../src/catalog/schema";
import type { TaskPlan, TaskRecord } from "../../../src/task-record/record";
import type { Effect, StepResult } from "../../../src/task-record/step-effects";
import { admissionRecord } from "../../../src/tasks/steps/admission";

export const T0 = Date.parse("2026-01-01T00:00:00.000Z");

export function plan(over: Partial<TaskPlan> = {}): TaskPlan {
  return {
    tenant_id: "ten_steps",
    capability: "text_to_image",
    model: "acme/pic-1",
    resolved_model: "acme/pic-1",
    route: { provider: "first", upstream_model: "pic-1" },
    routes: [
      { provider: "first", upstream_model: "pic-1" },
      { provider: "second", upstream_model: "pic-1-alt" },
    ],
    mode: "live",
    card: {} as InterfaceFile,
    request: { prompt: "a lighthouse" },
    input: { prompt: "a lighthouse" },
    metadata: {},
    warnings: [],
    estimate: "40",
    pricing: [{ meter: "images", unit: "image", unit_credits: "40", usage_key: "image_count" }],
    callback: { url: "https://hooks.example/cb", signing_key_id: null },
    deadline_seconds: 600,
    output_retention_days: 30,
    origin: "https://api.test",
    request_id: "req_steps",
    ...over,
  };
}

/** A committed task, with `over` applied to the record. */
export function task(over: Partial<TaskRecord> = {}, planOver: Partial<TaskPlan> = {}): TaskRecord {
  const admitted = admissionRecord(plan(planOver), {
    task_id: "task_steps",
    message_id: "msg_steps",
    reservation: { task_id: "task_steps:abc:1", reserved: "40" },
    now: T0,
  });
  return { ...admitted.rec, ...over };
}

/** The effects' kinds in order, as `save`, `event:<kind>`, `checkpoint:<point>`, `index`, `drop_staging`. */
export function kinds(step: StepResult): string[] {
  return step.effects.map((e: Effect) =>
    e.type === "event" ? `event:${e.kind}` : e.type === "checkpoint" ? `checkpoint:${e.point}` : e.type,
  );
}

/** The records the step saves, in order. */
export function saves(step: StepResult): TaskRecord[] {
  return step.effects.flatMap((e) => (e.type === "save" ? [e.rec] : []));
}

/** The detail of the step's event `kind`. */
export function eventDetail(step: StepResult, kind: string): unknown {
  const e = step.effects.find((x) => x.type === "event" && x.kind === kind);
  return e && e.type === "event" ? e.detail : undefined;
}
