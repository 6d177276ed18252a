/**
 * Usage as some OpenAI-compatible upstreams report it, in the OpenAI shape the service bills.
 * DeepSeek documents its context-cache hits as `usage.prompt_cache_hit_tokens` (and the rest of
 * the prompt as `prompt_cache_miss_tokens`) rather than `prompt_tokens_details.cached_tokens`
 * (api-docs.deepseek.com, "Create Chat Completion" and the context caching guide). Without this,
 * cache hits would be billed at the full input price.
 */
import type { ChatObject } from "../chat-upstream";

const tokens = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);

/** The usage with its cache hits as `prompt_tokens_details.cached_tokens`: DeepSeek's field first, the OpenAI one as fallback. */
export function withCachedTokens(usage: ChatObject): ChatObject {
  if (!usage || typeof usage !== "object" || Array.isArray(usage)) return usage;
  const hits = tokens(usage.prompt_cache_hit_tokens);
  if (hits === undefined) return usage;
  const details =
    usage.prompt_tokens_details && typeof usage.prompt_tokens_details === "object" ? usage.prompt_tokens_details : {};
  return { ...usage, prompt_tokens_details: { ...details, cached_tokens: hits } };
}

/** A completion or chunk whose usage (when it carries one) has its cache hits where the service reads them. */
export function withUsageDetails(object: ChatObject): ChatObject {
  return object?.usage ? { ...object, usage: withCachedTokens(object.usage) } : object;
}
