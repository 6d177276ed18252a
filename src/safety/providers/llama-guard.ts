/**
 * Llama Guard 3 on Cloudflare Workers AI, through the Worker's AI binding, as Cloudflare's model
 * page and the binding's types (workers-types: Ai_Cf_Meta_Llama_Guard_3_8B_*) describe it:
 *   env.AI.run("@cf/meta/llama-guard-3-8b", {messages: [{role: "user", content}], response_format: {type: "json_object"}})
 *   → {response: {safe: boolean, categories?: ["S1", …]}, usage}
 * or, as text, `response: "safe"` / `"unsafe\nS1,S10"`. Each text field is classified on its own
 * (one user message), so a refusal names its field. Text only: images are left unreviewed. The
 * hazard codes are mapped by LLAMA_GUARD_CATEGORIES; Llama Guard gives no scores, so a flagged
 * category scores 1.
 */
import type { AiBinding } from "../../env";
import { LLAMA_GUARD_CATEGORIES } from "../categories";
import {
  type ItemVerdict,
  type ModerationProvider,
  type ModerationResult,
  ModerationUnavailable,
  type ReviewItem,
  remaining,
} from "../provider";

export const LLAMA_GUARD_MODEL = "@cf/meta/llama-guard-3-8b";

/** `{safe, categories}`, or the model's text answer, as a verdict; null when neither can be read. */
export function readLlamaGuard(output: unknown): { safe: boolean; codes: string[] } | null {
  const response = output && typeof output === "object" ? (output as { response?: unknown }).response : undefined;
  if (response && typeof response === "object") {
    const r = response as { safe?: unknown; categories?: unknown };
    if (typeof r.safe !== "boolean") return null;
    const codes = Array.isArray(r.categories) ? r.categories.filter((c): c is string => typeof c === "string") : [];
    return { safe: r.safe, codes };
  }
  if (typeof response === "string") {
    const [first, second] = response.trim().split(/\r?\n/);
    const word = first?.trim().toLowerCase();
    if (word === "safe") return { safe: true, codes: [] };
    if (word !== "unsafe") return null;
    return {
      safe: false,
      codes: (second ?? "")
        .split(",")
        .map((c) => c.trim())
        .filter(Boolean),
    };
  }
  return null;
}

export class LlamaGuardModeration implements ModerationProvider {
  readonly name = "llama-guard";
  readonly external = true;
  readonly reviewsImages = false;

  constructor(private readonly ai: AiBinding | undefined) {}

  async review(items: ReviewItem[], deadline: number): Promise<ModerationResult> {
    const ai = this.ai;
    if (!ai) throw new ModerationUnavailable("SAFETY_PROVIDER is llama-guard but the Worker has no AI binding", "misconfigured");
    const texts = items.filter((i) => i.kind === "text");
    const unreviewed = items.filter((i) => i.kind !== "text").map((i) => i.param);
    const verdicts = await Promise.all(texts.map((t) => this.classify(ai, t.param, t.text, deadline)));
    return { verdicts, unreviewed };
  }

  private async classify(ai: AiBinding, param: string, text: string, deadline: number): Promise<ItemVerdict> {
    const left = remaining(deadline);
    if (left <= 0) throw new ModerationUnavailable("Llama Guard did not answer in time", "timeout");
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(new ModerationUnavailable("Llama Guard did not answer in time", "timeout"));
      }, left);
    });
    let output: unknown;
    try {
      output = await Promise.race([
        ai.run(
          LLAMA_GUARD_MODEL,
          { messages: [{ role: "user", content: text }], response_format: { type: "json_object" } },
          { signal: abort.signal },
        ),
        timeout,
      ]);
    } catch (e) {
      if (e instanceof ModerationUnavailable) throw e;
      throw new ModerationUnavailable(
        `Workers AI refused the classification: ${e instanceof Error ? e.message : String(e)}`,
        "upstream_error",
      );
    } finally {
      clearTimeout(timer);
    }
    const verdict = readLlamaGuard(output);
    if (!verdict) throw new ModerationUnavailable("Llama Guard answered in a shape it does not document", "malformed");
    // An unsafe verdict without a code it documents still refuses: it is kept under its own code.
    const flagged = verdict.safe
      ? []
      : [
          ...new Set(
            (verdict.codes.length ? verdict.codes : ["unspecified"]).map(
              (c) => LLAMA_GUARD_CATEGORIES[c.toUpperCase()] ?? `llama_guard:${c}`,
            ),
          ),
        ];
    return { param, flagged, scores: Object.fromEntries(flagged.map((c) => [c, 1])) };
  }
}
