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
/** The pointer as last read; re-read at most this often, so a request rarely waits on KV. */
const POINTER_TTL_MS = 2_000;
let pointer: { version: string; at: number } | null = null;

/**
 * The current catalog; the parsed bundle is kept per isolate until the pointer moves, and the
 * pointer is read at most every POINTER_TTL_MS (a newly published catalog is served within that).
 */
export async function loadCatalog(kv: KVNamespace): Promise<CatalogBundle> {
  if (cached && pointer && pointer.version === cached.version && Date.now() - pointer.at < POINTER_TTL_MS) return cached;
  const version = await kv.get(CURRENT_KEY);
  if (version) pointer = { version, at: Date.now() };
  if (!version) throw new ApiError("model_unavailable", "The model catalog is not loaded on this deployment.");
  if (cached?.version === version) return cached;
  const bundle = await kv.get<CatalogBundle>(bundleKey(version), "json");
  if (!bundle) throw new ApiError("model_unavailable", "The model catalog is not loaded on this deployment.");
  cached = bundle;
  return bundle;
}
