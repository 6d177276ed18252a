import { ApiError } from "../errors/api-error";
import type { CatalogBundle } from "./build";

/** KV layout: a pointer to the current version, and one immutable bundle per version. */
export const CURRENT_KEY = "catalog:current";
export const bundleKey = (version: string) => `catalog:bundle:${version}`;

/** KV entries that publish a bundle (the loader writes them, bundle before pointer). */
export function catalogEntries(bundle: CatalogBundle): { key: string; value: string }[] {
  return [
    { key: bundleKey(bundle.version), value: JSON.stringify(bundle) },
    { key: CURRENT_KEY, value: bundle.version },
  ];
}

export async function publishCatalog(kv: KVNamespace, bundle: CatalogBundle): Promise<void> {
  const [b, pointer] = catalogEntries(bundle) as [{ key: string; value: string }, { key: string; value: string }];
  await kv.put(b.key, b.value);
  await kv.put(pointer.key, pointer.value);
}

let cached: CatalogBundle | null = null;

/** The current catalog; the parsed bundle is kept per isolate until the pointer moves. */
export async function loadCatalog(kv: KVNamespace): Promise<CatalogBundle> {
  const version = await kv.get(CURRENT_KEY);
  if (!version) throw new ApiError("model_unavailable", "The model catalog is not loaded on this deployment.");
  if (cached?.version === version) return cached;
  const bundle = await kv.get<CatalogBundle>(bundleKey(version), "json");
  if (!bundle) throw new ApiError("model_unavailable", "The model catalog is not loaded on this deployment.");
  cached = bundle;
  return bundle;
}
