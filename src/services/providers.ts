/**
 * The upstream providers as the doors reach them: which are live, their configuration and adapters.
 */

export { providerConfig } from "../providers/config";
export { adapterFor } from "../providers/registry";
export { liveProviders } from "../providers/routing";
