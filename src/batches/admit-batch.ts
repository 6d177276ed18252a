/**
 * Admission of a batch: every item is validated and priced as its create would be (the body's
 * schema, then the whole of validation and model selection, src/tasks/admit.ts priceRequest)
 * before anything is written, and one invalid item refuses the batch with a pointer into it.
 * Then the batch object takes the batch row and the item rows, in chunks, and starts.
 */
import type { Caller } from "../accounts/caller";
import type { Capability } from "../catalog/schema";
import { loadCatalog } from "../catalog/store";
import { ApiError, type FieldError } from "../errors/api-error";
import { clause } from "../errors/sentence";
import { dec, fmt, ZERO } from "../lib/decimal";
import { fromJsonPointer, toJsonPointer } from "../lib/json-pointer";
import { publicBaseUrl } from "../lib/public-url";
import { OPERATIONS } from "../operations";
import type { OperationSpec } from "../operations/types";
import { liveProviders } from "../providers/routing";
import { type AdmissionContext, checkCallback, priceRequest } from "../tasks/admit";
import { requestHash, requireIdempotencyKey } from "../tasks/idempotency";
import type { BatchEnvelope } from "./batch-record";
import { batchIndexOf, batchObjectFor } from "./batch-stub";
import type { NewItem } from "./steps/admission";

/** Items written to the batch object per call, and the most of their bodies one call carries. */
const CHUNK = 500;
const CHUNK_BYTES = 4 * 1024 * 1024;
/** Errors listed in a refusal; `details.invalid_items` counts them all. */
const MAX_LISTED_ERRORS = 100;
export const MAX_INLINE_ITEMS = 1000;
export const MAX_FILE_ITEMS = 10_000;
export const DEFAULT_CONCURRENCY = 10;

/** Where an item came from: `items[index]` of the body, or a line (1-based) of the input file. */
export type ItemPlace = { kind: "inline"; index: number } | { kind: "line"; line: number };

export interface BatchItemInput {
  custom_id: unknown;
  body: unknown;
  place: ItemPlace;
}

/**
 * A batch's items, read again each time admission asks (to validate them all, then to write them):
 * an input file of 100 MiB is streamed twice rather than held (src/batches/input-file.ts).
 */
export interface ItemSource {
  read(): AsyncIterable<BatchItemInput>;
}

/** Items already in hand (inline in the request). */
export function itemsInHand(items: BatchItemInput[]): ItemSource {
  return {
    async *read() {
      yield* items;
    },
  };
}

export interface BatchRequest {
  operation: Capability;
  items: ItemSource;
  max_credits?: string;
  concurrency?: number;
  callback_url?: string;
  callback_signing_key_id?: string;
  metadata?: Record<string, string>;
  /** The batch's body as sent: what a retry must repeat. */
  raw: Record<string, unknown>;
}

/** An item body checked against its operation's schema, refused as a create's body is (ApiError with details.errors). */
export type ValidateBody = (spec: OperationSpec, body: unknown) => Record<string, unknown>;

/** The batch fields an item's body may not have: they are the batch's. */
const BATCH_ONLY = ["callback_url", "callback_signing_key_id"] as const;

function locOf(place: ItemPlace): (string | number)[] {
  return place.kind === "inline" ? ["body", "items", place.index] : ["input_file", place.line];
}

function pointerOf(place: ItemPlace, rest: readonly (string | number)[]): string {
  return place.kind === "inline" ? toJsonPointer(["items", place.index, ...rest]) : "/input_file_id";
}

/** A refusal of one item's create, as entries pointing into the batch. */
function itemErrors(place: ItemPlace, e: ApiError): FieldError[] {
  const listed = (e.details?.errors as FieldError[] | undefined) ?? [];
  const entries =
    listed.length > 0
      ? listed.map((f) => ({ path: f.loc[0] === "body" ? f.loc.slice(1) : f.loc, reason: f.reason }))
      : [
          {
            path: fromJsonPointer(e.param ?? ""),
            reason: e.message,
          },
        ];
  return entries.map(({ path, reason }) => ({
    loc: [...locOf(place), "body", ...path],
    param: pointerOf(place, ["body", ...path]),
    reason,
    code: e.code,
    ...(place.kind === "line" ? { line: place.line } : {}),
  }));
}

function fieldError(place: ItemPlace, path: (string | number)[], reason: string): FieldError {
  return {
    loc: [...locOf(place), ...path],
    param: pointerOf(place, path),
    reason,
    code: "invalid_request",
    ...(place.kind === "line" ? { line: place.line } : {}),
  } as FieldError;
}

function whereOf(place: ItemPlace): string {
  return place.kind === "inline" ? `items[${place.index}]` : `line ${place.line} of the input file`;
}

export async function admitBatch(
  ctx: AdmissionContext,
  req: BatchRequest,
  validate: ValidateBody,
): Promise<{ envelope: BatchEnvelope; replayed: boolean }> {
  const key = requireIdempotencyKey(ctx.idempotencyKey);
  const spec = OPERATIONS.find((o) => o.capability === req.operation);
  if (!spec)
    throw new ApiError("invalid_request", `'${req.operation}' is not an operation a batch can run.`, { param: "/operation" });
  const hash = await requestHash(`batch:${req.operation}`, req.raw);
  const stub = batchObjectFor(ctx.env, ctx.caller.tenant_id, ctx.caller.mode, key);
  const seen = await stub.admission(hash);
  if (seen.kind === "replay") return { envelope: seen.envelope, replayed: true };
  if (seen.kind === "conflict") throw idempotencyConflict();

  const callback = await checkCallback(ctx, {
    callback_url: req.callback_url,
    callback_signing_key_id: req.callback_signing_key_id,
  });
  const bundle = await loadCatalog(ctx.env.CATALOG);
  const providers = liveProviders(ctx.env, ctx.caller.mode);
  const errors: { place: ItemPlace; entries: FieldError[] }[] = [];
  // What the first reading keeps of each item: its estimate (by seq) and its custom_id, no body.
  const estimates: string[] = [];
  const seenIds = new Map<string, ItemPlace>();
  let total = ZERO;
  let count = 0;
  for await (const item of req.items.read()) {
    count++;
    const fail = (entries: FieldError[]) => errors.push({ place: item.place, entries });
    const id = item.custom_id;
    if (typeof id !== "string" || id.length < 1 || id.length > 64) {
      fail([fieldError(item.place, ["custom_id"], "custom_id must be a string of 1 to 64 characters")]);
      continue;
    }
    const first = seenIds.get(id);
    if (first) {
      fail([fieldError(item.place, ["custom_id"], `custom_id '${id}' is used already, by ${whereOf(first)}`)]);
      continue;
    }
    seenIds.set(id, item.place);
    const body = item.body;
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      fail([fieldError(item.place, ["body"], "body must be the operation's create body, a JSON object")]);
      continue;
    }
    const own = BATCH_ONLY.filter((f) => f in body);
    if (own.length > 0) {
      fail(own.map((f) => fieldError(item.place, ["body", f], `${f} belongs to the batch, not to an item`)));
      continue;
    }
    try {
      const parsed = validate(spec, body);
      const priced = await priceRequest(ctx, spec, parsed, body as Record<string, unknown>, { bundle, providers });
      estimates.push(priced.estimate);
      total = total.plus(priced.estimate);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      fail(itemErrors(item.place, e));
    }
  }
  if (errors.length > 0) throw invalidItems(errors, count);

  const b = {
    tenant_id: ctx.caller.tenant_id,
    idempotency_key: key,
    request_hash: hash,
    operation: req.operation,
    // What the key's resolution said of the tenant's features holds for the key cache's bound only:
    // items admitted later ask (src/tenancy/tenant-features.ts).
    caller: storedCaller(ctx.caller),
    concurrency: req.concurrency ?? DEFAULT_CONCURRENCY,
    max_credits: req.max_credits === undefined ? null : fmt(dec(req.max_credits)),
    estimated_credits: fmt(total),
    callback,
    metadata: req.metadata ?? {},
    origin: publicBaseUrl(ctx.env),
    request_id: ctx.requestId,
  };
  const begun = await stub.begin(b);
  if (begun === "conflict") throw idempotencyConflict();
  if (begun === "new") await writeItems(req.items, estimates, (chunk) => stub.addItems(chunk));
  const envelope = await stub.seal(estimates.length);
  if (!envelope) throw new Error("batch vanished while being admitted");
  await batchIndexOf(ctx.env, ctx.caller.tenant_id, ctx.caller.mode).indexBatch(envelope.batch_id, envelope.created_at);
  return { envelope, replayed: begun === "replay" };
}

/** The second reading: every item (all valid now) to the batch object, in chunks of CHUNK items or CHUNK_BYTES. */
async function writeItems(source: ItemSource, estimates: string[], add: (chunk: NewItem[]) => Promise<void>): Promise<void> {
  let chunk: NewItem[] = [];
  let bytes = 0;
  let seq = 0;
  for await (const item of source.read()) {
    const estimate = estimates[seq];
    if (estimate === undefined) throw new Error("the batch's items changed between their validation and their writing");
    const body = JSON.stringify(item.body);
    chunk.push({ seq, custom_id: item.custom_id as string, body, estimate });
    bytes += body.length;
    seq++;
    if (chunk.length >= CHUNK || bytes >= CHUNK_BYTES) {
      await add(chunk);
      chunk = [];
      bytes = 0;
    }
  }
  if (chunk.length > 0) await add(chunk);
  if (seq !== estimates.length) throw new Error("the batch's items changed between their validation and their writing");
}

function invalidItems(errors: { place: ItemPlace; entries: FieldError[] }[], total: number): ApiError {
  const first = errors[0] as { place: ItemPlace; entries: FieldError[] };
  const firstEntry = first.entries[0] as FieldError & { param: string };
  const listed = errors.flatMap((e) => e.entries).slice(0, MAX_LISTED_ERRORS);
  const n = errors.length;
  return new ApiError(
    "invalid_request",
    `${n} of ${total} items ${n === 1 ? "is" : "are"} invalid, so the batch was not started; ${whereOf(first.place)}: ${clause(firstEntry.reason)}.`,
    {
      param: firstEntry.param,
      details: { errors: listed, invalid_items: n, ...(first.place.kind === "line" ? { line: first.place.line } : {}) },
    },
  );
}

function idempotencyConflict(): ApiError {
  return new ApiError(
    "idempotency_conflict",
    "This Idempotency-Key was used with a different batch; send changed work under a new key.",
    { details: { recovery: { action: "use_new_idempotency_key", requires_input_change: false, client_request_id: "new" } } },
  );
}

function storedCaller({ features: _features, ...caller }: Caller): Caller {
  return caller;
}
