/** Which optional features the tenant uses, read from the account's own tables (src/tenancy/tenant-features.ts). */
import { hasDefaultDestination } from "../destinations/destination-rows";
import { hasUsableProviderKey } from "../provider-keys/rows";
import type { TenantFeatures } from "../tenancy/tenant-features";
import { hasEndpoint } from "../webhooks/endpoint-rows";

export function readTenantFeatures(sql: SqlStorage): TenantFeatures {
  return {
    provider_keys: hasUsableProviderKey(sql),
    webhook_endpoints: hasEndpoint(sql),
    default_destination: hasDefaultDestination(sql),
  };
}

/** An answer of the ledger, with the tenant's features when the caller asked (`told`) and it holds or settled. */
export function withFeatures<T extends object>(sql: SqlStorage, answer: T, told: boolean): T;
export function withFeatures<T extends object>(sql: SqlStorage, answer: T | null, told: boolean): T | null;
export function withFeatures<T extends object>(sql: SqlStorage, answer: T | null, told: boolean): T | null {
  if (!told || !answer || ("ok" in answer && answer.ok === false)) return answer;
  return { ...answer, features: readTenantFeatures(sql) };
}
