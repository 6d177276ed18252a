/**
 * Content review in the admission of a task (src/tasks/admit.ts): after validation and model
 * selection, before anything is reserved. The operation declares its free-text fields (`texts`,
 * else its prompt field); image inputs are reviewed from the bytes admission already fetched.
 * A refusal is stored in the task's object against the Idempotency-Key, so the same key and body
 * keep getting the same refusal without another review, and another body a conflict; the first
 * refusal is written to the tenant's audit log (`safety.refused`).
 */
import { recordAudit } from "../../audit/audit";
import { getPath } from "../../lib/paths";
import type { OperationSpec } from "../../operations/types";
import type { ReviewItem } from "../../safety/provider";
import { type Reviewer, review, type SafetyRecord } from "../../safety/review";
import type { CreateResult } from "../task-answers";
import type { TaskStub } from "../task-stub";
import type { AdmissionContext } from "./context";

const NO_BYTES = new Uint8Array(0);

/**
 * The image inputs admission fetched, by pointer: their bytes when the provider reviews images
 * (so nothing is fetched twice), else only that they exist (recorded as unreviewed).
 */
export class FetchedImages extends Map<string, { bytes: Uint8Array; mime: string }> {
  /** `order`: the inputs' pointers in the body's order (they are fetched side by side, and land in any order). */
  constructor(
    private readonly keepBytes: boolean,
    private readonly order: readonly string[] = [],
  ) {
    super();
  }
  override set(param: string, image: { bytes: Uint8Array; mime: string }): this {
    return super.set(param, this.keepBytes ? image : { bytes: NO_BYTES, mime: image.mime });
  }
  /** The images in the body's order. */
  inOrder(): [string, { bytes: Uint8Array; mime: string }][] {
    const at = (p: string) => (this.order.includes(p) ? this.order.indexOf(p) : this.order.length);
    return [...this.entries()].sort(([a], [b]) => at(a) - at(b));
  }
}

/** The operation's reviewed text fields (dotted paths): declared, else its prompt's field. */
export function reviewedTexts(spec: OperationSpec, body: unknown): string[] {
  if (spec.texts) return [...spec.texts];
  const prompt = spec.prompt?.(body as never);
  return prompt ? [prompt.field] : [];
}

/** What is reviewed: each non-empty text field, then each image input, with its JSON Pointer. */
export function admissionItems(
  spec: OperationSpec,
  body: unknown,
  images: ReadonlyMap<string, { bytes: Uint8Array; mime: string }>,
): ReviewItem[] {
  const items: ReviewItem[] = [];
  for (const path of reviewedTexts(spec, body)) {
    const value = getPath(body, path);
    if (typeof value === "string" && value.trim() !== "")
      items.push({ kind: "text", param: `/${path.replaceAll(".", "/")}`, text: value });
  }
  const ordered = images instanceof FetchedImages ? images.inOrder() : [...images];
  for (const [param, image] of ordered) items.push({ kind: "image", param, bytes: image.bytes, mime: image.mime });
  return items;
}

export async function reviewAdmission(args: {
  ctx: AdmissionContext;
  reviewer: Reviewer;
  spec: OperationSpec;
  body: unknown;
  images: FetchedImages;
  stub: TaskStub;
  hash: string;
}): Promise<
  { admitted: { record: SafetyRecord; warnings: { code: string; message: string; field: string }[] } } | { result: CreateResult }
> {
  const { ctx, stub } = args;
  const outcome = await review(args.reviewer, admissionItems(args.spec, args.body, args.images), ctx.requestId);
  if (outcome.kind === "admitted") return { admitted: { record: outcome.record, warnings: outcome.warnings } };
  const result = await stub.refuse({
    request_hash: args.hash,
    tenant_id: ctx.caller.tenant_id,
    mode: ctx.caller.mode,
    error: outcome.refusal.error,
  });
  if (result.kind === "rejected" && result.recorded) {
    try {
      await recordAudit(ctx.env, ctx.caller.tenant_id, {
        actor: ctx.actor ?? { type: "api_key", id: ctx.caller.key_id },
        action: "safety.refused",
        target: `POST ${args.spec.path}`,
        details: {
          ...outcome.refusal.audit,
          capability: args.spec.capability,
          idempotency_key: ctx.idempotencyKey ?? null,
          request_id: ctx.requestId,
        },
      });
    } catch (e) {
      // The refusal stands (it is stored); only its audit entry is missing, and that is logged.
      console.error(
        JSON.stringify({
          level: "error",
          request_id: ctx.requestId,
          message: `safety.refused audit entry not written: ${String(e)}`,
        }),
      );
    }
  }
  return { result };
}
