/** What the adapters' unit tests share: configuration, a context, catalog cards, rejections and what the fakes recorded. */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { InterfaceFile } from "../../src/catalog/schema";
import type { ProviderContext } from "../../src/providers/adapter";
import { type ProviderConfig, providerConfig } from "../../src/providers/config";
import type { ImageRequest, JobFor, JobInput, MediaCapability, VideoRequest } from "../../src/providers/jobs";
import { ProviderError } from "../../src/providers/types";
import type { Recorded } from "./fakes/kit";

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

const testCatalog = JSON.parse(env.TEST_CATALOG) as Record<string, string>;

/** The catalog's interface for `model` × `capability`, as the service would attach it to a job. */
export function cardOf(model: string, capability: MediaCapability): InterfaceFile {
  const file = JSON.parse(testCatalog[`models/${model}.json`] as string) as { interfaces: InterfaceFile[] };
  return file.interfaces.find((i) => i.capability === capability) as InterfaceFile;
}

/** The ProviderError `p` rejects with (the test fails when it resolves or throws anything else). */
export async function rejection(p: Promise<unknown>): Promise<ProviderError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ProviderError);
  return e as ProviderError;
}

/** What a fake at `baseUrl` recorded under tag `t`. */
export async function recorded<T = Recorded<any>>(baseUrl: string, t: string): Promise<T[]> {
  return (await (await fetch(`${baseUrl}/_fake/requests?tag=${encodeURIComponent(t)}`)).json()) as T[];
}

/**
 * A job as the service hands it to an adapter. `job` names what the test is about (at least the
 * capability, the model and the request); the rest is filler: a fresh task id, no card, no inputs.
 */
export function unitJob<C extends MediaCapability>(
  job: Pick<JobFor<C>, "capability" | "model" | "request"> & Partial<JobFor<C>>,
): JobFor<C> {
  return {
    task_id: `task_${crypto.randomUUID().replaceAll("-", "")}`,
    tenant_id: "tenant_test",
    upstream_model: job.model,
    card: {} as InterfaceFile,
    inputs: [],
    metadata: {},
    ...job,
  } as JobFor<C>;
}

/** A video request as admission completes it (5 s of 16:9 at 720p, no extras); `over` is what the test is about. */
export function videoRequest(prompt: string, over: Partial<VideoRequest> = {}): VideoRequest {
  return {
    prompt,
    duration: 5,
    aspect_ratio: "16:9",
    resolution: "720p",
    watermark: false,
    generate_audio: false,
    web_search: false,
    return_last_frame: false,
    output_format: "mp4",
    ...over,
  };
}

/** An image request as admission completes it (one independent 1024×1024 image); `over` is what the test is about. */
export function imageRequest(prompt: string, over: Partial<ImageRequest> = {}): ImageRequest {
  return { prompt, count: 1, dimensions: { width: 1024, height: 1024 }, output_relationship: "independent", ...over };
}
