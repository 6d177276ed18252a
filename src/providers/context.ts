/** What an adapter gets besides the job: its configuration, access to the inputs, its webhook URL. */
import type { Env } from "../env";
import { signInputUrl } from "../media/signed-inputs";
import { type ProviderConfig, providerConfig } from "./config";
import type { JobInput } from "./jobs";
import type { ProviderAdapter, ProviderContext } from "./types";

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
  const base = env.PUBLIC_BASE_URL ?? task.origin;
  return {
    env,
    now: Date.now(),
    config,
    inputs: {
      url: (input: JobInput) => signInputUrl(env, base, input.key),
      async bytes(input: JobInput) {
        const object = await env.ARTIFACTS.get(input.key);
        if (!object) throw new Error(`input ${input.field} is no longer stored`);
        return new Uint8Array(await object.arrayBuffer());
      },
    },
    // Only a deployment with a public address can be called back.
    webhookUrl:
      env.PUBLIC_BASE_URL && adapter.verifyWebhook
        ? `${env.PUBLIC_BASE_URL.replace(/\/+$/, "")}/webhooks/providers/${adapter.name}/${task.task_id}`
        : null,
  };
}
