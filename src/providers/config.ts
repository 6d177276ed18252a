/**
 * Configuration of one upstream from the Worker's environment, by naming convention:
 *   PROVIDER_<NAME>_API_KEY         the credential; the provider counts as configured once it is set
 *   PROVIDER_<NAME>_BASE_URL        optional: a proxy, a regional host, or a fake in tests
 *   PROVIDER_<NAME>_TIMEOUT_MS      optional: longest wait for an answer (default 60000)
 *   PROVIDER_<NAME>_WEBHOOK_SECRET  optional: verifies the provider's webhooks where it signs them with a shared secret
 * <NAME> is the provider's name in upper case with `-` as `_` (openai-compatible → OPENAI_COMPATIBLE).
 */
import type { Env } from "../env";

export interface ProviderConfig {
  name: string;
  apiKey: string;
  /** No trailing slash. */
  baseUrl: string;
  timeoutMs: number;
  webhookSecret?: string;
  /** Every other PROVIDER_<NAME>_* variable, by its suffix in lower case (e.g. `jwks_url`). */
  extra: Record<string, string>;
}

export const DEFAULT_TIMEOUT_MS = 60_000;

export function envPrefix(name: string): string {
  return `PROVIDER_${name.toUpperCase().replaceAll("-", "_")}_`;
}

function vars(env: Env): Record<string, unknown> {
  return env as unknown as Record<string, unknown>;
}

/**
 * What the environment says, per environment object: a Worker's bindings do not change while its
 * isolate lives, so each provider's configuration is read from them once, not on every request.
 * The values are shared: callers copy, never change them.
 */
const configs = new WeakMap<object, Map<string, ProviderConfig | null>>();
const keyed = new WeakMap<object, Set<string>>();

/** The provider's configuration, or null when its API key is not set. */
export function providerConfig(env: Env, name: string, defaultBaseUrl: string): ProviderConfig | null {
  let known = configs.get(env);
  if (!known) {
    known = new Map();
    configs.set(env, known);
  }
  const key = `${name}\n${defaultBaseUrl}`;
  let config = known.get(key);
  if (config === undefined) {
    config = readConfig(env, name, defaultBaseUrl);
    known.set(key, config);
  }
  return config;
}

function readConfig(env: Env, name: string, defaultBaseUrl: string): ProviderConfig | null {
  const prefix = envPrefix(name);
  const all = vars(env);
  const apiKey = all[`${prefix}API_KEY`];
  if (typeof apiKey !== "string" || apiKey.length === 0) return null;
  const base = all[`${prefix}BASE_URL`];
  const timeout = Number(all[`${prefix}TIMEOUT_MS`]);
  const secret = all[`${prefix}WEBHOOK_SECRET`];
  const extra: Record<string, string> = {};
  for (const [k, v] of Object.entries(all)) {
    if (k.startsWith(prefix) && typeof v === "string") extra[k.slice(prefix.length).toLowerCase()] = v;
  }
  return {
    name,
    apiKey,
    baseUrl: (typeof base === "string" && base.length > 0 ? base : defaultBaseUrl).replace(/\/+$/, ""),
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS,
    ...(typeof secret === "string" && secret.length > 0 ? { webhookSecret: secret } : {}),
    extra,
  };
}

/** Names of the providers whose API key is set (lower case, `_` as `-`). */
export function providersWithKeys(env: Env): Set<string> {
  let names = keyed.get(env);
  if (names) return names;
  names = new Set<string>();
  keyed.set(env, names);
  for (const [key, value] of Object.entries(vars(env))) {
    const m = /^PROVIDER_([A-Z0-9_]+)_API_KEY$/.exec(key);
    if (m && typeof value === "string" && value.length > 0) names.add((m[1] as string).toLowerCase().replaceAll("_", "-"));
  }
  return names;
}
