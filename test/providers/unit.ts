/** What the adapters' unit tests share: the provider's configuration in this project, and a context. */
import { env } from "cloudflare:workers";
import { type ProviderConfig, providerConfig } from "../../src/providers/config";
import type { JobInput } from "../../src/providers/jobs";
import type { ProviderContext } from "../../src/providers/types";

/** The configuration the providers project gives `name` (its fake's URL and key). */
export function unitConfig(name: string, defaultBaseUrl: string): ProviderConfig {
  const c = providerConfig(env, name, defaultBaseUrl);
  if (!c) throw new Error(`the providers project configures PROVIDER_${name.toUpperCase()}_API_KEY`);
  return c;
}

/** A signed-looking input URL, as the service would hand an upstream. */
export const signedUrl = (i: JobInput) => `https://gateway.test/inputs/${i.key}?expires=9999999999&sig=${"ab".repeat(32)}`;

export function unitContext(config: ProviderConfig, over: Partial<ProviderContext> = {}): ProviderContext {
  return {
    env,
    now: Date.now(),
    config,
    inputs: { url: async (i) => signedUrl(i), bytes: async () => new Uint8Array(8) },
    webhookUrl: null,
    ...over,
  };
}
