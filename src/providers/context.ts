/** What an adapter gets besides the job: its configuration, access to the inputs, its webhook URL. */
import type { Env } from "../env";
import { publicBaseUrl } from "../lib/public-url";
import { signInputUrl } from "../media/signed-inputs";
import type { ProviderAdapter, ProviderContext } from "./adapter";
import { type ProviderConfig, providerConfig } from "./config";
import type { JobInput } from "./jobs";
import { ProviderError } from "./types";

/** The sandbox needs no account: a configuration that names it and nothing else. */
const SANDBOX_CONFIG: ProviderConfig = { name: "sandbox", apiKey: "", baseUrl: "", timeoutMs: 60_000, extra: {} };

/** The adapter's configuration on this deployment, or null when its credential has gone. */
export function configFor(env: Env, adapter: ProviderAdapter): ProviderConfig | null {
  return adapter.name === "sandbox" ? SANDBOX_CONFIG : providerConfig(env, adapter.name, adapter.defaultBaseUrl);
}

export function providerContext(
  env: Env,
  adapter: ProviderAdapter,
  config: ProviderConfig,
  task: { task_id: string; origin: string },
): ProviderContext {
  const base = publicBaseUrl(env) || task.origin;
  return {
    env,
    now: Date.now(),
    config,
    inputs: {
      url: (input: JobInput) => {
        // Upstreams fetch from outside: a relative URL would mean nothing to them.
        if (!/^https?:\/\//.test(base)) {
          throw new ProviderError(
            "model_unavailable",
            "This deployment has no PUBLIC_BASE_URL, so upstreams cannot read its inputs.",
          );
        }
        return signInputUrl(env, base, input.key);
      },
      async bytes(input: JobInput) {
        const object = await env.ARTIFACTS.get(input.key);
        if (!object) throw new Error(`input ${input.field} is no longer stored`);
        return new Uint8Array(await object.arrayBuffer());
      },
    },
    // Only a deployment with a public address can be called back.
    webhookUrl:
      publicBaseUrl(env) && adapter.verifyWebhook
        ? `${publicBaseUrl(env)}/webhooks/providers/${adapter.name}/${task.task_id}`
        : null,
  };
}
