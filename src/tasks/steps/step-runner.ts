/**
 * What the callback and final-read steps need of the task object's runner: its bindings, storage,
 * effects and envelope. Declared here so those steps do not import the runner that calls them.
 */
import type { Env } from "../../env";
import type { ProviderJob } from "../../providers/types";
import type { Envelope, TaskRecord } from "../../task-record/record";
import type { StepResult } from "../../task-record/step-effects";
import type { TaskStorage } from "../task-storage";

export interface StepRunner {
  readonly env: Env;
  readonly store: TaskStorage;
  /** Carries out a step's effects in order; returns whether the task now waits. */
  apply(step: StepResult): Promise<boolean>;
  /** The envelope as clients get it (output artifacts carry signed URLs). */
  present(rec: TaskRecord): Promise<Envelope>;
  job(rec: TaskRecord): ProviderJob;
}
