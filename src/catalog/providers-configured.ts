import type { Env } from "../env";

/**
 * The providers this deployment can call. The built-in sandbox is there unless
 * SANDBOX_ENABLED is "false"; another
 * provider counts once its credential is configured (`PROVIDER_<NAME>_API_KEY`).
 */
export function configuredProviders(env: Env): Set<string> {
  const providers = new Set<string>(env.SANDBOX_ENABLED === "false" ? [] : ["sandbox"]);
  for (const [key, value] of Object.entries(env as unknown as Record<string, unknown>)) {
    const m = /^PROVIDER_([A-Z0-9_]+)_API_KEY$/.exec(key);
    if (m && typeof value === "string" && value.length > 0) providers.add((m[1] as string).toLowerCase().replaceAll("_", "-"));
  }
  return providers;
}
