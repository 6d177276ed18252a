/** The catalog's choices a create form offers: the models of a capability (and where each may run), and the voices. */
import type { Env } from "../http/context";
import type { Capability } from "../services/catalog";
import { interfacesOf, isOffered, isSelectable, loadCatalog } from "../services/catalog";
import { liveProviders } from "../services/providers";

export interface ModelChoice {
  id: string;
  label: string;
  /** Selectable by a test-mode create (the sandbox serves it). */
  test: boolean;
  /** Selectable by a live create. */
  live: boolean;
}

export async function catalogChoices(env: Env, capability: Capability) {
  const bundle = await loadCatalog(env.CATALOG);
  const test = liveProviders(env, "test");
  const live = liveProviders(env, "live");
  const models: ModelChoice[] = interfacesOf({ bundle, providers: live }, capability)
    .filter(({ model, card }) => isOffered(model, card))
    .map(({ model, card }) => ({
      id: model.model,
      label: model.display_name ?? model.model,
      test: isSelectable(model, card, test),
      live: isSelectable(model, card, live),
    }));
  const voices = bundle.voices
    .filter((v) => v.status === "ready")
    .map((v) => ({ id: v.voice_id, label: `${v.display_name} (${v.language}, ${v.gender})` }));
  return { models, voices };
}

export type Choices = Awaited<ReturnType<typeof catalogChoices>>;
