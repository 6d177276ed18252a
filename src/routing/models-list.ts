/**
 * `models`: the caller's ordered fallback list, sent instead of `model` (docs/routing.md). Each is a
 * concrete model id; the first that can serve does, and every one passed over is reported in
 * `model_fallbacks`. A model the list does not name never serves.
 */
import { z } from "@hono/zod-openapi";
import { ApiError } from "../errors/api-error";

export const MAX_FALLBACK_MODELS = 5;

export const ModelsList = z
  .array(z.string().min(1).max(128))
  .min(1)
  .max(MAX_FALLBACK_MODELS)
  .superRefine((list, ctx) => {
    list.forEach((m, i) => {
      if (m === "auto")
        ctx.addIssue({ code: "custom", path: [i], message: "`auto` is not allowed in `models`: name concrete models" });
      else if (list.indexOf(m) !== i) ctx.addIssue({ code: "custom", path: [i], message: `'${m}' is listed twice` });
    });
  })
  .openapi({
    description: `Instead of \`model\`: 1 to ${MAX_FALLBACK_MODELS} concrete model ids tried in this order when the one before cannot serve (its card refuses the request, its routes are all failing, the key or max_credits excludes it, or — for a task — its upstreams fail). \`resolved_model\` names the one that served; \`model_fallbacks\` the ones passed over and why.`,
    example: ["flux-2-pro", "gpt-image-1"],
  });

/** What a passed-over model is reported as. */
export interface ModelFallback {
  model: string;
  /** A `candidate_failures` code, or `upstream_failed` for a task whose upstreams failed on it. */
  reason: string;
  at: string;
  /** What was said, briefly (the candidate failure's or the upstream's message). */
  message?: string;
}

/** `model` and `models` together are refused: the caller must say one thing. */
export function checkOneModelField(raw: Record<string, unknown>): void {
  if (raw.models !== undefined && raw.model !== undefined) {
    throw new ApiError("invalid_request", "Send either `model` or `models`, not both.", {
      param: "/models",
      details: { errors: [{ loc: ["body", "models"], reason: "`model` is also sent" }] },
    });
  }
}
