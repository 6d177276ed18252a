/**
 * The deployment's content review configuration (wrangler.toml `vars`, secrets):
 *   SAFETY_PROVIDER      `openai` | `llama-guard` | unset: the built-in reviewer
 *   SAFETY_API_URL       OpenAI's moderation endpoint (default https://api.openai.com/v1/moderations)
 *   SAFETY_API_KEY       its credential (a secret)
 *   SAFETY_MODEL         the moderation model (default omni-moderation-latest)
 *   SAFETY_FAILURE_MODE  `closed` (default): 503 model_unavailable when the provider gives no
 *                        verdict; `open`: admitted with a `safety_review_skipped` warning
 *   SAFETY_TIMEOUT_MS    the whole review's time (default 3000)
 *   SAFETY_REVIEW_CHAT   "true": chat completions are reviewed too
 * Test-mode keys always get the built-in reviewer: nothing leaves the Worker for them.
 */

import type { CatalogBundle } from "../catalog/build";
import type { Env } from "../env";
import type { KeyMode } from "../keys/api-keys";
import { type ModerationProvider, ModerationUnavailable } from "./provider";
import { BuiltinReviewer } from "./providers/builtin";
import { LlamaGuardModeration } from "./providers/llama-guard";
import { OpenAIModeration } from "./providers/openai-moderation";

export const DEFAULT_TIMEOUT_MS = 3_000;

export interface SafetyConfig {
  provider: string;
  failureMode: "closed" | "open";
  timeoutMs: number;
  reviewChat: boolean;
}

export function safetyConfig(env: Env): SafetyConfig {
  const timeout = Number(env.SAFETY_TIMEOUT_MS);
  return {
    provider: env.SAFETY_PROVIDER?.trim() || "builtin",
    failureMode: env.SAFETY_FAILURE_MODE === "open" ? "open" : "closed",
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS,
    reviewChat: env.SAFETY_REVIEW_CHAT === "true",
  };
}

/** A configuration that names no usable provider: every review fails, and the failure mode decides. */
class Misconfigured implements ModerationProvider {
  readonly external = true;
  readonly reviewsImages = false;
  constructor(
    readonly name: string,
    private readonly why: string,
  ) {}
  async review(): Promise<never> {
    throw new ModerationUnavailable(this.why, "misconfigured");
  }
}

/** The provider that reviews a caller's content on this deployment. */
export function moderationProvider(env: Env, mode: KeyMode, bundle: CatalogBundle | null): ModerationProvider {
  const builtin = () => new BuiltinReviewer(bundle?.safety_terms);
  if (mode === "test") return builtin();
  const name = safetyConfig(env).provider;
  switch (name) {
    case "builtin":
      return builtin();
    case "openai":
      if (!env.SAFETY_API_KEY) return new Misconfigured(name, "SAFETY_PROVIDER is openai but SAFETY_API_KEY is not set");
      return new OpenAIModeration({
        apiKey: env.SAFETY_API_KEY,
        ...(env.SAFETY_API_URL ? { url: env.SAFETY_API_URL } : {}),
        ...(env.SAFETY_MODEL ? { model: env.SAFETY_MODEL } : {}),
      });
    case "llama-guard":
      return new LlamaGuardModeration(env.AI);
    default:
      return new Misconfigured(name, `SAFETY_PROVIDER '${name}' is not a known provider (openai, llama-guard, or unset)`);
  }
}
