/**
 * A tenant's own provider keys (`providers:manage`): add or replace (checked with the provider
 * first), list, remove. The key is sealed here, before it travels to the tenant's AccountObject,
 * and no answer, log line or audit entry carries more of it than its last four characters.
 * Live only: a test-mode key reaches none of them, reads included (src/keys/mode-scope.ts).
 */

import { accountFor } from "../accounts/account-stub";
import { featuresChanged } from "../accounts/service";
import { type AuditBy, audited } from "../audit/audited";
import { loadCatalog } from "../catalog/store";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { tenantNotFound } from "../errors/not-found";
import { type ModeScope, requireLive } from "../keys/mode-scope";
import { fromJsonPointer } from "../lib/json-pointer";
import { httpCause, httpErrorCode, isNetworkCause, networkErrorCode } from "../lib/outbound-cause";
import { checkOutsideUrl, policyFrom } from "../lib/url-policy";
import { sealProviderKey, tenantConfig } from "../provider-keys/credential";
import type { ProviderKeyMode, ProviderKeyRecord } from "../provider-keys/rows";
import type { ProviderAdapter } from "../providers/adapter";
import { safeProviderMessage } from "../providers/messages";
import { adapterFor, adapterNames } from "../providers/registry";
import { ProviderError } from "../providers/types";

export type { ProviderKeyMode } from "../provider-keys/rows";
export interface ProviderKeyInput {
  /** Absent: the stored key is kept and only its mode, models and failover change. */
  api_key?: string;
  base_url?: string | null;
  mode: ProviderKeyMode;
  models?: string[] | null;
  failover?: boolean;
}

export function providerKeyView(k: ProviderKeyRecord) {
  return { object: "provider_key" as const, ...k };
}

/** The providers a tenant may bring a key for: every adapter of the registry but the simulator. */
export function keyableProviders(): string[] {
  return adapterNames().filter((n) => n !== "sandbox");
}

function adapterOr404(provider: string): ProviderAdapter {
  const adapter = provider === "sandbox" ? null : adapterFor(provider);
  if (!adapter) {
    throw new ApiError("not_found", `Provider '${provider}' does not exist.`, {
      details: { providers: keyableProviders() },
    });
  }
  return adapter;
}

function invalid(param: string, reason: string, message: string, details: Record<string, unknown> = {}): ApiError {
  const loc = ["body", ...fromJsonPointer(param)];
  return new ApiError("invalid_request", message, { param, details: { errors: [{ loc, reason }], ...details } });
}

/** The outside-URL policy of callbacks: HTTPS to a public host (loopback only in the local configuration). */
function checkedBaseUrl(env: Env, url: string): string {
  const verdict = checkOutsideUrl(url, policyFrom(env));
  if (!verdict.ok) throw invalid("/base_url", verdict.reason, `base_url ${verdict.reason}.`);
  return verdict.url.toString().replace(/\/+$/, "");
}

/** Each listed model is a catalog model with a route to the provider. */
async function checkedModels(env: Env, provider: string, models: string[]): Promise<string[]> {
  const bundle = await loadCatalog(env.CATALOG);
  models.forEach((id, i) => {
    const model = Object.hasOwn(bundle.models, id) ? bundle.models[id] : undefined;
    if (!model) throw invalid(`/models/${i}`, "unknown model", `Model '${id}' does not exist.`);
    if (!model.routes.some((r) => r.provider === provider)) {
      throw invalid(`/models/${i}`, `no route to ${provider}`, `Model '${id}' has no route to ${provider}.`);
    }
  });
  return [...new Set(models)];
}

interface Checked {
  status: "active" | "unchecked";
  status_reason: string | null;
  warnings: { code: string; message: string; field: string }[];
}

/**
 * The provider's cheapest authenticated call with the key: a refusal (a 4xx) is the caller's 422;
 * no answer, or the provider's own failure, the class every outside call gives (docs/errors.md). A provider without such a call leaves the key `unchecked`, never shown as checked.
 */
export async function verifyProviderKey(
  env: Env,
  adapter: ProviderAdapter,
  apiKey: string,
  baseUrl: string | null,
): Promise<Checked> {
  if (!adapter.verifyKey) {
    const reason = `${adapter.name} documents no call to check a key with; the first task on it tells.`;
    return { status: "unchecked", status_reason: reason, warnings: [] };
  }
  try {
    const found = await adapter.verifyKey(tenantConfig(env, adapter, { api_key: apiKey, base_url: baseUrl }));
    const warning = found?.warning;
    if (!warning) return { status: "active", status_reason: null, warnings: [] };
    const message = safeProviderMessage(warning.message, [apiKey], 600);
    return { status: "active", status_reason: message, warnings: [{ code: warning.code, message, field: "/api_key" }] };
  } catch (e) {
    const pe = e instanceof ProviderError ? e : null;
    const said = safeProviderMessage(e instanceof Error ? e.message : String(e), [apiKey], 600);
    const status = pe?.upstreamStatus;
    const cause = pe?.outboundCause ?? (status !== undefined ? httpCause(status) : "network_error");
    const answered = status !== undefined ? httpErrorCode(status) : null;
    if (status !== undefined && answered === null) {
      throw invalid("/api_key", "rejected by the provider", `${adapter.name} refused the key: ${said}`, {
        reason: "provider_key_rejected",
        provider: adapter.name,
        provider_status: status,
        provider_message: said,
        cause,
      });
    }
    // No answer, or the provider's own failure: the class every outside call gives (src/lib/outbound-cause.ts).
    const code = answered ?? (isNetworkCause(cause) ? networkErrorCode(cause) : "model_unavailable");
    throw new ApiError(code, `${adapter.name} could not check the key now: ${said}`, {
      details: { provider: adapter.name, cause, ...(status !== undefined ? { provider_status: status } : {}) },
    });
  }
}

export async function putProviderKey(env: Env, scope: ModeScope, provider: string, input: ProviderKeyInput, by: AuditBy) {
  requireLive(scope.mode, "provider_keys");
  const tenantId = scope.tenant_id;
  const adapter = adapterOr404(provider);
  if (input.api_key === undefined) return changeRouting(env, tenantId, provider, input, by);
  const apiKey = input.api_key.trim();
  if (apiKey.length < 8) throw invalid("/api_key", "too short", "api_key is too short to be a provider key.");
  const baseUrl = input.base_url ? checkedBaseUrl(env, input.base_url) : null;
  const models = input.models && input.models.length > 0 ? await checkedModels(env, provider, input.models) : null;
  const checked = await verifyProviderKey(env, adapter, apiKey, baseUrl);
  const sealed = await sealProviderKey(env, tenantId, provider, apiKey);
  const record = await accountFor(env, tenantId).putProviderKey(
    {
      provider,
      key_sealed: sealed,
      last4: apiKey.slice(-4),
      base_url: baseUrl,
      mode: input.mode,
      models,
      failover: input.failover ?? true,
      status: checked.status,
      status_reason: checked.status_reason,
    },
    audited(by, "provider_key.put", provider, { mode: input.mode, models, failover: input.failover ?? true, base_url: baseUrl }),
  );
  if (!record) throw tenantNotFound(tenantId);
  featuresChanged(tenantId);
  return { ...providerKeyView(record), warnings: checked.warnings };
}

/** A PUT without `api_key`: the stored key keeps its secret, host and status; its routing changes. */
async function changeRouting(env: Env, tenantId: string, provider: string, input: ProviderKeyInput, by: AuditBy) {
  if (input.base_url) {
    throw invalid("/api_key", "required with base_url", "A new base_url needs the key it belongs to: send api_key too.");
  }
  const models = input.models && input.models.length > 0 ? await checkedModels(env, provider, input.models) : null;
  const change = { mode: input.mode, models, failover: input.failover ?? true };
  const record = await accountFor(env, tenantId).updateProviderKeyRouting(
    provider,
    change,
    audited(by, "provider_key.update", provider, change),
  );
  if (!record) throw invalid("/api_key", "required", `No ${provider} key is stored yet: send api_key.`);
  featuresChanged(tenantId);
  return providerKeyView(record);
}

export async function listProviderKeys(env: Env, scope: ModeScope) {
  requireLive(scope.mode, "provider_keys");
  const keys = await accountFor(env, scope.tenant_id).providerKeys();
  return { object: "list" as const, data: keys.map(providerKeyView), has_more: false as const };
}

export async function deleteProviderKey(env: Env, scope: ModeScope, provider: string, by: AuditBy) {
  requireLive(scope.mode, "provider_keys");
  const tenantId = scope.tenant_id;
  adapterOr404(provider);
  const removed = await accountFor(env, tenantId).deleteProviderKey(provider, audited(by, "provider_key.delete", provider));
  if (!removed) throw new ApiError("not_found", `No ${provider} key is set for this tenant.`);
  featuresChanged(tenantId);
  return { object: "provider_key" as const, provider, deleted: true as const };
}
