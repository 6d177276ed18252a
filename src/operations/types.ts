/**
 * An operation is declared once, as data plus a few functions: its body schema, which body
 * fields are card controls, which carry media, how it is priced and what the provider receives.
 * The route, the OpenAPI entry, validation, selection and admission all come from this.
 */
import type { z } from "@hono/zod-openapi";
import type { Capability } from "../catalog/schema";
import type { Canvas, OutputFormat, RequestMedia, Selection } from "../catalog/select";
import type { MediaInputT } from "../media/resolve-input";

export type MediaKind = "image" | "video" | "audio";

/** One media input of a request, before it is fetched. */
export interface MediaRef {
  field: string;
  kind: MediaKind;
  input: MediaInputT;
  /** JSON Pointer to it in the body. */
  param: string;
  role?: string;
}

/** A media input after fetching and probing, and where the provider can read its bytes. */
export interface StoredMedia extends RequestMedia {
  key: string;
  role?: string;
  /** For an earlier output of this service: the upstream and job that made it. */
  origin?: { provider: string; job_id: string };
}

export interface OperationContext<B> {
  body: B;
  raw: Record<string, unknown>;
  selection: Selection;
  media: StoredMedia[];
}

export interface OperationSpec<S extends z.ZodType = z.ZodType> {
  /** Stable name, part of the idempotency hash. */
  name: string;
  /** The OpenAPI operationId (lowerCamelCase, verb first): what generated clients name the method. */
  operationId: string;
  path: `/v1/${string}`;
  capability: Capability;
  tag: string;
  summary: string;
  description?: string;
  schema: S;
  /** Whole request bodies for the documentation; each one is sent by a test and must be admitted. */
  examples: Record<string, { summary: string; value: Record<string, unknown> }>;
  prompt?: (body: z.output<S>) => { field: string; text: string } | undefined;
  /** Free-text body fields (dotted paths) that content review reads (src/tasks/admit/safety.ts); default: the prompt's field. */
  texts?: readonly string[];
  /** Body fields (dotted paths) that the card's controls govern. */
  controls: readonly string[];
  media?: (body: z.output<S>) => MediaRef[];
  canvas?: (body: z.output<S>) => Canvas | undefined;
  voice?: (body: z.output<S>) => string | undefined;
  /** Rewrites the sent body before its control values are read (e.g. `duration: "auto"` = omitted). */
  normalize?: (raw: Record<string, unknown>) => Record<string, unknown>;
  /** Cross-field checks that need the probed media (throw ApiError). */
  check?: (ctx: OperationContext<z.output<S>>) => void;
  /** The usage counter that measures a non-token meter (tokens are priced per token type). */
  usageKey: string;
  /** Estimated usage per usage key. */
  quantities: (ctx: OperationContext<z.output<S>>) => Record<string, number>;
  /** Pricing dimensions (resolution, tier, …) matched against the card's options. */
  dimensions?: (ctx: OperationContext<z.output<S>>) => Record<string, string>;
  providerRequest: (ctx: OperationContext<z.output<S>>) => Record<string, unknown>;
  /**
   * The format the output file is delivered in, on a candidate card (sent, else the card's
   * default), and the field that chooses it: checked against the card and the serving routes.
   */
  output?: (body: z.output<S>, selection: Selection) => OutputFormat | undefined;
  /** Non-fatal notes for the envelope's `warnings`. */
  warnings?: (ctx: OperationContext<z.output<S>>) => Warning[];
}

export interface Warning {
  code: string;
  message: string;
  field: string;
}

/** Declares a spec with its body type inferred from the schema. */
export function operation<S extends z.ZodType>(spec: OperationSpec<S>): OperationSpec<S> {
  return spec;
}
