/**
 * Adapters by provider name. Adding a provider is one folder under src/providers/ and one line
 * here (and its entry in names.ts, which a test holds to this map).
 */

import type { ProviderAdapter } from "./adapter";
import { anthropicAdapter } from "./anthropic/index";
import { arkAdapter, BYTEPLUS_BASE_URL, VOLCENGINE_BASE_URL } from "./ark/index";
import { bflAdapter } from "./bfl/index";
import { dashscopeAdapter } from "./dashscope/index";
import { falAdapter } from "./fal/index";
import { googleAdapter } from "./google/index";
import { kieAdapter } from "./kie/index";
import { lumaAdapter } from "./luma/index";
import { minimaxAdapter } from "./minimax/index";
import { openaiAdapter } from "./openai/index";
import { replicateAdapter } from "./replicate/index";
import { runwayAdapter } from "./runway/index";
import { sandboxAdapter } from "./sandbox/adapter";

const ADAPTERS: Record<string, ProviderAdapter> = {
  sandbox: sandboxAdapter,
  fal: falAdapter,
  openai: openaiAdapter,
  replicate: replicateAdapter,
  google: googleAdapter,
  anthropic: anthropicAdapter,
  bfl: bflAdapter,
  byteplus: arkAdapter("byteplus", BYTEPLUS_BASE_URL),
  volcengine: arkAdapter("volcengine", VOLCENGINE_BASE_URL),
  minimax: minimaxAdapter,
  dashscope: dashscopeAdapter,
  luma: lumaAdapter,
  runway: runwayAdapter,
  kie: kieAdapter,
};

export function adapterFor(provider: string): ProviderAdapter | null {
  return Object.hasOwn(ADAPTERS, provider) ? (ADAPTERS[provider] as ProviderAdapter) : null;
}

export function adapterNames(): string[] {
  return Object.keys(ADAPTERS);
}
