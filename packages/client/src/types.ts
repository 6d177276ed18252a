/**
 * Request and response types of every operation, read off the generated OpenAPI types: nothing
 * here restates a field.
 */
import type { components, operations } from "./generated/openapi.js";
import type { OPERATIONS, OperationId } from "./generated/operations.js";

export type Schemas = components["schemas"];
export type TaskEnvelope = Schemas["TaskEnvelope"];
export type TaskStatus = TaskEnvelope["status"];
export type TaskProgress = TaskEnvelope["progress"];
export type MediaInput = Schemas["MediaInput"];

type Op<K extends OperationId> = K extends keyof operations ? operations[K] : never;

/** The fields of an operation's body that the document gives a default (from the generated table). */
type DefaultedOf<K extends OperationId> = (typeof OPERATIONS)[K] extends { docs: infer D }
  ? { [F in keyof D]: D[F] extends { default: unknown } ? F : never }[keyof D]
  : never;

/** `B` with the fields `D` optional. */
type Optional<B, D extends PropertyKey> = B extends object
  ? { [F in keyof B as F extends D ? never : F]: B[F] } & { [F in keyof B as F extends D ? F : never]?: B[F] }
  : B;

/**
 * The JSON body an operation takes. A field with a default (`model`, `count`, …) may be left out,
 * though the document lists it as required (it describes the body once the defaults are applied).
 */
export type BodyOf<K extends OperationId> =
  Op<K> extends { requestBody?: { content: { "application/json": infer B } } } ? Optional<B, DefaultedOf<K>> : never;

/** Path parameters (`{task_id}` …). */
export type PathOf<K extends OperationId> = Op<K> extends { parameters: { path: infer P } } ? P : never;

/** Query parameters. */
export type QueryOf<K extends OperationId> = Op<K> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type SuccessStatus = 200 | 201 | 202;
/** The JSON an operation answers with on success. */
export type ResultOf<K extends OperationId> = {
  [S in keyof Op<K>["responses"]]: S extends SuccessStatus
    ? Op<K>["responses"][S] extends { content: { "application/json": infer R } }
      ? R
      : never
    : never;
}[keyof Op<K>["responses"]];

/** One output file of a task (`output.artifacts[]`). */
export type OutputArtifact = NonNullable<NonNullable<NonNullable<TaskEnvelope["output"]>["artifacts"]>>[number];

/** What a download needs of an artifact: its id, and its signed URL when it has one. */
export interface ArtifactRef {
  artifact_id: string;
  signed_url?: string;
  signed_url_expires_at?: string;
  content_type?: string;
}

/** What the events stream says about a task while it moves. */
/** A conditional read of a task (`If-None-Match`, `Prefer: wait`). */
export interface ConditionalTask {
  /** Null when the task is unchanged since the ETag sent (304). */
  task: TaskEnvelope | null;
  etag: string | undefined;
  /** The server held the read (`Preference-Applied: wait`). */
  waited: boolean;
}

export type TaskUpdate = Pick<TaskEnvelope, "task_id" | "status" | "progress">;

export type TaskEvent =
  | { event: "status" | "progress"; id: string | undefined; data: TaskUpdate }
  | { event: "done"; id: string | undefined; data: TaskEnvelope };

export const TERMINAL_STATUSES: readonly string[] = ["succeeded", "failed", "canceled", "expired"];

export function isTerminal(status: string | undefined): boolean {
  return status !== undefined && TERMINAL_STATUSES.includes(status);
}

/** The output files of an envelope that can still be fetched, in output order (a deleted one has no file). */
export function outputArtifacts(task: Pick<TaskEnvelope, "output">): OutputArtifact[] {
  const list = task.output?.artifacts;
  return Array.isArray(list) ? list.filter((a) => a && typeof a.artifact_id === "string" && a.deleted !== true) : [];
}
