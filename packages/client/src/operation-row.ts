/** The shape of a row of the generated operation table (src/generated/operations.ts). */

/** A body field that takes media inputs: one, a list, or a list of references `{kind, media, …}`. */
export interface MediaField {
  field: string;
  shape: "one" | "many" | "reference";
  required: boolean;
  /** For references: the kinds their `kind` accepts. */
  kinds?: readonly string[];
}

/** What the OpenAPI document says of a body field, for the command line's help. */
export interface FieldDoc {
  description?: string;
  default?: unknown;
  /** The values it allows. */
  enum?: readonly (string | number | boolean | null)[];
  minimum?: number;
  maximum?: number;
}

export interface OperationRow {
  method: string;
  path: string;
  tag: string | null;
  summary: string;
  /** `x-capability`: the capability a task-creating operation serves. */
  capability: string | null;
  /** Which credential the operation takes: an API key, the operator token, or none. */
  auth: "apiKey" | "admin" | "none";
  idempotencyKey: boolean;
  pathParams: readonly string[];
  queryParams: readonly string[];
  requestTypes: readonly string[];
  responseTypes: readonly string[];
  /** Operations with a JSON body: every body field (dotted when nested; `<map>.*` for a map's values) with its JSON types. */
  fields?: Readonly<Record<string, readonly string[]>>;
  required?: readonly string[];
  /** Task-creating operations: the fields that take media inputs. */
  media?: readonly MediaField[];
  /** Each field's description, default, allowed values and range, where the document gives them. */
  docs?: Readonly<Record<string, FieldDoc>>;
}
