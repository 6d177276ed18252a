/**
 * The upstream providers as the doors reach them: which are live, their configuration and adapters.
 */

import { PROVIDERS } from "../providers/names";

export { providerConfig } from "../providers/config";
export { adapterFor } from "../providers/registry";
export { liveProviders } from "../providers/routing";

/** The providers whose adapters serve a media capability (the names a request's `provider` preferences may use for it). */
export function providersServing(capability: string): string[] {
  return Object.entries(PROVIDERS)
    .filter(([, p]) => (p.media as readonly string[]).includes(capability))
    .map(([name]) => name);
}
