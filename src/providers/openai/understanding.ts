/**
 * Image understanding on the GPT chat cards: one non-streaming `POST /chat/completions` with the
 * question and the stored images as data URIs (never a client's URL), at the detail asked for.
 * The answer is text; usage is priced per token type from the card.
 */

import { toBase64 } from "../../lib/base64";
import type { ProviderContext } from "../adapter";
import type { JobFor } from "../jobs";
import { type Answer, postOnce, timeoutFor } from "./client";

export async function understandingBody(job: JobFor<"image_to_text">, ctx: ProviderContext): Promise<Record<string, unknown>> {
  const r = job.request;
  const detail = r.detail === "low" || r.detail === "high" ? r.detail : "auto";
  const parts: Record<string, unknown>[] = [{ type: "text", text: r.prompt }];
  for (const input of job.inputs.filter((i) => i.kind === "image")) {
    const bytes = await ctx.inputs.bytes(input);
    parts.push({ type: "image_url", image_url: { url: `data:${input.mime};base64,${toBase64(bytes)}`, detail } });
  }
  return {
    model: job.upstream_model,
    messages: [{ role: "user", content: parts }],
    ...(r.max_output_tokens ? { max_completion_tokens: r.max_output_tokens } : {}),
    ...(r.temperature !== undefined ? { temperature: r.temperature } : {}),
    ...(r.response_format === "json" ? { response_format: { type: "json_object" } } : {}),
    stream: false,
  };
}

export async function submitUnderstanding(job: JobFor<"image_to_text">, ctx: ProviderContext): Promise<Answer> {
  return postOnce(ctx, "/chat/completions", { json: await understandingBody(job, ctx) }, timeoutFor(ctx.config, 120_000));
}
