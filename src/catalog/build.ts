/**
 * Builds the catalog bundle from the files of `catalog-data/`. Runs in Node (start and deploy
 * scripts) and in the Worker (tests); a bad file fails the whole build, naming file and field.
 */

import type { z } from "zod";
import { toJsonPointer } from "../lib/json-pointer";
import { PROVIDERS, serves } from "../providers/names";
import { type SafetyTermEntry, SafetyTermsFile } from "../safety/terms";
import {
  CAPABILITIES,
  type Capability,
  CapabilityFile,
  ModelFile,
  type ModelFile as ModelFileT,
  ProviderDomainsFile,
  type VoiceFile,
  VoicesFile,
} from "./schema";

export interface CatalogBundle {
  version: string;
  built_at: string;
  capabilities: Record<Capability, CapabilityFile>;
  models: Record<string, ModelFileT>;
  voices: VoiceFile[];
  /** The built-in content reviewer's list (safety/builtin-terms.json); absent in bundles built before it. */
  safety_terms?: SafetyTermEntry[];
}

export class CatalogLoadError extends Error {
  constructor(
    readonly file: string,
    readonly field: string,
    reason: string,
  ) {
    super(`${file}${field ? ` at ${field}` : ""}: ${reason}`);
    this.name = "CatalogLoadError";
  }
}

/** Path (relative to catalog-data/) → file text. */
export type CatalogFiles = Record<string, string>;

function parseFile<S extends z.ZodType>(file: string, text: string, schema: S): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new CatalogLoadError(file, "", `not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new CatalogLoadError(file, issue ? toJsonPointer(issue.path) : "", issue?.message ?? "invalid");
  }
  return result.data;
}

export function buildCatalog(files: CatalogFiles, builtAt = new Date().toISOString()): CatalogBundle {
  const capabilities = {} as Record<Capability, CapabilityFile>;
  const models: Record<string, ModelFileT> = {};
  const voices: VoiceFile[] = [];
  const voiceFiles = new Map<string, string>();
  let safetyTerms: SafetyTermEntry[] | undefined;
  const providerDomains = new Map<string, string[]>();

  for (const file of Object.keys(files).sort()) {
    const text = files[file] as string;
    const [dir, name] = file.split("/");
    if (!name?.endsWith(".json")) continue;
    const base = name.slice(0, -".json".length);
    if (dir === "capabilities") {
      const cap = parseFile(file, text, CapabilityFile);
      if (cap.capability !== base) throw new CatalogLoadError(file, "/capability", `must equal the file name '${base}'`);
      capabilities[cap.capability] = cap;
    } else if (dir === "models") {
      const model = parseFile(file, text, ModelFile);
      if (model.model !== base) throw new CatalogLoadError(file, "/model", `must equal the file name '${base}'`);
      models[model.model] = model;
    } else if (dir === "voices") {
      const list = parseFile(file, text, VoicesFile);
      list.forEach((v, i) => {
        const seen = voiceFiles.get(v.voice_id);
        if (seen) throw new CatalogLoadError(file, `/${i}/voice_id`, `'${v.voice_id}' is already defined in ${seen}`);
        voiceFiles.set(v.voice_id, file);
        voices.push(v);
      });
    } else if (dir === "providers") {
      const entry = parseFile(file, text, ProviderDomainsFile);
      if (entry.provider !== base) throw new CatalogLoadError(file, "/provider", `must equal the file name '${base}'`);
      if (!Object.hasOwn(PROVIDERS, base)) throw new CatalogLoadError(file, "/provider", `no adapter for provider '${base}'`);
      providerDomains.set(base, entry.domains);
    } else if (dir === "safety") {
      if (base !== "builtin-terms") throw new CatalogLoadError(file, "", "unknown safety file (expected builtin-terms.json)");
      safetyTerms = parseFile(file, text, SafetyTermsFile).entries;
    } else {
      throw new CatalogLoadError(
        file,
        "",
        "unknown catalog folder (expected capabilities/, models/, voices/, providers/ or safety/)",
      );
    }
  }

  for (const cap of CAPABILITIES) {
    if (!capabilities[cap]) throw new CatalogLoadError(`capabilities/${cap}.json`, "", "missing capability file");
  }
  for (const model of Object.values(models)) {
    checkRoutes(model);
    checkPrices(model);
    checkFirstPartySources(model, providerDomains);
    checkDeprecation(model, models, Date.parse(builtAt));
    model.interfaces.forEach((card, i) => {
      const file = `models/${model.model}.json`;
      const speechVoices = voices.filter((v) => v.compatible_models.includes(model.model));
      if (card.capability === "text_to_speech" && speechVoices.length === 0) {
        throw new CatalogLoadError(file, `/interfaces/${i}`, "a speech model needs at least one compatible voice");
      }
      if (card.pricing.meter === "tokens" && card.capability !== "chat_completion" && !card.default_output_tokens) {
        throw new CatalogLoadError(
          file,
          `/interfaces/${i}/default_output_tokens`,
          "a task billed by tokens needs default_output_tokens: the output budget reserved and sent upstream when the request names none (not the card's maximum)",
        );
      }
      for (const [j, control] of card.controls.entries()) {
        if (control.required && control.omitted_behavior !== "invalid" && control.omitted_behavior !== "omit") {
          throw new CatalogLoadError(
            file,
            `/interfaces/${i}/controls/${j}/omitted_behavior`,
            "a required control cannot have a default",
          );
        }
      }
    });
  }
  voices.forEach((v) => {
    v.compatible_models.forEach((m, j) => {
      const model = models[m];
      if (!model?.interfaces.some((i) => i.capability === "text_to_speech")) {
        throw new CatalogLoadError(
          voiceFiles.get(v.voice_id) as string,
          `/${voices.filter((x) => voiceFiles.get(x.voice_id) === voiceFiles.get(v.voice_id)).indexOf(v)}/compatible_models/${j}`,
          `'${m}' is not a speech model of the catalog`,
        );
      }
    });
  });

  return {
    version: catalogVersion(files),
    built_at: builtAt,
    capabilities,
    models,
    voices,
    ...(safetyTerms ? { safety_terms: safetyTerms } : {}),
  };
}

/**
 * The catalog never promises what the code cannot do: every route names a provider the code has an
 * adapter for, serving at least one of the model's capabilities, and per-capability upstream ids
 * name capabilities the model offers.
 */
function checkRoutes(model: ModelFileT): void {
  const file = `models/${model.model}.json`;
  const offered = new Set(model.interfaces.map((i) => i.capability));
  // Every capability a card offers has a real route: the sandbox alone would be a promise of simulation.
  model.interfaces.forEach((card, i) => {
    const real = model.routes.some(
      (r) =>
        r.provider !== "sandbox" &&
        serves(r.provider, card.capability) &&
        (!r.capabilities || r.capabilities.includes(card.capability)),
    );
    if (!real && (card.status ?? model.status) !== "retired") {
      throw new CatalogLoadError(file, `/interfaces/${i}`, `no real route serves ${card.capability} (the sandbox is not one)`);
    }
  });
  model.routes.forEach((route, r) => {
    if (!Object.hasOwn(PROVIDERS, route.provider)) {
      throw new CatalogLoadError(
        file,
        `/routes/${r}/provider`,
        `no adapter for provider '${route.provider}' (known: ${Object.keys(PROVIDERS).join(", ")})`,
      );
    }
    if (![...offered].some((c) => serves(route.provider, c))) {
      throw new CatalogLoadError(file, `/routes/${r}/provider`, `'${route.provider}' serves none of this model's capabilities`);
    }
    for (const cap of route.capabilities ?? []) {
      if (!offered.has(cap) || !serves(route.provider, cap)) {
        throw new CatalogLoadError(
          file,
          `/routes/${r}/capabilities`,
          `'${cap}' is not a capability of this model that ${route.provider} serves`,
        );
      }
    }
    for (const cap of Object.keys(route.upstream_models ?? {})) {
      if (!offered.has(cap as Capability)) {
        throw new CatalogLoadError(file, `/routes/${r}/upstream_models/${cap}`, "the model does not offer this capability");
      }
    }
  });
}

/**
 * Hosts and relays that sell other makers' models; every other real provider is the maker's own
 * API (a direct route). Prices are judged against this: see checkPrices.
 */
export const RESELLING_PROVIDERS: ReadonlySet<string> = new Set(["fal", "replicate", "kie", "openai-compatible"]);

/** The price a route bills for a capability: its own, or the card's. */
function routePricing(route: ModelFileT["routes"][number], card: ModelFileT["interfaces"][number]) {
  return route.pricing?.[card.capability] ?? card.pricing;
}

/**
 * Every price says whose it is, and a published price change does not drop a price: each
 * schedule step prices the same option dimensions as the options before it. A direct route (the
 * maker's own API) that bills at a reseller's price is only an estimate and must say why.
 */
function checkPrices(model: ModelFileT): void {
  const file = `models/${model.model}.json`;
  const steps = (pricing: ModelFileT["interfaces"][number]["pricing"], at: string) => {
    const keys = (options: { dimensions: Record<string, string> }[]) =>
      options.map((o) => JSON.stringify(Object.entries(o.dimensions).sort())).sort();
    const base = JSON.stringify(keys(pricing.options));
    pricing.schedule?.forEach((step, k) => {
      if (JSON.stringify(keys(step.options)) !== base) {
        throw new CatalogLoadError(
          file,
          `${at}/schedule/${k}/options`,
          `the step from ${step.effective_from} must price the same option dimensions as the options before it`,
        );
      }
    });
  };
  model.interfaces.forEach((card, i) => {
    steps(card.pricing, `/interfaces/${i}/pricing`);
  });
  model.routes.forEach((route, r) => {
    for (const [cap, pricing] of Object.entries(route.pricing ?? {})) if (pricing) steps(pricing, `/routes/${r}/pricing/${cap}`);
  });
  model.routes.forEach((route, r) => {
    if (route.provider === "sandbox" || RESELLING_PROVIDERS.has(route.provider)) return;
    model.interfaces.forEach((card, i) => {
      if (!serves(route.provider, card.capability) || (route.capabilities && !route.capabilities.includes(card.capability)))
        return;
      const pricing = routePricing(route, card);
      const at = route.pricing?.[card.capability] ? `/routes/${r}/pricing/${card.capability}` : `/interfaces/${i}/pricing`;
      const prices = [
        { where: at, price: pricing },
        ...(pricing.schedule ?? []).map((step, k) => ({ where: `${at}/schedule/${k}`, price: step })),
      ];
      for (const { where, price } of prices) {
        if (price.source_kind === "reseller" && !price.estimate_reason) {
          throw new CatalogLoadError(
            file,
            `${where}/source_kind`,
            `the direct route '${route.provider}' bills ${card.capability} at a reseller's price: cite the maker's price (source_kind first_party) or mark it an estimate with estimate_reason`,
          );
        }
      }
    });
  });
}

/**
 * The hosts of the addresses a source text cites: `https://host…`, or a bare `host/path`
 * (sources often write `api-docs.deepseek.com/quick_start/pricing`). A bare name with no path
 * (`notes/models.md`, a file) is not an address.
 */
export function citedHosts(text: string): string[] {
  const hosts = new Set<string>();
  for (const m of text.matchAll(/\bhttps?:\/\/((?:[a-z0-9-]+\.)+[a-z]{2,})/gi)) hosts.add((m[1] as string).toLowerCase());
  for (const m of text.matchAll(/(?<![\w./@:-])((?:[a-z0-9-]+\.)+[a-z]{2,})\/\S/gi)) hosts.add((m[1] as string).toLowerCase());
  return [...hosts];
}

const onDomain = (host: string, domains: readonly string[]) => domains.some((d) => host === d || host.endsWith(`.${d}`));

/**
 * A price marked `first_party` is the list price of the provider that serves the route billing
 * it (the maker's own API, or its own cloud: BytePlus for ByteDance), so its source must cite a
 * page on that provider's own domains (catalog-data/providers/). A card's price is judged by the
 * model's `source`, a route's own price by the route's `source` (else the model's), a schedule
 * step by its own `source`; every direct route billing the price is judged. A host (fal,
 * Replicate, a relay) bills its own price, which is a reseller's.
 */
function checkFirstPartySources(model: ModelFileT, providerDomains: ReadonlyMap<string, string[]>): void {
  const file = `models/${model.model}.json`;
  const judge = (provider: string, where: string, capability: string, source: string) => {
    if (RESELLING_PROVIDERS.has(provider)) {
      throw new CatalogLoadError(
        file,
        `${where}/source_kind`,
        `'${provider}' is a host: the price it bills for ${capability} is a reseller's, not first_party`,
      );
    }
    const domains = providerDomains.get(provider);
    if (!domains) {
      throw new CatalogLoadError(
        file,
        `${where}/source_kind`,
        `a first_party price billed by '${provider}' needs that provider's own domains in providers/${provider}.json`,
      );
    }
    const hosts = citedHosts(source);
    if (!hosts.some((h) => onDomain(h, domains))) {
      throw new CatalogLoadError(
        file,
        `${where}/source_kind`,
        `the first_party price of ${capability} on '${provider}' cites no page on ${provider}'s own domains (${domains.join(", ")}); its source cites ${hosts.length ? hosts.join(", ") : "no address"}: cite the provider's own page, or mark the price reseller (with estimate_reason on a direct route)`,
      );
    }
  };
  const priced = (pricing: ModelFileT["interfaces"][number]["pricing"], at: string, source: string) => [
    { where: at, kind: pricing.source_kind, source },
    ...(pricing.schedule ?? []).map((step, k) => ({ where: `${at}/schedule/${k}`, kind: step.source_kind, source: step.source })),
  ];
  model.interfaces.forEach((card, i) => {
    const serving = model.routes
      .map((route, r) => ({ route, r }))
      .filter(
        ({ route }) =>
          route.provider !== "sandbox" &&
          serves(route.provider, card.capability) &&
          (!route.capabilities || route.capabilities.includes(card.capability)),
      );
    // The card's price, judged for each route that bills it (a route without a price of its own).
    const billing = serving.filter(({ route }) => !route.pricing?.[card.capability]);
    for (const price of priced(card.pricing, `/interfaces/${i}/pricing`, model.source)) {
      if (price.kind !== "first_party") continue;
      for (const { route } of billing) {
        if (RESELLING_PROVIDERS.has(route.provider)) continue; // a host billing the maker's list price as its own
        judge(route.provider, price.where, card.capability, price.source);
      }
    }
    for (const { route, r } of serving) {
      const own = route.pricing?.[card.capability];
      if (!own) continue;
      for (const price of priced(own, `/routes/${r}/pricing/${card.capability}`, route.source ?? model.source)) {
        if (price.kind === "first_party") judge(route.provider, price.where, card.capability, price.source);
      }
    }
  });
}

/**
 * A deprecation keeps the catalog honest: the card says `deprecated`, its replacement exists and
 * serves every operation the deprecated model serves (the warning names it on each of them), and
 * once the shutdown date has passed the catalog does not build until the card is updated
 * (retired, or the deprecation withdrawn).
 */
function checkDeprecation(model: ModelFileT, models: Record<string, ModelFileT>, now: number): void {
  const d = model.deprecation;
  const file = `models/${model.model}.json`;
  if (!d) {
    if (model.status === "deprecated") {
      throw new CatalogLoadError(
        file,
        "/deprecation",
        "a deprecated model needs its deprecation (announced_at, shutdown_at when announced, note, source): responses take their Deprecation and Sunset headers from it",
      );
    }
    return;
  }
  if (model.status !== "deprecated" && model.status !== "retired") {
    throw new CatalogLoadError(file, "/status", "a model with a deprecation must be 'deprecated' (or 'retired')");
  }
  const replacement = d.replacement === undefined ? undefined : models[d.replacement];
  if (d.replacement !== undefined && !replacement) {
    throw new CatalogLoadError(file, "/deprecation/replacement", `'${d.replacement}' is not a model of the catalog`);
  }
  if (replacement) {
    const serving = (m: ModelFileT, cap: Capability) =>
      m.interfaces.some((c) => c.capability === cap && (c.status ?? m.status) === "live" && !m.deprecation);
    for (const card of model.interfaces) {
      if ((card.status ?? model.status) === "retired") continue;
      if (!serving(replacement, card.capability)) {
        throw new CatalogLoadError(
          file,
          "/deprecation/replacement",
          `'${replacement.model}' does not serve ${card.capability} as a live model: a replacement must serve every operation of the model it replaces`,
        );
      }
    }
  }
  if (d.shutdown_at && model.status !== "retired" && Date.parse(`${d.shutdown_at}T00:00:00Z`) <= now) {
    throw new CatalogLoadError(
      file,
      "/deprecation/shutdown_at",
      `the shutdown date ${d.shutdown_at} has passed: mark the model retired or update its deprecation`,
    );
  }
}

/** Cards whose facts have not been checked against the provider's pages for this long are stale. */
export const STALE_AFTER_DAYS = 90;

/** What catalog:check reports without refusing: cards whose `checked_at` is older than STALE_AFTER_DAYS. */
export function catalogWarnings(bundle: CatalogBundle, now = Date.now()): string[] {
  const warnings: string[] = [];
  for (const model of Object.values(bundle.models)) {
    if (model.status === "retired") continue;
    const age = Math.floor((now - Date.parse(`${model.checked_at}T00:00:00Z`)) / 86_400_000);
    if (age > STALE_AFTER_DAYS) {
      warnings.push(
        `catalog-data/models/${model.model}.json at /checked_at: last checked ${model.checked_at} (${age} days ago, more than ${STALE_AFTER_DAYS}): re-check its limits, prices and ids against the provider's pages`,
      );
    }
  }
  return warnings;
}

/** A content hash of the files: the same data always yields the same version. */
function catalogVersion(files: CatalogFiles): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (const name of Object.keys(files).sort()) {
    const s = `${name}\n${files[name]}\n`;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 16777619);
      h2 = Math.imul(h2 ^ c, 2246822519);
    }
  }
  return `cat_${(h1 >>> 0).toString(16).padStart(8, "0")}${(h2 >>> 0).toString(16).padStart(8, "0")}`;
}
