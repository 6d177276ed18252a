/**
 * Token estimates and credits of a chat completion. The reservation is an upper bound: the
 * estimated prompt at the input price plus every output token the request allows at the output
 * price. The charge comes from the usage the model reports, each token type at its own price.
 */
import { contextTier, pricingAt, unitPrice } from "../catalog/pricing";
import type { InterfaceFile } from "../catalog/schema";
import { dec, fmt } from "../lib/decimal";
import type { ChatCompletionRequest, ChatMessage } from "./schema";

/** A fixed allowance per image part (a high-detail 1024×1024 image is about 800 tokens). */
export const IMAGE_PART_TOKENS = 1000;
/** Role markers and separators a chat template adds around each message. */
const PER_MESSAGE_TOKENS = 4;
const PRIMING_TOKENS = 3;

/**
 * About 4 characters per token for ASCII text; every other code point counts as a token of its
 * own, which keeps the estimate above the real count for scripts that tokenize densely.
 */
export function textTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const ch of text) {
    if ((ch.codePointAt(0) as number) < 128) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 4) + other;
}

function contentTokens(content: ChatMessage["content"]): number {
  if (content === null || content === undefined) return 0;
  if (typeof content === "string") return textTokens(content);
  let n = 0;
  for (const part of content) {
    if (part.type === "text") n += textTokens(part.text);
    else if (part.type === "refusal") n += textTokens(part.refusal);
    else n += IMAGE_PART_TOKENS;
  }
  return n;
}

export function estimatePromptTokens(body: Pick<ChatCompletionRequest, "messages" | "tools" | "response_format">): number {
  let n = PRIMING_TOKENS;
  for (const m of body.messages) {
    n += PER_MESSAGE_TOKENS + contentTokens(m.content);
    if ("name" in m && m.name) n += textTokens(m.name);
    if (m.role === "assistant" && m.tool_calls) n += textTokens(JSON.stringify(m.tool_calls));
    if (m.role === "tool") n += textTokens(m.tool_call_id);
  }
  if (body.tools?.length) n += textTokens(JSON.stringify(body.tools));
  if (body.response_format?.type === "json_schema") n += textTokens(JSON.stringify(body.response_format.json_schema));
  return n;
}

/** The wire format's usage object, with every detail present. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** `cache_creation_tokens`: prompt tokens written to the upstream's cache (Anthropic bills them apart). */
  prompt_tokens_details: { cached_tokens: number; cache_creation_tokens?: number };
  completion_tokens_details: { reasoning_tokens: number };
}

const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/** Upstream usage in the full shape; details that are missing are zero, never above their totals. */
export function normalizeUsage(raw: unknown): ChatUsage {
  const u = (raw ?? {}) as Record<string, any>;
  const prompt = count(u.prompt_tokens);
  const completion = count(u.completion_tokens);
  const cached = Math.min(prompt, count(u.prompt_tokens_details?.cached_tokens));
  const written = Math.min(prompt - cached, count(u.prompt_tokens_details?.cache_creation_tokens));
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached, ...(written > 0 ? { cache_creation_tokens: written } : {}) },
    completion_tokens_details: { reasoning_tokens: Math.min(completion, count(u.completion_tokens_details?.reasoning_tokens)) },
  };
}

export function usageOf(promptTokens: number, completionTokens: number): ChatUsage {
  return normalizeUsage({ prompt_tokens: promptTokens, completion_tokens: completionTokens });
}

export interface TokenPrices {
  input: string;
  cache_read: string;
  /** Writing to the upstream's prompt cache (falls back to the input price). */
  cache_write?: string;
  output: string;
  reasoning: string;
}

/**
 * The prices of a call, in force at `at` and in the context tier of its prompt (a tier such as
 * `above_272k` prices the whole request). Cached tokens fall back to the input price and
 * reasoning tokens to the output price.
 */
export function tokenPrices(card: InterfaceFile, promptTokens: number, at = Date.now()): TokenPrices {
  const priced = { ...card, pricing: pricingAt(card.pricing, at) };
  const tier = contextTier(priced.pricing, promptTokens);
  const has = (t: string) => priced.pricing.options.some((o) => o.dimensions.token_type === t);
  const price = (t: string) => unitPrice(priced, { token_type: t, ...(tier ? { context_tier: tier } : {}) }, at);
  const input = price("input");
  const output = price("output");
  return {
    input,
    output,
    cache_read: has("cache_read") ? price("cache_read") : input,
    cache_write: has("cache_write") ? price("cache_write") : input,
    reasoning: has("reasoning") ? price("reasoning") : output,
  };
}

export function estimateCredits(prices: TokenPrices, promptTokens: number, maxCompletionTokens: number): string {
  return fmt(dec(prices.input).times(promptTokens).plus(dec(prices.output).times(maxCompletionTokens)));
}

/** Credits of what the model reports: uncached input, cache reads, cache writes, visible output, reasoning. */
export function usageCredits(prices: TokenPrices, usage: ChatUsage): string {
  const cached = usage.prompt_tokens_details.cached_tokens;
  const written = usage.prompt_tokens_details.cache_creation_tokens ?? 0;
  const reasoning = usage.completion_tokens_details.reasoning_tokens;
  return fmt(
    dec(prices.input)
      .times(usage.prompt_tokens - cached - written)
      .plus(dec(prices.cache_read).times(cached))
      .plus(dec(prices.cache_write ?? prices.input).times(written))
      .plus(dec(prices.output).times(usage.completion_tokens - reasoning))
      .plus(dec(prices.reasoning).times(reasoning)),
  );
}
