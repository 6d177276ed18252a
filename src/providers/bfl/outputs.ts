/**
 * A Ready answer as the task's result: one image, `result.sample`, a signed delivery URL
 * (delivery.*.bfl.ai) that expires after ten minutes (help.bfl.ai "Which API endpoint should I
 * use?"; BFL's integration guide). It is handed to the service as a URL to copy into its
 * own storage at once, without the key: delivery hosts are not the API and need none. Usage is
 * measured by the service from the stored image. BFL's `cost` (what the account paid) is not
 * passed on: metadata reaches the tenant.
 */
import type { ProviderConfig } from "../config";
import { malformed } from "../http";
import { ProviderError, type ProviderHandle, type ProviderResult } from "../types";
import { type BflResultAnswer, detailsOf, STATUS, sampleOf } from "./status";

export function resultOf(config: ProviderConfig, handle: ProviderHandle, answer: BflResultAnswer): ProviderResult {
  if (!answer || typeof answer !== "object") throw malformed(config, "the result answer is not an object");
  const said = detailsOf(config, answer);
  // The poll saw Ready; a moderation decided since then is still final.
  if (answer.status === STATUS.contentModerated) {
    throw new ProviderError(
      "content_filtered",
      `${config.name} withheld the generated image (Content Moderated)${said ? `: ${said}` : "."}`,
    );
  }
  if (answer.status === STATUS.requestModerated) {
    throw new ProviderError(
      "safety_rejected",
      `${config.name} refused the request (Request Moderated)${said ? `: ${said}` : "."}`,
    );
  }
  if (answer.status !== STATUS.ready) {
    const shown = typeof answer.status === "string" ? answer.status.slice(0, 40) : "no status";
    throw new ProviderError("model_request_failed", `${config.name} has no result to read (status "${shown}").`, {
      retryable: true,
    });
  }
  const sample = sampleOf(answer);
  if (!sample) throw malformed(config, "a Ready answer without result.sample");
  const result = answer.result as { seed?: unknown };
  return {
    outputs: [{ kind: "image", index: 0, url: sample }],
    usage: {},
    metadata: {
      bfl_id: handle.job_id,
      ...(typeof result.seed === "number" && Number.isSafeInteger(result.seed) ? { seed: result.seed } : {}),
    },
  };
}
